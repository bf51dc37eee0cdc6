"""Summaries asked inside a batch's combined call, kept until the ladder writes their window.

Why: an interaction's count-ladder summary reads the same messages as the batch call that
extracts its facts, contacts and tasks; asking both in one call halves the calls in live use.
The batch step records each summary it asks for (`promise`, keyed by a hash of the exact
request the ladder will send) before the call, and its text after (`fulfil`), or drops the
promise if the call failed or did not answer it (`withdraw`). The ladder's model looks the
key up first (consolidator.ladders.interaction_summaries): a text is its answer, a promise
still open means "wait for the batch", no row means "call the model".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete

from stores.engine import Engine, reading, transaction
from stores.schema.model import PromisedSummary


@dataclass(frozen=True)
class Promise:
    created_at: datetime
    text: str | None


def promise(engine: Engine, items: list[tuple[str, str, str]], now: datetime) -> None:
    """Record (key, scope, ref) summaries as asked; one already known keeps its row (and text)."""
    with transaction(engine) as session:
        for key, scope, ref in items:
            if session.get(PromisedSummary, key) is None:
                session.add(PromisedSummary(key=key, scope=scope[:128], ref=ref[:256], created_at=now))


def fulfil(engine: Engine, texts: dict[str, str]) -> None:
    with transaction(engine) as session:
        for key, text in texts.items():
            row = session.get(PromisedSummary, key)
            if row is not None:
                row.text = text


def withdraw(engine: Engine, keys: list[str]) -> None:
    """Drop promises that will not be kept (their text never came): the ladder calls for them itself."""
    if not keys:
        return
    with transaction(engine) as session:
        session.execute(delete(PromisedSummary).where(PromisedSummary.key.in_(keys), PromisedSummary.text.is_(None)))


def lookup(engine: Engine, key: str) -> Promise | None:
    with reading(engine) as session:
        row = session.get(PromisedSummary, key)
        return None if row is None else Promise(row.created_at, row.text)
