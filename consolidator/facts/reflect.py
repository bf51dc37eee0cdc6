"""Reflections: higher-level facts the offline pass writes over a subject's related facts.

Within each offline pass (facts/sleep.py), after merges and drops are decided, over the facts
that stay current (reflections aside):

1. group: each fact's subject is the name it opens with (a person or named thing: "Ana",
   "Max the dog" -> "Max"); a subject's facts are clustered against a centroid
   (sleep.centroid_clusters, facts.reflect_threshold) by the embedding of their text without the
   subject and the date, so two facts of one pastime said in different words can meet;
2. a group qualifies with at least facts.reflect_min_facts facts said in two sessions or more
   (the interactions of their source messages; a fact whose messages are archived counts by its day);
3. the current reflections are reconciled with the groups: one whose sources are mostly gone
   (fewer than half current, or fewer than two) is tombstoned; one whose sources changed (a
   source superseded, merged or dropped, or new facts joined its group, half as many as it rests
   on, so a growing group is rewritten a logarithmic number of times) is rewritten: the old
   row is closed (end_reason "updated", superseded_by the new one) and the model writes the new
   text; one whose sources and group are unchanged stays as it is. A group no reflection holds
   gets a new one when the model writes one (`reflect`: empty text is a refusal, remembered
   like a refused merge, so the same facts are not asked again);
4. the writes go into the pass's own transaction, committed only if the facts' revision is
   unchanged: a pass killed before its commit wrote nothing, one after it wrote everything once.

A reflection is a `fact` row with kind "reflection", `rests_on` its facts' ids and `sources` the
union of their messages; its importance is its sources' highest plus one (at most 10), its
embedding their centroid. The write path never sees reflections (stores.facts._said), the
offline pass neither merges nor drops them, and facts.json and the recall index leave out one whose
sources are not all current, so a reflection never outlives its evidence between a change and the next pass.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Mapping, Sequence

import numpy as np

from consolidator.model.base import Layer
from consolidator.model.schemas import KnownFact, ReflectRequest
from consolidator.facts.tables import specific_topic
from stores.cluster_verdicts import cluster_key
from stores.facts import close_fact, norm_hash, to_bytes
from stores.schema.memory import REFLECTION, Fact

_NAME = re.compile(r"^((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*){0,2})")
_NOT_NAMES = frozenset("the a an it this that these those they he she i we you there here some my our his her "
                       "their its one no every each all".split())
_DATE = re.compile(r"\s*\([^)]*\d{4}[^)]*\)")
_QUOTE = re.compile(r"^(?:'s\s+)?(?:said|says|wrote)\s*:", re.I)  # "Ana said: ..." is her words, not about her
MAX_IMPORTANCE = 10


def subject_of(text: str) -> str | None:
    """The person or named thing a fact opens with ("Ana's kids ..." -> "Ana"), else None."""
    match = _NAME.match(text.strip())
    if not match:
        return None
    words = match.group(1).split()
    if words[0].lower() in _NOT_NAMES:
        return None
    name = " ".join(words)
    return name[:-2] if name.endswith("'s") else name


def body_of(text: str, subject: str) -> str:
    """What a fact says about its subject: the text without the subject's name and the date."""
    body = _DATE.sub("", text)
    return body[len(subject):].strip() if body.startswith(subject) else body


@dataclass(frozen=True)
class Group:
    subject: str
    ids: tuple[str, ...]  # in the facts' order


@dataclass
class ReflectionWrite:
    subject: str
    text: str
    rests_on: list[str]
    replaces: str | None = None  # the reflection this one rewrites


@dataclass
class ReflectionPlan:
    writes: list[ReflectionWrite] = field(default_factory=list)
    retire: list[str] = field(default_factory=list)  # reflections tombstoned
    kept: int = 0
    refusals: list[str] = field(default_factory=list)  # keys of groups the model wrote nothing for
    asked: int = 0


def can_reflect(model: object) -> bool:
    """Whether the model (through its layers) has the optional `reflect` operation."""
    while isinstance(model, Layer):
        model = model.inner
    return callable(getattr(model, "reflect", None))


def qualifying_groups(facts: list[Fact], bodies: np.ndarray, sessions: dict[str, frozenset[str]],
                      min_facts: int, threshold: float,
                      clusters: Callable[[np.ndarray, np.ndarray, np.ndarray, float], list[list[int]]]) -> list[Group]:
    """The groups of facts that qualify for a reflection (module docstring, steps 1-2): pure."""
    by_subject: dict[str, list[int]] = {}
    # said order, then text: the same groups whatever the facts' random ids
    for i in sorted(range(len(facts)), key=lambda i: (facts[i].valid_from, facts[i].text)):
        fact = facts[i]
        subject = subject_of(fact.text)
        if subject is not None and not _QUOTE.match(body_of(fact.text, subject)):
            by_subject.setdefault(subject, []).append(i)
    groups: list[Group] = []
    for subject in sorted(by_subject):
        rows = by_subject[subject]
        if len(rows) < min_facts:
            continue
        vectors = bodies[rows]
        order = np.arange(len(rows))
        for members in clusters(vectors, np.ones(len(rows)), order, threshold):
            ids = [facts[rows[j]].id for j in sorted(members)]  # rows are in said order
            said_in = frozenset().union(*(sessions.get(i, frozenset()) for i in ids))
            if len(ids) >= min_facts and len(said_in) >= 2:
                groups.append(Group(subject, tuple(ids)))
    return groups


def plan(scope: str, groups: list[Group], reflections: list[Fact], current: dict[str, Fact], model, model_name: str,
         max_facts: int, refused_before: set[str]) -> ReflectionPlan:
    """Reconcile the current reflections with the groups and ask the model where needed (step 3)."""
    out = ReflectionPlan()
    claimed: set[int] = set()
    for reflection in sorted(reflections, key=lambda r: (r.valid_from, r.text)):  # not by random id
        sources = list(dict.fromkeys(reflection.rests_on or []))
        alive = [i for i in sources if i in current]
        if len(alive) < 2 or 2 * len(alive) < len(sources):
            out.retire.append(reflection.id)
            continue
        best, overlap = None, 0
        for n, group in enumerate(groups):
            shared = len(set(group.ids) & set(alive))
            if n not in claimed and shared > overlap:
                best, overlap = n, shared
        if best is not None:
            claimed.add(best)
        target = groups[best] if best is not None else None
        joined = len(set(target.ids) - set(sources)) if target is not None else 0
        unchanged = len(alive) == len(sources) and 2 * joined < len(sources)
        if unchanged:
            out.kept += 1
            continue
        if target is None:
            target = Group(subject_of(reflection.text) or "", tuple(alive))
        write = _ask(scope, target, current, model, model_name, max_facts, out, refused_before=set())
        if write is None:
            out.retire.append(reflection.id)
        else:
            write.replaces = reflection.id
            out.writes.append(write)
    for n, group in enumerate(groups):
        if n not in claimed:
            write = _ask(scope, group, current, model, model_name, max_facts, out, refused_before)
            if write is not None:
                out.writes.append(write)
    return out


def shared_topic(facts: list[Fact]) -> str:
    """The specific topic (tables.specific_topic: one line, not generic; compared and given in lower
    case) at least half of the facts were given, the commonest (then the first alphabetically); else ''."""
    counts = Counter(topic.casefold() for f in facts if (topic := specific_topic(f.topic)))
    if not counts:
        return ""
    topic, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return topic if 2 * n >= len(facts) else ""


def _ask(scope: str, group: Group, current: dict[str, Fact], model, model_name: str, max_facts: int,
         out: ReflectionPlan, refused_before: set[str]) -> ReflectionWrite | None:
    facts = [current[i] for i in group.ids]
    key = cluster_key(model_name, [("reflect", group.subject), *((f.id, f.text) for f in facts)])
    if key in refused_before:
        return None
    out.asked += 1
    reply = model.reflect(ReflectRequest(scope=scope, subject=group.subject, max_items=max_facts,
                                         ref=f"reflect:{facts[0].id}", topic=shared_topic(facts),
                                         facts=[KnownFact(id=f.id, text=f.text) for f in facts]))
    rests_on = [i for i in dict.fromkeys(reply.rests_on) if i in set(group.ids)]
    text = " ".join(reply.text.split())
    if not text or len(rests_on) < 2:
        out.refusals.append(key)
        return None
    return ReflectionWrite(group.subject, text, rests_on)


def write(session, scope: str, reflection_plan: ReflectionPlan, rows: dict[str, Fact], current: dict[str, Fact],
          now: datetime, new_id: Callable[[], str]) -> list[Fact]:
    """Apply the plan in the caller's transaction (`rows`: the reflections it names, by id); the
    reflections written."""
    written = []
    for rid in reflection_plan.retire:
        close_fact(rows[rid], now, "deleted", now, tombstone=True)
    for w in reflection_plan.writes:
        sources = [current[i] for i in w.rests_on]
        dim = Counter(f.vector().shape[0] for f in sources).most_common(1)[0][0]
        centre = np.sum([_unit(f.vector()) for f in sources if f.vector().shape[0] == dim], axis=0)
        centre = centre / max(float(np.linalg.norm(centre)), 1e-12)
        row = Fact(
            id=new_id(), scope=scope, text=w.text, norm_hash=norm_hash(w.text), embedding=to_bytes(centre),
            importance=min(MAX_IMPORTANCE, max(f.importance for f in sources) + 1), strength=1.0,
            last_used=max(f.last_used for f in sources), created_at=now, updated_at=now,
            valid_from=max(f.valid_from for f in sources),
            sources=list(dict.fromkeys(s for f in sources for s in f.sources)),
            source_roles=list(dict.fromkeys(r for f in sources for r in f.source_roles)),
            topic=shared_topic(sources) or Counter(f.topic for f in sources).most_common(1)[0][0], pinned=False,
            kind=REFLECTION, rests_on=list(w.rests_on),
        )
        session.add(row)
        written.append(row)
        if w.replaces:
            close_fact(rows[w.replaces], now, "updated", now, superseded_by=row.id)
    return written


def riders(current: Sequence[Fact], plan: ReflectionPlan) -> list[list[str]]:
    """The sources of each reflection current after `plan` (the `current` ones it neither retires
    nor rewrites, and its writes): what the table plan counts in their sources' tables."""
    gone = set(plan.retire) | {w.replaces for w in plan.writes if w.replaces}
    return [list(r.rests_on or []) for r in current if r.id not in gone] + [list(w.rests_on) for w in plan.writes]


def home(reflections: Sequence[Fact], table_of: Mapping[str, str | None], now: datetime) -> None:
    """File each current reflection in the topic table most of its sources are in (`table_of`:
    fact id -> table after this pass's restructure; ties: the first source's)."""
    for row in reflections:
        tables = [t for t in (table_of.get(i) for i in row.rests_on or []) if t]
        if tables and row.fact_table != (table := Counter(tables).most_common(1)[0][0]):
            row.fact_table, row.updated_at = table, now  # the recall index files it anew


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 and math.isfinite(norm) else vec
