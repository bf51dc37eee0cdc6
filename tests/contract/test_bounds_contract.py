"""Contract: values at the validation limits fit their columns, and model output longer than
its column is cut to fit, never refused, whatever the database (PostgreSQL refuses what is
longer than a VARCHAR(n); SQLite keeps it)."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from stores.bounds import fit
from stores.schema.memory import Contact, ContactDetail
from stores.contacts import current_details, set_detail
from stores.migrations import create_schema
from stores.engine import reading, transaction
from stores.erase import erase_scope
from stores.schema.log import MAX_ID_CHARS, MAX_SESSION_CHARS, MAX_SPEAKER_CHARS, Message
from stores.messages import NewMessage, append_messages
from stores.model_calls import DbRecorder
from stores.schema.model import ModelCall
from tests.support.calls import call
from stores.schema.log import ScopeHead
from stores.scopes import MAX_SCOPE_CHARS, validate_scope

T0 = datetime(2025, 7, 1, 12, 0, tzinfo=timezone.utc)


def test_the_longest_valid_scope_id_speaker_and_session_are_stored_whole(engine) -> None:
    """A 128-character scope with a 128-character id (stored as scope:id) and 256-character speaker and session."""
    scope = validate_scope("s" * MAX_SCOPE_CHARS)
    message = NewMessage(scope=scope, at=T0, role="user", text="hello", speaker="p" * MAX_SPEAKER_CHARS,
                         session="q" * MAX_SESSION_CHARS, id="i" * MAX_ID_CHARS)
    first = append_messages(engine, [message], T0)
    again = append_messages(engine, [message], T0)
    assert (first.added, again.added, again.duplicates) == (1, 0, 1)
    with reading(engine) as session:
        stored = session.execute(select(Message)).scalar_one()
    assert stored.id == f"{scope}:{'i' * MAX_ID_CHARS}" and stored.seq == 1
    assert (stored.speaker, stored.session) == (message.speaker, message.session)


def test_a_forgotten_scope_numbers_from_one_again(engine) -> None:
    """Erasing a scope takes its seq counter with it: the next message is seq 1."""
    append_messages(engine, [NewMessage("s", T0, "user", f"m{i}", id=str(i)) for i in range(3)], T0)
    erase_scope(engine, "s")
    append_messages(engine, [NewMessage("s", T0, "user", "again", id="x")], T0)
    with reading(engine) as session:
        assert session.execute(select(Message.seq)).scalars().all() == [1]


def test_a_log_written_before_the_seq_counters_existed_keeps_its_numbering(engine) -> None:
    """A database without the counter table (written by an earlier version) opens, and the next append follows the old maximum."""
    append_messages(engine, [NewMessage("s", T0, "user", f"m{i}", id=str(i)) for i in range(3)], T0)
    ScopeHead.__table__.drop(engine)
    create_schema(engine)  # what opening the database does
    append_messages(engine, [NewMessage("s", T0, "user", "next", id="n"), NewMessage("t", T0, "user", "new", id="n")], T0)
    with reading(engine) as session:
        seqs = session.execute(select(Message.scope, Message.seq).order_by(Message.scope, Message.seq)).all()
    assert [tuple(row) for row in seqs] == [("s", 1), ("s", 2), ("s", 3), ("s", 4), ("t", 1)]


def test_a_contact_name_and_detail_key_longer_than_their_columns_are_cut(engine) -> None:
    """A 300-character name and a 100-character key are stored cut to 256 and 64; the full key finds the cut one."""
    name, key = "N" * 300, "k" * 100
    with transaction(engine) as session:
        contact = Contact(scope="s", name=name, created_at=T0, updated_at=T0)
        session.add(contact)
        session.flush()
        assert set_detail(session, contact, key, "nurse", T0, ["s:1"])
    with transaction(engine) as session:
        contact = session.execute(select(Contact)).scalar_one()
        assert contact.name == fit(Contact.name, name) == "N" * 256
        assert current_details(session, "s") == {contact.id: {"k" * 64: "nurse"}}
        assert not set_detail(session, contact, key, "nurse", T0, ["s:2"])  # same value under the full key: no change
        assert len(session.execute(select(ContactDetail)).scalars().all()) == 1


def test_a_model_call_with_a_long_model_name_and_ref_is_recorded_cut(engine) -> None:
    """The call ledger keeps a call whose model name and reference are longer than their columns."""
    DbRecorder(engine).record(call("summarize", T0, ref="r" * 400, model="m" * 200))
    with reading(engine) as session:
        row = session.execute(select(ModelCall)).scalar_one()
    assert (len(row.model), len(row.ref)) == (128, 256)


def test_every_scope_column_holds_the_longest_valid_scope() -> None:
    """Each table's `scope` column is at least as wide as validation allows a scope to be."""
    from stores.erase import all_tables

    narrow = [f"{table.name}.scope" for table in all_tables() if "scope" in table.c
              and (getattr(table.c.scope.type, "length", None) or 0) < MAX_SCOPE_CHARS]
    assert narrow == []
