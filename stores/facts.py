"""Facts: short statements about people, with validity intervals, never destroyed.

A fact row is closed, never deleted: UPDATE and DELETE decisions set `valid_to`,
`end_reason` and (for an update) `superseded_by`; the offline pass tombstones merged-away
and dropped facts (`tombstoned_at`), which `restore` can undo within a grace period. A
fact is *current* when `valid_to` is NULL.

Every change to a scope's facts goes through this module and raises the scope's
`FactState.revision` in the same transaction: the offline pass remembers the revision of
the snapshot it worked on and commits only if it is unchanged (its fingerprint).

`FactUse` is a queue: `mark_used` appends one row per fact (cheap, no read); the daemon
applies and deletes the rows (`apply_uses`).

Embeddings are float32 bytes (LargeBinary), lists are JSON: nothing here is SQLite-specific.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Sequence

import numpy as np
from sqlalchemy import delete, func, or_, select
from sqlmodel import Session

from stores.work_queue import mark_due
from stores.schema.memory import REFLECTION, Fact, FactUse, FactState

END_REASONS = ("updated", "deleted", "merged", "dropped")
TOMBSTONE_REASONS = ("merged", "dropped")


class FactNotFound(LookupError):
    """No such fact in this scope (or not in the state the operation needs)."""

    def __init__(self, scope: str, fact_id: str, why: str = "no such fact") -> None:
        super().__init__(f"{fact_id}: {why} in scope {scope}")
        self.scope, self.fact_id = scope, fact_id


class RestoreExpired(LookupError):
    """A tombstone older than the restore grace period."""

    def __init__(self, scope: str, fact_id: str, tombstoned_at: datetime) -> None:
        super().__init__(f"{fact_id}: tombstoned at {tombstoned_at.isoformat()}, past the restore grace (scope {scope})")
        self.scope, self.fact_id = scope, fact_id


# --- values ---------------------------------------------------------------------------------


def new_fact_id() -> str:
    return "f_" + secrets.token_hex(8)


_PUNCT = re.compile(r"[^\w\s]+")
_SPACE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Case, accents' composition, punctuation and spacing folded: the exact-duplicate key."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", _PUNCT.sub(" ", folded)).strip()


def norm_hash(text: str) -> str:
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()[:32]


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


# --- state ----------------------------------------------------------------------------------


def state_of(session: Session, scope: str, lock: bool = False) -> FactState:
    """The scope's FactState row (created if missing); `lock` takes it FOR UPDATE where supported."""
    stmt = select(FactState).where(FactState.scope == scope)
    if lock:
        stmt = stmt.with_for_update()
    row = session.execute(stmt).scalar_one_or_none()
    if row is None:
        row = FactState(scope=scope)
        session.add(row)
        session.flush()
    return row


def touch(session: Session, scope: str, added_importance: int = 0) -> FactState:
    """Record a change to the scope's facts (call once per transaction that changes them)."""
    state = state_of(session, scope, lock=True)
    state.revision += 1
    state.importance_since_sleep += added_importance
    return state


def revision(session: Session, scope: str) -> int:
    """The scope's fact revision (bumped by every change): the offline pass commits only if unchanged."""
    value = session.execute(select(FactState.revision).where(FactState.scope == scope)).scalar_one_or_none()
    return value or 0


def unslept_states(session: Session, scopes: Sequence[str] | None = None) -> list[FactState]:
    """The scopes (of these; None: all) whose facts changed since their last offline pass."""
    stmt = select(FactState).where(FactState.revision != FactState.slept_revision)
    if scopes is not None:
        stmt = stmt.where(FactState.scope.in_(list(scopes)))
    return list(session.execute(stmt).scalars())


def facts_by_id(session: Session, scope: str, ids: set[str], chunk: int = 500) -> dict[str, Fact]:
    """The scope's fact rows with these ids (in chunks of bound parameters)."""
    ordered = sorted(ids)
    out: dict[str, Fact] = {}
    for start in range(0, len(ordered), chunk):
        part = ordered[start:start + chunk]
        out.update({f.id: f for f in session.execute(select(Fact).where(Fact.scope == scope, Fact.id.in_(part))).scalars()})
    return out


# --- reads ----------------------------------------------------------------------------------


# The order of the facts the write path and the offline pass compute over: as written, then by
# content within one transaction (its facts share `created_at`), never by their random ids. The
# rows' order reaches the numbers: a matrix product's last bits follow a row's position, and a
# batch's neighbours cut at a near tie changed from run to run with the ids.
_WRITTEN_ORDER = (Fact.created_at, Fact.norm_hash, Fact.id)


def _said():
    """Facts said in the log, not reflections: what the write path compares a batch with."""
    return or_(Fact.kind.is_(None), Fact.kind != REFLECTION)


def current_facts(session: Session, scope: str) -> list[Fact]:
    stmt = select(Fact).where(Fact.scope == scope, Fact.valid_to.is_(None)).order_by(*_WRITTEN_ORDER)
    return list(session.execute(stmt).scalars())


def current_texts(session: Session, scope: str) -> list[str]:
    """The texts of the scope's current facts (no rows loaded): evidence of which words are names."""
    return list(session.execute(select(Fact.text).where(Fact.scope == scope, Fact.valid_to.is_(None))).scalars())


def all_facts(session: Session, scope: str) -> list[Fact]:
    return list(session.execute(select(Fact).where(Fact.scope == scope).order_by(Fact.created_at, Fact.id)).scalars())


def get_fact(session: Session, scope: str, fact_id: str) -> Fact:
    fact = session.get(Fact, fact_id)
    if fact is None or fact.scope != scope:
        raise FactNotFound(scope, fact_id)
    return fact


def current_by_ids(session: Session, scope: str, ids: set[str]) -> dict[str, Fact]:
    if not ids:
        return {}
    stmt = select(Fact).where(Fact.scope == scope, Fact.valid_to.is_(None), _said(), Fact.id.in_(sorted(ids)))
    return {f.id: f for f in session.execute(stmt).scalars()}


def current_by_hash(session: Session, scope: str, hashes: set[str]) -> dict[str, Fact]:
    if not hashes:
        return {}
    stmt = (
        select(Fact)
        .where(Fact.scope == scope, Fact.valid_to.is_(None), _said(), Fact.norm_hash.in_(sorted(hashes)))
        .order_by(Fact.created_at, Fact.id)
    )
    out: dict[str, Fact] = {}
    for fact in session.execute(stmt).scalars():
        out.setdefault(fact.norm_hash, fact)
    return out


def history(session: Session, scope: str, fact_id: str) -> list[Fact]:
    """The supersession chain through `fact_id`, oldest first: what it replaced and what replaced it.

    Follows `superseded_by` forwards and every fact pointing at a member backwards (a merge
    points several facts at one), so "where did she live before?" finds London from Paris.
    """
    get_fact(session, scope, fact_id)
    seen: dict[str, Fact] = {}
    frontier = [fact_id]
    while frontier:
        ids = [i for i in frontier if i not in seen]
        if not ids:
            break
        rows = list(session.execute(select(Fact).where(Fact.scope == scope, Fact.id.in_(ids))).scalars())
        earlier = list(
            session.execute(select(Fact).where(Fact.scope == scope, Fact.superseded_by.in_(ids))).scalars()
        )
        frontier = []
        for row in rows + earlier:
            if row.id not in seen:
                seen[row.id] = row
                frontier.append(row.id)
                if row.superseded_by:
                    frontier.append(row.superseded_by)
    return sorted(seen.values(), key=lambda f: (f.valid_from, f.created_at, f.id))


@dataclass(frozen=True)
class FactMatrix:
    """A scope's current facts as parallel lists and one unit-row float32 matrix."""

    ids: list[str]
    texts: list[str]
    hashes: list[str]
    matrix: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


def current_matrix(session: Session, scope: str, dim: int) -> FactMatrix:
    """Embeddings of the scope's current facts, reflections aside (only this scope's rows are read)."""
    stmt = (
        select(Fact.id, Fact.text, Fact.norm_hash, Fact.embedding)
        .where(Fact.scope == scope, Fact.valid_to.is_(None), _said())
        .order_by(*_WRITTEN_ORDER)
    )
    rows = session.execute(stmt).all()
    matrix = np.zeros((len(rows), dim), dtype=np.float32)
    for i, row in enumerate(rows):
        vec = np.frombuffer(row[3], dtype=np.float32)
        if vec.shape[0] == dim:
            matrix[i] = vec
    return FactMatrix([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], matrix)


# --- writes (each caller also calls `touch` once per transaction) ------------------------------


def close_fact(fact: Fact, at: datetime, reason: str, now: datetime, superseded_by: str | None = None,
               tombstone: bool = False) -> None:
    if reason not in END_REASONS:
        raise ValueError(f"unknown end reason {reason!r}")
    fact.valid_to = at
    fact.end_reason = reason
    fact.superseded_by = superseded_by
    fact.updated_at = now
    if tombstone:
        fact.tombstoned_at = now


def strengthen(fact: Fact, at: datetime, cap: float, now: datetime, sources: list[str] = (),
               roles: list[str] = ()) -> None:
    """One more use or repetition: strength + 1 (capped), last_used moves forward, sources grow."""
    fact.strength = min(cap, fact.strength + 1.0)
    if at > fact.last_used:
        fact.last_used = at
    extra = [s for s in sources if s not in fact.sources]
    if extra:
        fact.sources = [*fact.sources, *extra]
        fact.source_roles = [*fact.source_roles, *[r for r in roles if r not in fact.source_roles]]
    fact.updated_at = now


def set_pinned(session: Session, scope: str, fact_id: str, pinned: bool, now: datetime) -> Fact:
    fact = get_fact(session, scope, fact_id)
    if not fact.current:
        raise FactNotFound(scope, fact_id, f"not a current fact ({fact.end_reason})")
    if fact.pinned != pinned:
        fact.pinned = pinned
        fact.updated_at = now
        touch(session, scope)
    return fact


def restore(session: Session, scope: str, fact_id: str, now: datetime, grace: timedelta) -> Fact:
    """Make a merged-away or dropped fact current again, within `grace` of its tombstone."""
    fact = get_fact(session, scope, fact_id)
    if fact.tombstoned_at is None or fact.end_reason not in TOMBSTONE_REASONS:
        raise FactNotFound(scope, fact_id, "not a merged or dropped fact")
    if now - fact.tombstoned_at > grace:
        raise RestoreExpired(scope, fact_id, fact.tombstoned_at)
    fact.valid_to = None
    fact.end_reason = None
    fact.superseded_by = None
    fact.tombstoned_at = None
    fact.updated_at = now
    touch(session, scope)
    return fact


def enqueue_uses(session: Session, scope: str, fact_ids: list[str], at: datetime) -> None:
    session.add_all([FactUse(scope=scope, fact_id=fid, at=at) for fid in fact_ids])
    mark_due(session, scope, at)  # the daemon applies them when it next works the scope


def scopes_with_uses(session: Session) -> list[str]:
    return list(session.execute(select(FactUse.scope).distinct().order_by(FactUse.scope)).scalars())


def apply_uses(session: Session, scope: str, cap: float, now: datetime, limit: int = 10_000) -> tuple[int, int]:
    """Apply queued uses of `scope` (oldest first) and delete them; returns (applied, ignored).

    A use of a merged-away fact counts for the fact it was merged into; a use of an unknown,
    closed or dropped fact is dropped from the queue.
    """
    uses = list(
        session.execute(select(FactUse).where(FactUse.scope == scope).order_by(FactUse.id).limit(limit)).scalars()
    )
    if not uses:
        return 0, 0
    facts = {f.id: f for f in session.execute(
        select(Fact).where(Fact.scope == scope, Fact.id.in_(sorted({u.fact_id for u in uses})))
    ).scalars()}
    applied = ignored = 0
    for use in uses:
        fact = facts.get(use.fact_id)
        hops = 0
        while fact is not None and fact.end_reason == "merged" and fact.superseded_by and hops < 8:
            fact = facts.get(fact.superseded_by) or session.get(Fact, fact.superseded_by)
            hops += 1
        if fact is None or fact.scope != scope or not fact.current:
            ignored += 1
            continue
        strengthen(fact, use.at, cap, now)
        applied += 1
    session.execute(delete(FactUse).where(FactUse.id.in_([u.id for u in uses])))
    if applied:
        touch(session, scope)
    return applied, ignored


def count_current(session: Session, scope: str) -> int:
    return session.execute(
        select(func.count()).select_from(Fact).where(Fact.scope == scope, Fact.valid_to.is_(None))
    ).scalar_one()
