"""Topic tables: which table each current fact is in, and how the offline pass restructures them.

Every current fact is in exactly one table of its scope (`fact.fact_table`). A scope's first
facts seed its tables from `facts.tables`; a new fact goes to the table whose vector it is most
similar to (`TablePlacer`, in the facts step's apply transaction). A table's vector is the unit
sum of its label's embedding ("name: description") and its facts' unit centroid, so a table
is found by what it is called and by what it holds. A fact's vector here is its topic vector:
its text embedded with the names of people and things left out, headed by the fact's topic when
the extraction model gave a specific one ("pets: adopted a cat named .", `topic_vectors`). A default
table the scope lost because it was left empty is still a candidate (`offered_defaults`: not one
a split retired, nor one whose name a table has), made again when a fact fits it best.

The offline pass (`TablePlanner.plan`, called from consolidator/facts/sleep.py) then, over the
facts that survive its merges and drops:

1. places the facts that have no table yet (or a table that is gone);
2. moves a fact to another table that holds facts when that table's similarity beats its own by
   `facts.table_move_margin` (one round);
3. merges each table under `facts.table_min` facts into its nearest table, smallest first,
   except the default tables (a topic a reader looks for, however small), and drops tables
   left empty;
4. splits each table over `facts.table_max` with one `split_table` model call: the reply's
   parts are checked (every fact in exactly one part; unlisted facts join their nearest part;
   parts under table_min join their nearest), a reply with fewer than two usable parts (or a
   ModelError: no valid reply) falls back to the offline clustering without a second call, and
   a part still over the limit is split again; a Deferred (budget, pending batch) defers the pass.
   A table's size counts the reflections that will live in it (`riders`: most of their sources).

The plan is written by `write_plan` in the pass's own transaction (committed only if the
facts' revision is unchanged): fact tables, the registry, and one `fact_table_move` row per
fact moved (kind move, merge or split, and why). Same facts and replies in, same plan out.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Sequence

import numpy as np
import structlog
from stores.engine import Session

from consolidator.facts.table_parts import unique_name, unit_rows, usable_parts
from consolidator.model.base import Deferred, ModelError
from consolidator.model.embeddings import Embedder
from consolidator.model.offline.names import topic_texts
from consolidator.model.offline.tables import cut_in_order, split_table as offline_split
from consolidator.model.schemas import KnownFact, SplitTableReply, SplitTableRequest
from stores.fact_tables import Moved, add_table, drop_tables, record_moves, split_names, tables_of
from stores.facts import current_texts, facts_by_id, state_of, to_bytes
from stores.schema.memory import Fact

log = structlog.get_logger()

SPLIT_FILL = 0.75  # a split aims at parts of three quarters of table_max (room to grow before the next)


def label(name: str, description: str) -> str:
    return f"{name}: {description}" if description else name


def table_vector(label_vector: np.ndarray, members: np.ndarray) -> np.ndarray:
    """The unit sum of the label's unit vector and the members' unit centroid (the label alone when empty)."""
    total = label_vector.astype(np.float64)
    if len(members):
        centre = members.mean(axis=0)
        total = total + centre / max(float(np.linalg.norm(centre)), 1e-12)
    return (total / max(float(np.linalg.norm(total)), 1e-12)).astype(np.float32)


Read = Callable[[list[str], Sequence[str]], list[str]]  # (texts, other texts of the scope) -> what to embed
GENERIC_TOPICS = frozenset({"events", "general"})  # what a fact's topic is when nothing more was said


def specific_topic(topic: str | None) -> str:
    """A fact's topic on one line when it says more than GENERIC_TOPICS (compared case folded);
    else ''. Topics are the extraction model's free text ("Events ", "pets\nfacts:")."""
    clean = " ".join((topic or "").split())
    return "" if clean.casefold() in GENERIC_TOPICS else clean


def topic_vectors(texts: Sequence[str], embedder: Embedder, read: Read = topic_texts,
                  context: Sequence[str] = (), topics: Sequence[str | None] = ()) -> np.ndarray:
    """Unit rows embedding what each fact says with the names left out (names.topic_texts, with
    `context` as more evidence of which words are names), headed by the fact's topic when the
    model gave one more specific than GENERIC_TOPICS ("pets: adopted a cat named ."): a table is
    chosen by what a fact is about, not by whom, so the facts of one person do not all gather in
    whichever table holds most of them. Not the stored embedding (which dedup uses)."""
    if not texts:
        return np.zeros((0, embedder.dim), np.float32)
    headed = [f"{topic}: {text}" if (topic := specific_topic(t)) else text
              for t, text in zip(list(topics) or [None] * len(texts), texts)]
    return unit_rows(embedder.embed(read(headed, context)).astype(np.float32))  # names left out of the topic too


def offered_defaults(names: Sequence[str], settings: Any, retired: set[str]) -> list[tuple[str, str]]:
    """The default tables a scope lacks that are still there to be chosen (made again when a fact
    fits one best): not one whose name a table of the scope already has (case folded), nor one a
    restructure split (its facts live on in the parts)."""
    taken = {n.casefold() for n in (*names, *retired)}
    return [(t.name, t.description) for t in settings.tables if t.name.casefold() not in taken]


class LabelCache:
    """Embeddings of table labels, made once per (name, description) per process."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, name: str, description: str) -> np.ndarray:
        text = label(name, description)
        if text not in self._cache:
            self._cache[text] = unit_rows(self.embedder.embed([text]).astype(np.float32))[0]
        return self._cache[text]


class TablePlacer:
    """Places new facts in the facts step's apply transaction (the scope's tables seeded first)."""

    def __init__(self, embedder: Embedder, settings: Any) -> None:
        self.labels = LabelCache(embedder)
        self.settings = settings

    def place(self, session: Session, scope: str, rows: Sequence[Fact], now: datetime) -> None:
        if not rows:
            return
        # under the scope's fact lock (taken by touch() anyway): an offline pass committing a
        # restructure meanwhile is waited for, so no fact lands in a table it just dropped
        state_of(session, scope, lock=True)
        registry = tables_of(session, scope)
        if not registry:
            taken: set[str] = set()
            registry = [add_table(session, scope, t.name, t.description, now, taken=taken) for t in self.settings.tables]
        candidates = [(t.name, t.description, t.vector) for t in registry]
        candidates += [(name, description, None) for name, description in
                       offered_defaults([t.name for t in registry], self.settings, split_names(session, scope))]
        dim = self.labels.embedder.dim
        matrix = np.stack([np.frombuffer(vector, np.float32) if vector and len(vector) == 4 * dim
                           else self.labels(name, description) for name, description, vector in candidates])
        vectors = topic_vectors([r.text for r in rows], self.labels.embedder, context=current_texts(session, scope),
                                topics=[r.topic for r in rows])
        best = np.argmax(vectors @ matrix.T, axis=1)
        rows_of = {t.name: t for t in registry}
        for row, i in zip(rows, best.tolist()):
            name, description, _ = candidates[i]
            if name not in rows_of:  # a default table the scope no longer has: made again for this fact
                rows_of[name] = add_table(session, scope, name, description, now)
            row.fact_table = name
            rows_of[name].updated_at = now


@dataclass
class TablePlan:
    tables: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # name -> (description, vector)
    assigned: dict[str, str] = field(default_factory=dict)  # fact id -> table, for every fact whose table changed
    moves: list[Moved] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)  # tables whose facts changed
    dropped: set[str] = field(default_factory=set)
    placed: int = 0
    moved: int = 0
    merged: int = 0
    splits: int = 0
    calls: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.assigned or self.dropped or self.touched)


class TablePlanner:
    """The offline pass's restructure (see the module docstring); `model` answers `split_table`."""

    def __init__(self, embedder: Embedder, model: Any, settings: Any, read: Read = topic_texts) -> None:
        self.labels = LabelCache(embedder)
        self.model = model
        self.settings = settings
        self.read = read  # what of a fact's text its topic vector embeds (bench/table_placement.py compares)

    def plan(self, scope: str, facts: Sequence[Any], registry: Sequence[tuple[str, str]],
             retired: set[str] = frozenset(), riders: Sequence[Sequence[str]] = ()) -> TablePlan:
        """`facts`: the pass's surviving facts (id, text, fact_table, topic); `registry`: (name,
        description); `retired`: the names of tables a restructure split (stores.fact_tables.split_names);
        `riders`: the source ids of each reflection current after the pass, which lives in the table
        most of its sources are in (reflect.home) and counts in that table's size."""
        cfg, out = self.settings, TablePlan()
        seeds = {t.name: t.description for t in cfg.tables}
        known = dict(registry) or dict(seeds)
        known.update(offered_defaults(list(known), cfg, retired))  # made when a fact lands in one
        new_tables = set(known) - {name for name, _ in registry}
        vectors = topic_vectors([f.text for f in facts], self.labels.embedder, self.read,
                                topics=[getattr(f, "topic", None) for f in facts])
        ids = [f.id for f in facts]
        was = [f.fact_table if f.fact_table in known else None for f in facts]
        now = list(was)
        desc = dict(known)
        index = {f_id: i for i, f_id in enumerate(ids)}
        rides = [found for r in riders if (found := [index[s] for s in r if s in index])]

        def sizes() -> Counter[str]:
            """Facts per table, each reflection counted where most of its sources are (ties: the first's)."""
            counts = Counter(t for t in now if t)
            for r in rides:
                if held := [now[i] for i in r if now[i]]:
                    counts[Counter(held).most_common(1)[0][0]] += 1
            return counts

        def vecs() -> dict[str, np.ndarray]:
            return {n: table_vector(self.labels(n, desc[n]), vectors[[i for i, t in enumerate(now) if t == n]])
                    for n in desc}

        # 1. place the facts without a table
        todo = [i for i, t in enumerate(now) if t is None]
        if todo:
            names, matrix = self._matrix(vecs())
            for i, j in zip(todo, np.argmax(vectors[todo] @ matrix.T, axis=1).tolist()):
                now[i] = names[j]
                out.placed += 1
                if facts[i].fact_table is not None:  # its table is gone
                    out.moves.append(Moved(ids[i], facts[i].fact_table, names[j], "move", "its table is gone"))
        # 2. move facts that fit another table better by the margin, among the tables that hold
        #    facts (an empty default table is there for new facts nothing else fits)
        holding = set(now)
        live_vecs = {n: v for n, v in vecs().items() if n in holding}
        if len(live_vecs) > 1:
            names, matrix = self._matrix(live_vecs)
            sims = vectors @ matrix.T
            at = {n: k for k, n in enumerate(names)}
            for i in range(len(facts)):
                own = sims[i, at[now[i]]]
                j = int(np.argmax(sims[i]))
                if names[j] != now[i] and sims[i, j] - own > cfg.table_move_margin:
                    out.moves.append(Moved(ids[i], now[i], names[j], "move",
                                           f"similarity {sims[i, j]:.2f} to {names[j]} vs {own:.2f}"))
                    now[i] = names[j]
                    out.moved += 1
        # 3. merge tables under table_min into their nearest (not a default table: a topic a reader
        #    looks for, however few its facts); drop the empty ones
        while True:
            size = sizes()
            live = [n for n in desc if size[n]]
            small = sorted((size[n], n) for n in live if size[n] < cfg.table_min and n not in seeds)
            if not small or len(live) < 2:
                break
            _, name = small[0]
            table_vecs = vecs()
            target = max((n for n in live if n != name), key=lambda n: (float(table_vecs[n] @ table_vecs[name]), n))
            for i, t in enumerate(now):
                if t == name:
                    now[i] = target
                    out.moves.append(Moved(ids[i], name, target, "merge",
                                           f"{name} had {size[name]} facts, under table_min {cfg.table_min}"))
            out.merged += 1
            del desc[name]
        for name in [n for n in desc if not any(t == n for t in now)]:
            del desc[name]
        # 4. split tables over table_max
        size = sizes()
        queue = sorted(n for n in desc if size[n] > cfg.table_max)
        guard = 2 * len(facts) // max(cfg.table_min, 1) + 2
        while queue and guard > 0:
            guard -= 1
            name = queue.pop(0)
            members = [i for i, t in enumerate(now) if t == name]
            parts = self._split(scope, name, desc[name], members, facts, vectors, out, size[name])
            del desc[name]
            for part_name, part_desc, part in parts:
                fresh = unique_name(part_name, desc)
                desc[fresh] = part_desc
                new_tables.add(fresh)
                for i in part:
                    now[i] = fresh
                    if fresh != name:
                        out.moves.append(Moved(ids[i], name, fresh, "split",
                                               f"{name} had {size[name]} facts, over table_max {cfg.table_max}"))
            size = sizes()
            queue += [n for n in dict.fromkeys(now[i] for _, _, part in parts for i in part) if size[n] > cfg.table_max]
            out.splits += 1
        final = vecs()
        out.tables = {n: (desc[n], final[n]) for n in desc}
        out.assigned = {ids[i]: now[i] for i in range(len(facts)) if now[i] != facts[i].fact_table}
        changed = [i for i in range(len(facts)) if now[i] != facts[i].fact_table]
        out.touched = ({now[i] for i in changed} | {facts[i].fact_table for i in changed} | new_tables) & set(desc)
        out.dropped = {n for n, _ in registry} - set(desc)
        return out

    def _matrix(self, table_vecs: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
        names = list(table_vecs)
        return names, np.stack([table_vecs[n] for n in names])

    def _split(self, scope: str, name: str, description: str, members: list[int], facts: Sequence[Any],
               vectors: np.ndarray, out: TablePlan, size: int) -> list[tuple[str, str, list[int]]]:
        cfg = self.settings
        request = SplitTableRequest(
            scope=scope, ref=f"tables:{name}", table=name, description=description,
            facts=[KnownFact(id=facts[i].id, text=facts[i].text) for i in members],
            parts=max(2, math.ceil(size / (SPLIT_FILL * cfg.table_max))),
            min_facts=cfg.table_min, max_facts=cfg.table_max)
        out.calls += 1
        try:
            reply = self.model.split_table(request)
        except Deferred:  # the budget or a pending batch: the whole pass waits
            raise
        except ModelError as exc:  # no valid reply: a split must not hold the pass back for good
            log.warning("tables.split_failed", scope=scope, table=name, error=f"{type(exc).__name__}: {exc}"[:300])
            reply = SplitTableReply(tables=[])
        parts = usable_parts(reply, [facts[i].id for i in members], vectors[members], cfg.table_min, cfg.table_max)
        if parts is None:  # fewer than two usable parts: the offline clustering, without another call
            log.info("tables.split_fallback", scope=scope, table=name, parts=len(reply.tables))
            parts = usable_parts(offline_split(request), [facts[i].id for i in members], vectors[members],
                                 cfg.table_min, cfg.table_max)
        if parts is None:  # the offline names on runs cut in order: a split always makes two parts or more
            runs = cut_in_order(list(range(len(members))), vectors[members], cfg.table_min, cfg.table_max)
            parts = [(f"{name} {n}", description, run) for n, run in enumerate(runs, start=1)]
        return [(p_name, p_desc, [members[k] for k in part]) for p_name, p_desc, part in parts]


@dataclass
class Survivor:
    """A fact as the pass leaves it: a kept merge has the merged text, a new one its group's table
    and topic (the planner embeds the text itself: `topic_vectors`)."""

    id: str
    text: str
    fact_table: str | None
    topic: str | None = None


def survivors(facts: Sequence[Fact], merges: Sequence[Any], gone: set[str]) -> list[Survivor]:
    """The facts current after the pass's merges (`merges`: sleep.Merge) and drops (`gone`: every id closed)."""
    by_id = {f.id: f for f in facts}
    kept = {m.kept: m for m in merges if m.kept}
    out = [Survivor(f.id, kept[f.id].text if f.id in kept else f.text, f.fact_table, f.topic)
           for f in facts if f.id not in gone]
    out += [Survivor(m.new_id, m.text, by_id[m.members[0]].fact_table, by_id[m.members[0]].topic)
            for m in merges if m.kept is None]
    return out


def write_plan(session: Session, scope: str, plan: TablePlan, now: datetime) -> None:
    """The plan, inside the offline pass's transaction: fact tables, the registry, the moves."""
    rows = facts_by_id(session, scope, set(plan.assigned))
    for fact_id, name in plan.assigned.items():
        if fact_id in rows:
            rows[fact_id].fact_table, rows[fact_id].updated_at = name, now  # the recall index files it anew
    existing = {t.name: t for t in tables_of(session, scope)}
    drop_tables(session, scope, set(existing) - set(plan.tables))
    taken = {t.slug for n, t in existing.items() if n in plan.tables}
    for name, (description, vector) in plan.tables.items():
        row = existing.get(name)
        if row is None:
            add_table(session, scope, name, description, now, vector=to_bytes(vector), taken=taken)
            continue
        row.description, row.vector = description, to_bytes(vector)
        if name in plan.touched:
            row.updated_at = now
    record_moves(session, scope, plan.moves, now)
