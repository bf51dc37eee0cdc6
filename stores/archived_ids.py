"""The hashes of archived message ids: what keeps imports idempotent once messages left the hot store.

A 64-bit hash per archived message (about 17 bytes on SQLite, against the hundreds a hot message row
takes with its indexes): an append whose id hashes to one of them is a duplicate. A false hit
needs a 64-bit collision among a scope's ids, which a few million messages make vanishingly rare.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlmodel import Session

from stores.schema.archive import ArchivedId

_CHUNK = 5_000


def id_hash(message_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(message_id.encode(), digest_size=8).digest(), "big", signed=True)


def archived_among(connection: Connection | Session, keys: Iterable[str]) -> set[str]:
    """The keys whose messages were archived (by hash: a 64-bit collision is the only false hit)."""
    by_hash = {id_hash(k): k for k in keys}
    found: set[str] = set()
    hashes = list(by_hash)
    for start in range(0, len(hashes), _CHUNK):
        chunk = hashes[start : start + _CHUNK]
        found.update(by_hash[h] for h in connection.execute(select(ArchivedId.hash).where(ArchivedId.hash.in_(chunk))).scalars())
    return found
