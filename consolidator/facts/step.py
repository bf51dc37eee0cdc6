"""The facts step: one model call per batch turns what people said into facts, keeping the store true.

prepare (reads and thinks, writes nothing):
1. every line of the batch goes to the model as a `Line`; only people's lines can be sources
   (role "user", or "assistant" relaying a named speaker other than the agent itself);
2. the current facts nearest to each person's line, searched within THIS scope only, are
   shown to the model as neighbours (ids and similarities): facts.neighbours per line,
   round-robin over the lines, at most 4 x facts.neighbours per batch (a prompt of bounded size);
3. `model.extract_facts` is called once (when the three batch steps share one call, the facts
   part of its reply is taken instead: consolidator.pipeline.batch_extraction); each candidate then
   passes arithmetic checks before its decision is trusted:
   - refused (logged) if none of its known source messages is a person's line: tool, action
     and system output never becomes a fact about a person;
   - an exact duplicate (hash of normalised text) of a current fact is skipped and that fact
     strengthened; a near duplicate (cosine >= facts.near_duplicate) likewise, unless the pair
     looks like a conflict (negation, different numbers): then the model's decision stands;
   - ADD adds; UPDATE closes its target (valid_to, end_reason "updated", superseded_by) and
     adds; DELETE closes its target (end_reason "deleted"); NOOP strengthens its target. A
     target that is not a current fact of this scope is ignored (logged): an UPDATE becomes
     an ADD, a DELETE or NOOP does nothing.
apply (inside the ledger transaction): re-checks that every target is still current and that
no equal fact appeared meanwhile, writes, and bumps the "facts" view and the scope revision.

Neighbour search is brute force (numpy, one (lines x d) @ (d x n) product over the scope's
current facts, read from the database each batch): right up to about 10^4-10^5 current facts
per scope (15-150 MB of float32 at d = 384); the offline pass keeps scopes at facts.keep_top
(500 by default), far below that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np
import structlog
from stores.engine import Session, reading

from consolidator.core.app import App
from consolidator.model.embeddings import Embedder, HashingEmbedder, cosine_top_k, fill_missing_rows
from consolidator.facts.tables import TablePlacer
from consolidator.domain import is_negated, is_person, is_person_line
from consolidator.model.base import Model
from consolidator.model.schemas import FactCandidate, FactExtractionRequest, KnownFact
from consolidator.pipeline.steps import BatchWork, MessageView
from stores.schema.memory import Fact
from stores.facts import FactMatrix, close_fact, current_by_hash, current_by_ids, current_matrix, new_fact_id, norm_hash, strengthen, to_bytes, touch
from stores.view_versions import bump

if TYPE_CHECKING:
    from consolidator.pipeline.batch_extraction import SharedExtraction

log = structlog.get_logger()

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
NEIGHBOUR_LINES_CAP = 4  # at most 4 x facts.neighbours facts are shown per batch


def people_of(work: BatchWork) -> list[MessageView]:
    """The batch's lines said by people."""
    return [m for m in work.messages if is_person_line(m)]


def looks_conflicting(a: str, b: str) -> bool:
    """Two close texts that may still say different things: one negated, or other numbers."""
    if is_negated(a) != is_negated(b):
        return True
    return _NUMBER.findall(a) != _NUMBER.findall(b)


# --- the plan prepare hands to apply -------------------------------------------------------------


@dataclass
class AddFact:
    id: str
    text: str
    norm_hash: str
    embedding: bytes
    importance: int
    topic: str
    pinned: bool
    at: datetime
    sources: list[str]
    roles: list[str]
    closes: str | None = None  # UPDATE: the fact this one supersedes


@dataclass(frozen=True)
class CloseFact:
    target: str
    at: datetime


@dataclass(frozen=True)
class StrengthenFact:
    target: str
    at: datetime
    sources: tuple[str, ...]
    roles: tuple[str, ...]


@dataclass(frozen=True)
class FactsContext:
    """What the model is shown (neighbours) and what its candidates are checked against (known)."""

    known: FactMatrix
    neighbours: list[KnownFact] = field(default_factory=list)


@dataclass
class FactPlan:
    actions: list = field(default_factory=list)
    neighbours: list[KnownFact] = field(default_factory=list)
    refused: int = 0
    candidates: int = 0


class FactsStep:
    name = "facts"

    def __init__(self, app: App, model: Model, embedder: Embedder | None = None) -> None:
        self.app = app
        self.model = model
        self.embedder = embedder or HashingEmbedder()
        self.settings = app.settings.facts
        self.tables = TablePlacer(self.embedder, self.settings)
        self.shared: SharedExtraction | None = None  # set by batch_extraction.share_one_call

    # --- prepare -----------------------------------------------------------------------------

    def prepare(self, work: BatchWork) -> FactPlan:
        plan = FactPlan()
        if not people_of(work):
            log.info("facts.no_people", scope=work.scope, batch=work.number)
            return plan
        if self.shared is not None:
            shared = self.shared.reply_for(work, self.name)
            context, candidates = shared.facts, shared.reply.facts
        else:
            context = self.context_for(work)
            request = FactExtractionRequest(**work.asked(self.app.settings.timezone_of(work.scope).key),
                                            neighbours=context.neighbours)
            candidates = self.model.extract_facts(request).facts
        plan.neighbours = context.neighbours
        plan.candidates = len(candidates)
        self._decide(work, context.known, candidates, plan)
        return plan

    def context_for(self, work: BatchWork) -> FactsContext:
        """The scope's current facts (one read) and the neighbours of the batch's people's lines."""
        people = people_of(work)
        if not people:
            return FactsContext(known=FactMatrix([], [], [], np.zeros((0, self.embedder.dim), np.float32)))
        with reading(self.app.engine) as session:
            known = current_matrix(session, work.scope, self.embedder.dim)
        fill_missing_rows(known.matrix, known.texts, self.embedder)  # rows of another embedder
        return FactsContext(known=known, neighbours=self._neighbours(people, known))

    def _neighbours(self, people: list[MessageView], known: FactMatrix) -> list[KnownFact]:
        """Each person's line's `neighbours` nearest facts, taken round-robin (every line's best
        first, then every line's second...) up to NEIGHBOUR_LINES_CAP x `neighbours` in all."""
        k = self.settings.neighbours
        if not len(known) or k == 0:
            return []
        lines = self.embedder.embed([m.text for m in people])
        per_line = [cosine_top_k(row, known.matrix, k) for row in lines]
        best: dict[int, float] = {}
        for idx, sims in per_line:
            for i, s in zip(idx.tolist(), sims.tolist()):
                best[i] = max(best.get(i, -1.0), s)
        picked: dict[int, None] = {}  # an insertion-ordered set
        for rank in range(k):
            for idx, _ in per_line:
                if rank < len(idx) and len(picked) < k * NEIGHBOUR_LINES_CAP:
                    picked.setdefault(int(idx[rank]))
        chosen = list(picked)
        chosen.sort(key=lambda i: (-best[i], i))
        return [KnownFact(id=known.ids[i], text=known.texts[i], similarity=round(best[i], 4)) for i in chosen]

    def _decide(self, work: BatchWork, known: FactMatrix, candidates: list[FactCandidate], plan: FactPlan) -> None:
        by_id = {m.id: m for m in work.messages}
        current = {fid: i for i, fid in enumerate(known.ids)}
        hash_of = {h: i for i, h in enumerate(known.hashes)}
        closed: set[str] = set()  # targets this batch already closes
        added: dict[str, AddFact] = {}  # by norm hash
        if not candidates:
            return
        vectors = self.embedder.embed([c.text for c in candidates])
        sims = vectors @ known.matrix.T if len(known) else np.zeros((len(candidates), 0), dtype=np.float32)
        for n, cand in enumerate(candidates):
            text = " ".join(cand.text.split())
            sources = [s for s in dict.fromkeys(cand.source_ids) if s in by_id]
            if not text or not sources or not any(is_person(by_id[s].role, by_id[s].speaker) for s in sources):
                why = "empty" if not text else "no_known_sources" if not sources else "not_from_people"
                log.info("facts.refused", scope=work.scope, batch=work.number, reason=why,
                         sources=list(cand.source_ids), roles=sorted({by_id[s].role for s in sources}))
                plan.refused += 1
                continue
            at = max(by_id[s].at for s in sources)
            roles = list(dict.fromkeys(by_id[s].role for s in sources))
            h = norm_hash(text)
            target = cand.target_id
            if target is not None and (target not in current or target in closed):
                log.info("facts.target_ignored", scope=work.scope, batch=work.number, op=cand.op, target=target)
                target = None
            # exact duplicates: of a current fact, or of a fact this batch adds
            if h in hash_of and known.ids[hash_of[h]] not in closed:
                plan.actions.append(StrengthenFact(known.ids[hash_of[h]], at, tuple(sources), tuple(roles)))
                continue
            if h in added:
                twin = added[h]
                twin.sources += [s for s in sources if s not in twin.sources]
                twin.roles += [r for r in roles if r not in twin.roles]
                continue
            # near duplicates: skip and strengthen, unless the pair looks like a conflict
            near = self._near(sims[n], known, closed)
            if near is not None:
                if not looks_conflicting(text, known.texts[near]):
                    plan.actions.append(StrengthenFact(known.ids[near], at, tuple(sources), tuple(roles)))
                    continue
                log.info("facts.conflict_to_model", scope=work.scope, batch=work.number,
                         fact=known.ids[near], op=cand.op, target=target)
            if cand.op == "NOOP":
                if target is not None:
                    plan.actions.append(StrengthenFact(target, at, tuple(sources), tuple(roles)))
                continue
            if cand.op == "DELETE":
                if target is not None:
                    plan.actions.append(CloseFact(target, at))
                    closed.add(target)
                continue
            new = AddFact(
                id=new_fact_id(), text=text, norm_hash=h, embedding=to_bytes(vectors[n]),
                importance=cand.importance, topic=cand.topic or "general", pinned=cand.critical, at=at,
                sources=sources, roles=roles, closes=target if cand.op == "UPDATE" else None,
            )
            if new.closes:
                closed.add(new.closes)
            added[h] = new
            plan.actions.append(new)

    def _near(self, row: np.ndarray, known: FactMatrix, closed: set[str]) -> int | None:
        if not len(known):
            return None
        order = np.argsort(-row, kind="stable")
        for i in order[:8].tolist():
            if row[i] < self.settings.near_duplicate:
                return None
            if known.ids[i] not in closed:
                return i
        return None

    # --- apply ---------------------------------------------------------------------------------

    def apply(self, session: Session, work: BatchWork, plan: FactPlan) -> None:
        if not plan.actions:
            if plan.candidates:
                log.info("facts.batch", scope=work.scope, batch=work.number, candidates=plan.candidates,
                         refused=plan.refused, added=0, closed=0, strengthened=0)
            return
        cap = self.settings.strength_cap
        targets = {a.target for a in plan.actions if isinstance(a, (CloseFact, StrengthenFact))}
        targets |= {a.closes for a in plan.actions if isinstance(a, AddFact) and a.closes}
        live = current_by_ids(session, work.scope, targets)
        equal = current_by_hash(session, work.scope, {a.norm_hash for a in plan.actions if isinstance(a, AddFact)})
        counts = {"added": 0, "updated": 0, "deleted": 0, "strengthened": 0, "gone": 0}
        importance, added = 0, []
        for action in plan.actions:
            if isinstance(action, StrengthenFact):
                fact = live.get(action.target)
                if fact is None:
                    counts["gone"] += 1
                    continue
                strengthen(fact, action.at, cap, work.now, list(action.sources), list(action.roles))
                counts["strengthened"] += 1
            elif isinstance(action, CloseFact):
                fact = live.pop(action.target, None)
                if fact is None:
                    counts["gone"] += 1
                    continue
                close_fact(fact, max(action.at, fact.valid_from), "deleted", work.now)
                counts["deleted"] += 1
            else:
                twin = equal.get(action.norm_hash)
                if twin is not None and twin.current:  # appeared since prepare (e.g. restored)
                    strengthen(twin, action.at, cap, work.now, action.sources, action.roles)
                    counts["strengthened"] += 1
                    continue
                if action.closes:
                    old = live.pop(action.closes, None)
                    if old is None:
                        counts["gone"] += 1
                        log.info("facts.target_gone", scope=work.scope, batch=work.number, target=action.closes)
                    else:
                        close_fact(old, max(action.at, old.valid_from), "updated", work.now, superseded_by=action.id)
                        counts["updated"] += 1
                added.append(_new_row(work.scope, action, work.now))
                session.add(added[-1])
                importance += action.importance
                counts["added"] += 1
        self.tables.place(session, work.scope, added, work.now)  # each new fact into its topic table
        if counts["added"] or counts["updated"] or counts["deleted"] or counts["strengthened"]:
            touch(session, work.scope, added_importance=importance)
            bump(session, work.scope, "facts")
        log.info("facts.batch", scope=work.scope, batch=work.number, candidates=plan.candidates,
                 refused=plan.refused, closed=counts["updated"] + counts["deleted"], **counts)



def _new_row(scope: str, a: AddFact, now: datetime) -> Fact:
    return Fact(
        id=a.id, scope=scope, text=a.text, norm_hash=a.norm_hash, embedding=a.embedding,
        importance=max(1, min(10, a.importance)), strength=1.0, last_used=now, created_at=now, updated_at=now,
        valid_from=a.at, sources=list(a.sources), source_roles=list(a.roles), topic=a.topic[:64], pinned=a.pinned,
    )
