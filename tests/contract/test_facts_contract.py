"""Contract: the facts store (validity intervals, history, revisions, use queue, pin, restore), whatever the database."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from stores.engine import reading, transaction
from stores.schema.memory import Fact
from stores.facts import FactNotFound, RestoreExpired, all_facts, apply_uses, close_fact, count_current, current_by_hash, current_by_ids, current_facts, current_matrix, enqueue_uses, facts_by_id, get_fact, history, norm_hash, restore, revision, scopes_with_uses, set_pinned, state_of, to_bytes, touch, unslept_states

T0 = datetime(2025, 5, 1, 10, 0, tzinfo=timezone.utc)
GRACE = timedelta(days=7)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def fact(fid: str, text: str = "", *, scope: str = "s", when: datetime = T0, vector=(1.0, 0.0, 0.0)) -> Fact:
    text = text or f"fact {fid}"
    return Fact(id=fid, scope=scope, text=text, norm_hash=norm_hash(text), embedding=to_bytes(np.array(vector)),
                importance=3, last_used=when, created_at=when, updated_at=when, valid_from=when,
                sources=[f"src-{fid}"], source_roles=["user"])


def add(engine, *rows: Fact, scope: str = "s") -> None:
    with transaction(engine) as session:
        session.add_all(rows)
        touch(session, scope, added_importance=sum(r.importance for r in rows))


def test_facts_round_trip_and_only_open_ones_are_current(engine) -> None:
    """A closed fact stays in all_facts but leaves current_facts; lists, vectors and aware times come back as stored."""
    add(engine, fact("a", "Maya lives in London", when=at(0)), fact("b", when=at(1)), fact("c", when=at(2)))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "b"), at(3), "deleted", at(3))
        touch(session, "s")
    with reading(engine) as session:
        assert [f.id for f in current_facts(session, "s")] == ["a", "c"]
        assert [f.id for f in all_facts(session, "s")] == ["a", "b", "c"]
        assert count_current(session, "s") == 2
        stored = get_fact(session, "s", "a")
        closed = get_fact(session, "s", "b")
    assert (stored.sources, stored.source_roles, stored.created_at) == (["src-a"], ["user"], at(0))
    assert stored.vector().tolist() == [1.0, 0.0, 0.0] and stored.current
    assert (closed.valid_to, closed.end_reason, closed.current) == (at(3), "deleted", False)


def test_facts_are_seen_only_in_their_own_scope(engine) -> None:
    """get_fact refuses another scope's id; reads of one scope never return another's rows."""
    add(engine, fact("a"))
    add(engine, fact("z", scope="t"), scope="t")
    with reading(engine) as session:
        with pytest.raises(FactNotFound):
            get_fact(session, "s", "z")
        with pytest.raises(FactNotFound):
            get_fact(session, "s", "missing")
        assert set(facts_by_id(session, "s", {"a", "z"})) == {"a"}
        assert set(current_by_ids(session, "s", {"a", "z"})) == {"a"}
        assert current_matrix(session, "s", 3).ids == ["a"]


def test_lookups_by_id_and_hash_return_current_facts(engine) -> None:
    """facts_by_id reads across chunks (closed included); current_by_ids/by_hash only current, first created per hash."""
    add(engine, *[fact(f"f{i:03}", when=at(i)) for i in range(12)],
        fact("dup1", "Maya likes tea!", when=at(20)), fact("dup2", "maya  LIKES tea", when=at(21)))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "f000"), at(30), "deleted", at(30))
        touch(session, "s")
    with reading(engine) as session:
        found = facts_by_id(session, "s", {f"f{i:03}" for i in range(12)} | {"nope"}, chunk=5)
        assert len(found) == 12 and found["f000"].valid_to == at(30)
        assert set(current_by_ids(session, "s", {"f000", "f001"})) == {"f001"}
        assert current_by_ids(session, "s", set()) == {}
        by_hash = current_by_hash(session, "s", {norm_hash("Maya likes tea"), norm_hash("nothing")})
        assert {h: f.id for h, f in by_hash.items()} == {norm_hash("Maya likes tea"): "dup1"}


def test_history_follows_supersession_both_ways_including_merges(engine) -> None:
    """history through any member lists the whole chain, oldest first, including facts merged into it."""
    add(engine, fact("london", when=at(0)), fact("paris", when=at(5)), fact("berlin", when=at(9)),
        fact("berlin-dup", when=at(10)), fact("other", when=at(1)))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "london"), at(5), "updated", at(5), superseded_by="paris")
        close_fact(get_fact(session, "s", "paris"), at(9), "updated", at(9), superseded_by="berlin")
        close_fact(get_fact(session, "s", "berlin-dup"), at(11), "merged", at(11), superseded_by="berlin", tombstone=True)
        touch(session, "s")
    with reading(engine) as session:
        chain = [f.id for f in history(session, "s", "london")]
        assert chain == ["london", "paris", "berlin", "berlin-dup"]
        assert [f.id for f in history(session, "s", "paris")] == chain
        assert [f.id for f in history(session, "s", "other")] == ["other"]
        with pytest.raises(FactNotFound):
            history(session, "s", "nope")


def test_close_fact_refuses_an_unknown_reason(engine) -> None:
    """close_fact accepts only the documented end reasons."""
    add(engine, fact("a"))
    with pytest.raises(ValueError):
        with transaction(engine) as session:
            close_fact(get_fact(session, "s", "a"), at(1), "forgotten", at(1))
    with reading(engine) as session:
        assert get_fact(session, "s", "a").current


def test_every_touch_bumps_the_revision_and_unslept_lists_changed_scopes(engine) -> None:
    """touch raises revision and sums added importance per scope; a scope whose slept_revision matches is not unslept."""
    with reading(engine) as session:
        assert revision(session, "s") == 0
    add(engine, fact("a"), fact("b"))
    add(engine, fact("c"))
    add(engine, fact("z", scope="t"), scope="t")
    with reading(engine) as session:
        assert (revision(session, "s"), revision(session, "t")) == (2, 1)
        assert state_of(session, "s").importance_since_sleep == 9
        assert sorted(s.scope for s in unslept_states(session)) == ["s", "t"]
    with transaction(engine) as session:
        state = state_of(session, "s", lock=True)
        state.slept_revision, state.importance_since_sleep, state.last_sleep_at = state.revision, 0, at(1)
    with reading(engine) as session:
        assert [s.scope for s in unslept_states(session)] == ["t"]
        assert state_of(session, "s").last_sleep_at == at(1)
    add(engine, fact("d"))
    with reading(engine) as session:
        assert sorted(s.scope for s in unslept_states(session)) == ["s", "t"]


def test_a_rolled_back_change_keeps_the_revision(engine) -> None:
    """A transaction that fails after touch leaves neither the fact nor the revision bump."""
    with pytest.raises(RuntimeError):
        with transaction(engine) as session:
            session.add(fact("a"))
            touch(session, "s")
            raise RuntimeError("boom")
    with reading(engine) as session:
        assert revision(session, "s") == 0 and all_facts(session, "s") == []


def test_queued_uses_strengthen_current_facts_follow_merges_and_drop_the_rest(engine) -> None:
    """apply_uses strengthens (capped), follows a merge to its target, ignores closed/unknown facts and empties the queue."""
    add(engine, fact("a"), fact("b"), fact("gone"), fact("merged"))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "gone"), at(1), "deleted", at(1))
        close_fact(get_fact(session, "s", "merged"), at(1), "merged", at(1), superseded_by="b", tombstone=True)
        touch(session, "s")
    with transaction(engine) as session:
        enqueue_uses(session, "s", ["a", "a", "a", "merged", "gone", "unknown"], at(4))
        enqueue_uses(session, "t", ["a"], at(4))
    with reading(engine) as session:
        assert scopes_with_uses(session) == ["s", "t"]
        before = revision(session, "s")
    with transaction(engine) as session:
        assert apply_uses(session, "s", cap=3.0, now=at(5)) == (4, 2)
    with reading(engine) as session:
        a, b = get_fact(session, "s", "a"), get_fact(session, "s", "b")
        assert (a.strength, a.last_used, b.strength, b.last_used) == (3.0, at(4), 2.0, at(4))
        assert scopes_with_uses(session) == ["t"]
        assert revision(session, "s") == before + 1
    with transaction(engine) as session:
        assert apply_uses(session, "s", cap=3.0, now=at(6)) == (0, 0)


def test_a_use_of_another_scope_s_id_is_ignored(engine) -> None:
    """apply_uses for one scope never strengthens a fact of another scope with the queued id."""
    add(engine, fact("z", scope="t"), scope="t")
    with transaction(engine) as session:
        enqueue_uses(session, "s", ["z"], at(1))
    with transaction(engine) as session:
        assert apply_uses(session, "s", cap=5.0, now=at(2)) == (0, 1)
    with reading(engine) as session:
        assert get_fact(session, "t", "z").strength == 1.0


@pytest.mark.slow
def test_pinning_a_current_fact_bumps_the_revision_once(engine) -> None:
    """set_pinned changes the flag and revision only when it changes; a closed fact cannot be pinned."""
    add(engine, fact("a"), fact("b"))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "b"), at(1), "deleted", at(1))
        touch(session, "s")
    with reading(engine) as session:
        before = revision(session, "s")
    with transaction(engine) as session:
        assert set_pinned(session, "s", "a", True, at(2)).pinned
    with transaction(engine) as session:
        set_pinned(session, "s", "a", True, at(3))
    with reading(engine) as session:
        assert get_fact(session, "s", "a").pinned and get_fact(session, "s", "a").updated_at == at(2)
        assert revision(session, "s") == before + 1
    with pytest.raises(FactNotFound):
        with transaction(engine) as session:
            set_pinned(session, "s", "b", True, at(4))


def test_a_tombstoned_fact_is_restored_within_grace_only(engine) -> None:
    """restore reopens a merged or dropped fact within grace; past it RestoreExpired; a plain deletion is not restorable."""
    add(engine, fact("merged"), fact("dropped"), fact("deleted"), fact("target"))
    with transaction(engine) as session:
        close_fact(get_fact(session, "s", "merged"), at(1), "merged", at(1), superseded_by="target", tombstone=True)
        close_fact(get_fact(session, "s", "dropped"), at(1), "dropped", at(1), tombstone=True)
        close_fact(get_fact(session, "s", "deleted"), at(1), "deleted", at(1))
        touch(session, "s")
    with transaction(engine) as session:
        back = restore(session, "s", "merged", at(1) + GRACE, GRACE)
    assert (back.current, back.end_reason, back.superseded_by, back.tombstoned_at) == (True, None, None, None)
    with pytest.raises(RestoreExpired):
        with transaction(engine) as session:
            restore(session, "s", "dropped", at(1) + GRACE + timedelta(seconds=1), GRACE)
    with pytest.raises(FactNotFound):
        with transaction(engine) as session:
            restore(session, "s", "deleted", at(2), GRACE)
    with pytest.raises(FactNotFound):
        with transaction(engine) as session:
            restore(session, "s", "target", at(2), GRACE)
    with reading(engine) as session:
        assert [f.id for f in current_facts(session, "s")] == ["merged", "target"]
        assert not get_fact(session, "s", "dropped").current
