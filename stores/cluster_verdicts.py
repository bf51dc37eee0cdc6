"""Clusters the model refused to merge, remembered so that the offline pass does not ask again.

Why: the offline pass re-clusters a scope's current facts on every pass, and a cluster the
model refused ("different numbers") comes back unchanged each time: on the LoCoMo development
subset 24 judge calls asked 4 distinct questions. A refusal is stored under a key of the
cluster's exact members (each fact's id and text) and the model that judged it; the pass skips
a cluster whose key is here. A changed text, a new member or another model is a new key, so
it is judged afresh. Only refusals are kept: a merge removes its members, so it never recurs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from stores.schema.memory import RefusedCluster


def cluster_key(model: str, members: Iterable[tuple[str, str]]) -> str:
    """The key of a cluster judged by `model`: its (fact id, text) members, in any order."""
    digest = hashlib.sha256(model.encode())
    for fact_id, text in sorted(members):
        digest.update(b"\0" + fact_id.encode() + b"\1" + text.encode())
    return digest.hexdigest()


def refused_keys(session: Session, scope: str) -> set[str]:
    return set(session.execute(select(RefusedCluster.key).where(RefusedCluster.scope == scope)).scalars())


def remember_refusals(session: Session, scope: str, keys: Iterable[str], now: datetime) -> None:
    """Record refusals (one already recorded is left as it is)."""
    known = refused_keys(session, scope)
    for key in dict.fromkeys(keys):
        if key not in known:
            session.add(RefusedCluster(scope=scope, key=key, decided_at=now))
