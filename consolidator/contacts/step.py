"""The contacts step: who a batch involves or mentions, folded into the scope's contacts.

`prepare` shows the model the batch and the scope's known contacts that the batch is likely
about (named by name, alias or first name, or speaking in it; capped), so a large address
book never reaches the model whole and another scope's people never do. `apply` matches
each update to a stored contact:

- the same name (case-insensitive) wins;
- else the update's name is one of the contact's aliases, or the contact's name is one of
  the update's aliases, or both share a multi-word alias ("Ana Lopez");
- a shared first name alone never merges two people, and an update that matches several
  contacts equally well is skipped (logged) rather than merged into the wrong one.

An update must be grounded in what people said: among its source ids at least one line from
a person (user, or a named non-agent speaker), or, without usable ids, its name spoken in or
by such a line. Tool and action lines alone never create or change a contact.

When the three batch steps share one model call (consolidator.pipeline.batch_extraction), `prepare`
takes the contacts part of its reply; the known contacts shown are the same (`context_for`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import structlog
from stores.engine import Session, reading

from consolidator.core.app import App
from consolidator.model.base import Model
from consolidator.domain import is_person_line
from consolidator.model.schemas import ContactsReply, ContactsRequest, ContactUpdate, KnownContact
from consolidator.pipeline.steps import BatchWork, MessageView
from stores.schema.memory import Contact
from stores.contacts import append_summary, contacts_of, current_details, merge_sources, set_detail
from stores.bounds import fit
from stores.files.snapshots import publish_json
from stores.view_versions import bump

if TYPE_CHECKING:
    from consolidator.pipeline.batch_extraction import SharedExtraction

log = structlog.get_logger()

KNOWN_CAP = 30
SUMMARY_ENTRIES = 2  # a contact's running summary keeps its newest dated entries (one per batch)


def mentioned(form: str, text_lower: str) -> bool:
    """Whether `form` occurs in `text_lower` as whole words (case-insensitive)."""
    form = form.strip().lower()
    return bool(form) and re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text_lower) is not None


def _forms(contact: Contact) -> list[str]:
    forms = contact.names()
    first = contact.name.split()[0] if len(contact.name.split()) > 1 else ""
    return forms + ([first] if len(first) > 1 else [])


@dataclass(frozen=True)
class ContactsPrepared:
    reply: ContactsReply
    known: tuple[str, ...]  # names of the known contacts shown to the model


class ContactsStep:
    name = "contacts"

    def __init__(self, app: App, model: Model, known_cap: int = KNOWN_CAP):
        self.app = app
        self.model = model
        self.known_cap = known_cap
        self.shared: SharedExtraction | None = None  # set by batch_extraction.share_one_call

    # --- prepare: read and ask, write nothing ------------------------------------------------

    def prepare(self, work: BatchWork) -> ContactsPrepared:
        if self.shared is not None:
            shared = self.shared.reply_for(work, self.name)
            known, reply = shared.contacts, ContactsReply(contacts=shared.reply.contacts)
        else:
            known = self.context_for(work)
            request = ContactsRequest(**work.asked(self.app.settings.timezone_of(work.scope).key), known=known)
            reply = self.model.update_contacts(request)
        return ContactsPrepared(reply=reply, known=tuple(k.name for k in known))

    def context_for(self, work: BatchWork) -> list[KnownContact]:
        """The scope's contacts the batch names or that speak in it, best first, capped."""
        text = "\n".join(m.text for m in work.messages).lower()
        speakers = {(m.speaker or "").strip().lower() for m in work.messages if m.speaker}
        with reading(self.app.engine) as session:
            scored: list[tuple[int, Contact]] = []
            for contact in contacts_of(session, work.scope):
                hits = sum(1 for f in _forms(contact) if mentioned(f, text))
                hits += 3 * sum(1 for n in contact.names() if n.strip().lower() in speakers)
                if hits:
                    scored.append((hits, contact))
            scored.sort(key=lambda hc: (-hc[0], -hc[1].updated_at.timestamp(), hc[1].id))
            chosen = [c for _, c in scored[: self.known_cap]]
            details = current_details(session, work.scope, [c.id for c in chosen])
        return [
            KnownContact(name=c.name, aliases=list(c.aliases), details=details.get(c.id, {}), biography=c.biography)
            for c in chosen
        ]

    # --- apply: inside the ledger transaction --------------------------------------------------

    def apply(self, session: Session, work: BatchWork, prepared: ContactsPrepared) -> None:
        contacts = contacts_of(session, work.scope)
        zone = self.app.settings.timezone_of(work.scope)
        changed = False
        for update in prepared.reply.contacts:
            name = fit(Contact.name, " ".join(update.name.split()))  # as the store keeps it
            if not name:
                continue
            if not grounded(update, work.messages):
                log.info("contacts.ungrounded", scope=work.scope, batch=work.number, name=name)
                continue
            matches = match(update, contacts)
            if len(matches) > 1:
                log.warning("contacts.ambiguous", scope=work.scope, batch=work.number, name=name,
                            candidates=[c.name for c in matches])
                continue
            contact = matches[0] if matches else None
            if contact is None:
                contact = Contact(scope=work.scope, name=name, aliases=[], created_at=work.now, updated_at=work.now)
                session.add(contact)
                session.flush()
                contacts.append(contact)
            _fold(session, contact, update, work, zone)
            changed = True
        if changed:
            bump(session, work.scope, "contacts")


def _fold(session: Session, contact: Contact, update: ContactUpdate, work: BatchWork, zone: ZoneInfo) -> None:
    """Fold one update into `contact`; its summary line is dated with the day it was said where
    the scope lives (`zone`), not the UTC day."""
    at = said_at(update.source_ids, work)
    known = {n.lower() for n in contact.names()}
    aliases = list(contact.aliases)
    for alias in [update.name, *update.aliases]:  # a new form of the name becomes an alias
        alias = " ".join(alias.split())
        if alias and alias.lower() not in known:
            aliases.append(alias)
            known.add(alias.lower())
    contact.aliases = aliases
    for key, value in update.details.items():
        key = key.strip().lower()
        if key:
            set_detail(session, contact, key, value, at, update.source_ids)
    if update.biography:
        contact.biography = update.biography.strip()
    if update.summary.strip():
        day = at.astimezone(zone).date()
        running = append_summary(contact.summary, f"{day.isoformat()}: {update.summary.strip()}")
        contact.summary = newest_entries(running, SUMMARY_ENTRIES)
    contact.sources = merge_sources(list(contact.sources), [s for s in update.source_ids if s])
    contact.updated_at = work.now


def newest_entries(summary: str, keep: int) -> str:
    """The running summary's newest `keep` lines (one dated entry per batch).

    The summary is what a planner reads about a person at a glance: what happened lately.
    Older entries repeat what the facts store keeps in full, so they are dropped whole rather
    than cut to a character bound mid-entry."""
    lines = summary.split("\n")
    return "\n".join(lines[-keep:]) if keep > 0 else ""


def match(update: ContactUpdate, contacts: list[Contact]) -> list[Contact]:
    """The stored contacts an update is about (empty: a new person; several: ambiguous)."""
    name = " ".join(update.name.split()).lower()
    aliases = {" ".join(a.split()).lower() for a in update.aliases if a.strip()}
    best, found = 0, []
    for contact in contacts:
        stored_aliases = {a.lower() for a in contact.aliases}
        if contact.name.lower() == name:
            score = 3
        elif name in stored_aliases or contact.name.lower() in aliases:
            score = 2
        elif any(len(a.split()) > 1 for a in aliases & stored_aliases):
            score = 1
        else:
            continue
        if score > best:
            best, found = score, [contact]
        elif score == best:
            found.append(contact)
    if best == 3 and len(found) > 1:  # same name twice (should not happen): the newest one
        return [max(found, key=lambda c: (c.updated_at, c.id))]
    return found


def grounded(update: ContactUpdate, messages: tuple[MessageView, ...]) -> bool:
    """Whether a person's line (not a tool or action line) supports the update."""
    people = [m for m in messages if is_person_line(m)]
    batch_ids = {m.id for m in messages}
    cited = {s for s in update.source_ids if s in batch_ids}
    if cited:
        return any(m.id in cited for m in people)
    forms = [update.name, *update.aliases]
    for m in people:
        text = m.text.lower()
        speaker = (m.speaker or "").strip().lower()
        if any(f.strip() and (f.strip().lower() == speaker or mentioned(f, text)) for f in forms):
            return True
    return False


def said_at(source_ids: list[str], work: BatchWork) -> datetime:
    """When the newest cited line was said (else the batch's newest line, else `now`)."""
    ids = set(source_ids)
    times = [m.at for m in work.messages if m.id in ids] or [m.at for m in work.messages]
    return max(times) if times else work.now


# --- snapshot ---------------------------------------------------------------------------------


def contacts_payload(session: Session, scope: str, now: datetime) -> dict:
    contacts = contacts_of(session, scope)
    details = current_details(session, scope)
    return {
        "scope": scope,
        "generated_at": now.isoformat(),
        "contacts": [
            {
                "name": c.name,
                "aliases": list(c.aliases),
                "details": details.get(c.id, {}),
                "biography": c.biography,
                "summary": c.summary,
                "updated_at": c.updated_at.isoformat(),
            }
            for c in contacts
        ],
    }


def publish_contacts(app: App, scope: str, now: datetime) -> None:
    """Write <snapshots>/<scope>/contacts.json (the `contacts` view's publisher)."""
    with reading(app.engine) as session:
        payload = contacts_payload(session, scope, now)
    publish_json(app.settings.snapshot_dir, scope, "contacts.json", payload)
