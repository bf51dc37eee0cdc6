"""Contract: the contacts and tasks stores (details with history, listings), whatever the database."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from stores.schema.memory import Contact
from stores.contacts import append_summary, contacts_of, current_details, detail_history, merge_sources, set_detail
from stores.engine import reading, transaction
from stores.schema.memory import CANCELLED, DONE, OPEN, Task
from stores.tasks import listed_tasks, normalise_title, open_tasks, task_payload

T0 = datetime(2025, 7, 1, 12, 0, tzinfo=timezone.utc)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


# --- contacts ------------------------------------------------------------------------------


def contact(name: str, scope: str = "s", updated: datetime = T0, **extra) -> Contact:
    return Contact(scope=scope, name=name, created_at=T0, updated_at=updated, **extra)


def add_contacts(engine, *rows: Contact) -> list[int]:
    with transaction(engine) as session:
        session.add_all(rows)
        session.flush()
        return [row.id for row in rows]


def test_contacts_of_a_scope_come_most_recently_updated_first(engine) -> None:
    """contacts_of lists one scope's contacts by updated_at descending; JSON lists round-trip."""
    add_contacts(engine, contact("Ann", updated=at(1), aliases=["Annie"], sources=["m1"]), contact("Bob", updated=at(3)),
                 contact("Cy", updated=at(2)), contact("Zed", scope="t", updated=at(9)))
    with reading(engine) as session:
        found = contacts_of(session, "s")
    assert [c.name for c in found] == ["Bob", "Cy", "Ann"]
    assert (found[2].names(), found[2].sources, found[2].updated_at) == (["Ann", "Annie"], ["m1"], at(1))


def test_a_changed_detail_closes_the_old_row_and_keeps_its_history(engine) -> None:
    """set_detail adds a new current row and closes the old one (valid_to, superseded_by); the same value changes nothing."""
    (ann,) = add_contacts(engine, contact("Ann"))
    with transaction(engine) as session:
        row = session.get(Contact, ann)
        assert set_detail(session, row, "job", "nurse", at(1), ["m1"])
        assert not set_detail(session, row, "job", " nurse ", at(2), ["m2"])  # same value, spaces folded
        assert set_detail(session, row, "city", "Leeds", at(1), ["m1"])
    with transaction(engine) as session:
        assert set_detail(session, session.get(Contact, ann), "job", "doctor", at(5), ["m5"])
    with reading(engine) as session:
        assert current_details(session, "s") == {ann: {"job": "doctor", "city": "Leeds"}}
        rows = detail_history(session, ann)
    assert [(r.key, r.value) for r in rows] == [("city", "Leeds"), ("job", "nurse"), ("job", "doctor")]
    nurse, doctor = rows[1], rows[2]
    assert (nurse.valid_from, nurse.valid_to, nurse.superseded_by) == (at(1), at(5), doctor.id)
    assert (doctor.valid_to, doctor.source_ids) == (None, ["m5"])


def test_clearing_a_detail_only_closes_it(engine) -> None:
    """An empty value closes the current row without a successor; clearing what is not set changes nothing."""
    (ann,) = add_contacts(engine, contact("Ann"))
    with transaction(engine) as session:
        row = session.get(Contact, ann)
        assert not set_detail(session, row, "pet", "", at(0), [])
        set_detail(session, row, "pet", "cat", at(1), ["m1"])
    with transaction(engine) as session:
        assert set_detail(session, session.get(Contact, ann), "pet", "  ", at(2), ["m2"])
    with reading(engine) as session:
        assert current_details(session, "s") == {}
        (closed,) = detail_history(session, ann)
    assert (closed.value, closed.valid_to, closed.superseded_by) == ("cat", at(2), None)


def test_a_change_dated_before_the_current_value_never_ends_it_before_it_began(engine) -> None:
    """A closing time earlier than the open row's valid_from is raised to valid_from (no negative interval)."""
    (ann,) = add_contacts(engine, contact("Ann"))
    with transaction(engine) as session:
        set_detail(session, session.get(Contact, ann), "job", "nurse", at(5), [])
    with transaction(engine) as session:
        set_detail(session, session.get(Contact, ann), "job", "doctor", at(1), [])
    with reading(engine) as session:
        old = next(r for r in detail_history(session, ann) if r.value == "nurse")
    assert old.valid_to == at(5)


def test_current_details_are_per_scope_and_filterable_by_contact(engine) -> None:
    """current_details keeps to its scope, takes a list of contact ids, and an empty list gives nothing."""
    ann, bob, zed = add_contacts(engine, contact("Ann"), contact("Bob"), contact("Zed", scope="t"))
    with transaction(engine) as session:
        for cid, value in ((ann, "a"), (bob, "b"), (zed, "z")):
            set_detail(session, session.get(Contact, cid), "k", value, at(1), [])
    with reading(engine) as session:
        assert current_details(session, "s") == {ann: {"k": "a"}, bob: {"k": "b"}}
        assert current_details(session, "s", [bob, zed]) == {bob: {"k": "b"}}
        assert current_details(session, "s", []) == {}
        assert current_details(session, "t") == {zed: {"k": "z"}}


def test_running_summary_keeps_the_newest_text_and_sources_stay_unique() -> None:
    """append_summary appends with a newline and drops the oldest words past the limit; merge_sources dedupes and caps."""
    assert append_summary("", "  first   part ") == "first part"
    assert append_summary("first", "second") == "first\nsecond"
    assert append_summary("keep", "   ") == "keep"
    trimmed = append_summary("alpha beta gamma", "delta epsilon", limit=20)
    assert len(trimmed) <= 20 and trimmed.endswith("delta epsilon") and not trimmed.startswith("lpha")
    assert merge_sources(["a", "b"], ["b", "c"]) == ["a", "b", "c"]
    assert merge_sources(["a", "b"], ["c", "d"], keep=3) == ["b", "c", "d"]


# --- tasks ---------------------------------------------------------------------------------


def task(title: str, status: str = OPEN, opened: datetime = T0, closed: datetime | None = None, scope: str = "s",
         due: date | None = None) -> Task:
    return Task(scope=scope, title=title, norm_title=normalise_title(title), status=status, opened_at=opened,
                closed_at=closed, due=due, opened_by=["m-open"], closed_by=["m-close"] if closed else [])


def test_titles_normalise_to_lower_case_words_without_articles() -> None:
    """normalise_title folds case, punctuation and spacing and drops a/an/the."""
    assert normalise_title("Book  the table at Luigi's!") == "book table at luigi s"
    assert normalise_title("An Apple a day") == normalise_title("apple   DAY")


def test_open_tasks_oldest_first_then_closed_most_recent_first(engine) -> None:
    """listed_tasks: open tasks by opened_at, then closed ones by closed_at descending (undated last), capped by closed_limit."""
    with transaction(engine) as session:
        session.add_all([
            task("later open", opened=at(2)), task("early open", opened=at(1), due=date(2025, 7, 4)),
            task("done first", DONE, closed=at(3)), task("cancelled last", CANCELLED, closed=at(8)),
            task("done middle", DONE, closed=at(5)), task("other scope", scope="t"), task("closed undated", DONE),
        ])
    with reading(engine) as session:
        assert [t.title for t in open_tasks(session, "s")] == ["early open", "later open"]
        assert [t.title for t in listed_tasks(session, "s")] == [
            "early open", "later open", "cancelled last", "done middle", "done first", "closed undated",
        ]
        assert [t.title for t in listed_tasks(session, "s", closed_limit=1)] == ["early open", "later open", "cancelled last"]
        assert len(listed_tasks(session, "s", closed_limit=None)) == 6
        early = open_tasks(session, "s")[0]
    payload = task_payload(early)
    assert (payload["due"], payload["closed_at"], payload["status"]) == ("2025-07-04", None, OPEN)
    assert datetime.fromisoformat(payload["opened_at"]) == at(1)
    assert early.opened_by == ["m-open"]
