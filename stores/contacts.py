"""Contacts: the people a scope's conversations involve, with details that keep their history.

A contact has a name, aliases, a biography (replaced when the model gives a fresh one) and a
running summary (each batch's summary appended, the oldest text dropped past a bound).
A detail (key -> value, e.g. job -> nurse) is a row with a validity interval: a changed
value closes the current row (`valid_to`, `superseded_by`) and adds a new one, and a cleared
value only closes it, so every former value stays answerable.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from stores.schema.memory import Contact, ContactDetail

SUMMARY_CHARS = 1500
SOURCES_KEPT = 200


def contacts_of(session: Session, scope: str) -> list[Contact]:
    """Every contact of a scope, most recently updated first."""
    stmt = select(Contact).where(Contact.scope == scope).order_by(Contact.updated_at.desc(), Contact.id.desc())
    return list(session.execute(stmt).scalars())


def current_details(session: Session, scope: str, contact_ids: list[int] | None = None) -> dict[int, dict[str, str]]:
    """contact id -> {key: current value} (open rows only), for a scope's contacts."""
    stmt = select(ContactDetail).where(ContactDetail.scope == scope, ContactDetail.valid_to.is_(None))
    if contact_ids is not None:
        if not contact_ids:
            return {}
        stmt = stmt.where(ContactDetail.contact_id.in_(contact_ids))
    out: dict[int, dict[str, str]] = {}
    for row in session.execute(stmt.order_by(ContactDetail.id)).scalars():
        out.setdefault(row.contact_id, {})[row.key] = row.value
    return out


def detail_history(session: Session, contact_id: int) -> list[ContactDetail]:
    """Every detail row of a contact, current and former, by key then time."""
    stmt = (
        select(ContactDetail)
        .where(ContactDetail.contact_id == contact_id)
        .order_by(ContactDetail.key, ContactDetail.valid_from, ContactDetail.id)
    )
    return list(session.execute(stmt).scalars())


def set_detail(
    session: Session, contact: Contact, key: str, value: str, at: datetime, source_ids: list[str]
) -> bool:
    """Make `value` the current value of `key` ("" clears it); False when nothing changed."""
    stmt = select(ContactDetail).where(
        ContactDetail.contact_id == contact.id, ContactDetail.key == key, ContactDetail.valid_to.is_(None)
    )
    open_rows = list(session.execute(stmt).scalars())
    value = value.strip()
    if any(row.value == value for row in open_rows) or (not value and not open_rows):
        return False
    new: ContactDetail | None = None
    if value:
        new = ContactDetail(
            contact_id=contact.id, scope=contact.scope, key=key, value=value, valid_from=at, source_ids=list(source_ids)
        )
        session.add(new)
        session.flush()
    for row in open_rows:
        row.valid_to = max(at, row.valid_from)
        row.superseded_by = new.id if new is not None else None
    return True


def append_summary(running: str, addition: str, limit: int = SUMMARY_CHARS) -> str:
    """The running summary with `addition` appended, keeping the newest `limit` characters
    (cut at a word boundary)."""
    addition = " ".join(addition.split())
    if not addition:
        return running
    text = f"{running}\n{addition}" if running else addition
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    if not text[-limit - 1].isspace():
        cut = min((i for i in (tail.find(" "), tail.find("\n")) if i >= 0), default=-1)
        tail = tail[cut + 1:] if cut >= 0 else tail
    return tail.lstrip()


def merge_sources(old: list[str], new: list[str], keep: int = SOURCES_KEPT) -> list[str]:
    merged = list(dict.fromkeys([*old, *new]))
    return merged[-keep:]
