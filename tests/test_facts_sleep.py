"""The offline pass: centroid clusters, model-judged merges, decay, cap, tombstones, fingerprint, uses."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select

from consolidator import mark_used
from consolidator.facts.api import pin, restore_fact
from consolidator.model.offline import OfflineModel
from consolidator.facts.sleep import SleepStage, centroid_clusters
from stores.engine import reading, transaction
from stores.schema.memory import Fact, FactState, FactUse
from stores.facts import FactNotFound, RestoreExpired, get_fact
from tests.support.facts_kit import NOW, T0, angle, facts_of, put, say, texts


def fact(app, fid: str) -> Fact:
    with reading(app.engine) as session:
        return get_fact(session, "maya", fid)


class TestCentroidClusters:
    @pytest.mark.parametrize(
        ("order", "expected"),
        [
            ([0, 1, 2], [[0, 1], [2]]),  # A seeds; C is not close to A
            ([1, 0, 2], [[1, 0], [2]]),  # B seeds; C is close to B but not to the centroid of A and B
            ([2, 1, 0], [[2, 1], [0]]),
        ],
    )
    def test_no_chaining(self, order, expected):
        """A~B and B~C at 10 degrees, A-C at 20: never one cluster of three (threshold cos 12 degrees)."""
        vectors = np.stack([angle(0), angle(10), angle(20)])
        got = centroid_clusters(vectors, np.ones(3), np.array(order), math.cos(math.radians(12)))
        assert got == expected

    def test_strength_weights_the_centroid(self):
        """A strong seed holds the centroid near itself; with equal weights it drifts and C stays out."""
        vectors = np.stack([angle(0), angle(8), angle(-8)])
        threshold = math.cos(math.radians(9))
        # A weighs 10: after B joins, the centroid is near 0.7 degrees, C (-8) is within 9
        assert centroid_clusters(vectors, np.array([10.0, 1.0, 1.0]), np.array([0, 1, 2]), threshold) == [[0, 1, 2]]
        # equal weights: the centroid sits at 4 degrees, C is 12 away
        assert centroid_clusters(vectors, np.array([1.0, 1.0, 1.0]), np.array([0, 1, 2]), threshold) == [[0, 1], [2]]


class TestSleepPass:
    def test_merges_keeps_pinned_refuses_conflicts_and_restores(self, app):
        """One pass: near duplicates merge, vim/emacs stay apart, a weak fact drops, a pinned one stays."""
        veg = put(app, "Maya is a vegetarian.", angle(0), importance=8, strength=2.0)
        veg2 = put(app, "Maya is vegetarian", angle(5), importance=6, strength=1.0)
        vim = put(app, "Maya uses vim.", angle(90))
        emacs = put(app, "Maya uses emacs.", angle(94))
        old = NOW - timedelta(days=365)
        weak = put(app, "Maya had soup for lunch.", angle(180), importance=1, last_used=old)
        pinned = put(app, "Maya's locker code is in the blue notebook.", angle(270), importance=1, last_used=old,
                     pinned=True)
        stage = SleepStage(app, OfflineModel())
        report = stage.run_scope("maya", NOW)
        assert (report.clusters, report.merged, report.refused, report.dropped) == (2, 1, 1, 1)
        kept, gone = fact(app, veg), fact(app, veg2)
        assert kept.valid_to is None and kept.strength == 3.0 and kept.importance == 8
        assert set(kept.sources) == {f"m-{veg}", f"m-{veg2}"}
        centre = 2 * angle(0) + angle(5)
        assert np.allclose(kept.vector(), centre / np.linalg.norm(centre), atol=1e-6)
        assert (gone.end_reason, gone.superseded_by, gone.tombstoned_at) == ("merged", veg, NOW)
        assert fact(app, vim).valid_to is None and fact(app, emacs).valid_to is None
        assert fact(app, pinned).valid_to is None
        dropped = fact(app, weak)
        assert (dropped.end_reason, dropped.tombstoned_at) == ("dropped", NOW)
        assert "Maya had soup for lunch." not in texts(facts_of(app))
        restore_fact("maya", weak, app=app, now=NOW + timedelta(days=1))
        assert "Maya had soup for lunch." in texts(facts_of(app))
        assert fact(app, weak).end_reason is None

    def test_a_refused_cluster_is_not_asked_again_until_it_changes(self, app):
        """vim/emacs refused once: later passes skip it with no call; an edited member, or another model, asks again."""
        vim = put(app, "Maya uses vim.", angle(90))
        put(app, "Maya uses emacs.", angle(94))

        class Counting(OfflineModel):
            def __init__(self, name: str = "offline") -> None:
                super().__init__()
                self.asked = 0
                self.name = name

            def judge_cluster(self, request):
                self.asked += 1
                return super().judge_cluster(request)

        model = Counting()
        stage = SleepStage(app, model)
        first = stage.run_scope("maya", NOW)
        second = stage.run_scope("maya", NOW + timedelta(hours=1))
        assert (first.refused, model.asked) == (1, 1)
        assert (second.clusters, second.remembered, second.refused, model.asked) == (1, 1, 0, 1)
        with transaction(app.engine) as session:
            session.get(Fact, vim).text = "Maya uses vim daily."
        third = stage.run_scope("maya", NOW + timedelta(hours=2))
        assert (third.refused, third.remembered, model.asked) == (1, 0, 2)
        other = Counting("claude-other")
        assert SleepStage(app, other).run_scope("maya", NOW + timedelta(hours=3)).refused == 1 and other.asked == 1

    def test_keep_top_caps_the_store_but_never_drops_pinned(self, app):
        """keep_top 2: the two best unpinned stay beside every pinned fact; the rest are dropped."""
        app.settings = app.settings.model_copy(
            update={"facts": app.settings.facts.model_copy(update={"keep_top": 3})})
        ids = [put(app, f"fact number {i}", angle(i * 20), importance=i + 1) for i in range(6)]
        low_pin = put(app, "pinned and unimportant", angle(300), importance=1, pinned=True)
        SleepStage(app, OfflineModel()).run_scope("maya", NOW)
        assert {f.id for f in facts_of(app)} == {ids[5], ids[4], low_pin}

    def test_fingerprint_aborts_a_pass_when_facts_changed_meanwhile(self, app):
        """A change committed while the model judges makes the pass write nothing; the next pass merges."""
        veg = put(app, "Maya is a vegetarian.", angle(0))
        veg2 = put(app, "Maya is vegetarian", angle(5))

        class Meddling(OfflineModel):
            meddled = False

            def judge_cluster(self, request):
                if not self.meddled:
                    self.meddled = True
                    put(app, "Maya plays chess.", angle(200))  # a concurrent write path
                return super().judge_cluster(request)

        stage = SleepStage(app, Meddling())
        first = stage.run_scope("maya", NOW)
        assert first.aborted and fact(app, veg2).valid_to is None
        assert stage.due_scopes(NOW + timedelta(days=1)) == ["maya"]
        second = stage.run_scope("maya", NOW)
        assert not second.aborted and fact(app, veg2).superseded_by == veg

    def test_restore_past_grace_or_of_a_live_fact_is_refused(self, app):
        """restore: a current fact is not a tombstone; a tombstone older than the grace stays."""
        live = put(app, "Maya plays chess.", angle(0))
        weak = put(app, "Maya had soup.", angle(90), importance=1, last_used=NOW - timedelta(days=365))
        SleepStage(app, OfflineModel()).run_scope("maya", NOW)
        with pytest.raises(FactNotFound, match=live):
            restore_fact("maya", live, app=app, now=NOW)
        with pytest.raises(RestoreExpired, match=weak):
            restore_fact("maya", weak, app=app, now=NOW + timedelta(days=31))
        with pytest.raises(FactNotFound):
            restore_fact("other", weak, app=app, now=NOW)


class TestTrigger:
    def test_idle_or_important_scopes_are_due_once(self, app):
        """Due when idle for sleep_idle or when new importance reaches sleep_importance; not again after."""
        stage = SleepStage(app, OfflineModel())
        say(app, "maya", NOW, ["hello"])
        put(app, "Maya plays chess.", angle(0), importance=5)
        assert stage.due_scopes(NOW + timedelta(hours=1)) == []
        assert stage.due_scopes(NOW + timedelta(hours=2)) == ["maya"]
        for i in range(7):
            put(app, f"Maya fact {i}", angle(10 * i + 10), importance=5)  # 40 in all
        assert stage.due_scopes(NOW + timedelta(minutes=1)) == ["maya"]
        assert stage.run(NOW + timedelta(minutes=1)) >= 0
        assert stage.due_scopes(NOW + timedelta(hours=3)) == []
        with reading(app.engine) as session:
            state = session.get(FactState, "maya")
        assert state.last_sleep_at == NOW + timedelta(minutes=1) and state.importance_since_sleep == 0


class TestUses:
    def test_mark_used_queues_only_the_scopes_facts(self, app, monkeypatch):
        """Another scope's fact id, or one of no fact, was queued (a row the daemon then ignored);
        now it is skipped, or with strict=True refused, naming it, with nothing queued."""
        monkeypatch.setenv("CONSOLIDATOR_STATE_DIR", str(app.settings.state_dir))
        mine, theirs = put(app, "Maya plays chess.", angle(0)), put(app, "Rui plays golf.", angle(0), scope="rui")
        assert mark_used("maya", [mine, theirs, "f_nothing"]) == 1
        with pytest.raises(ValueError, match=rf"unknown fact ids in scope 'maya': {theirs}, f_nothing"):
            mark_used("maya", [mine, theirs, "f_nothing"], strict=True)
        with reading(app.engine) as session:
            assert [u.fact_id for u in session.execute(select(FactUse)).scalars()] == [mine]

    def test_mark_used_raises_strength_capped_and_last_used(self, app, monkeypatch):
        """Twelve uses through the public API: strength stops at the cap (10), last_used is the use time."""
        monkeypatch.setenv("CONSOLIDATOR_STATE_DIR", str(app.settings.state_dir))
        fid = put(app, "Maya plays chess.", angle(0), last_used=T0)
        used_at = NOW + timedelta(hours=3)
        assert [mark_used("maya", [fid] * 2, at=used_at) for _ in range(12)] == [1] * 12  # once a call
        with reading(app.engine) as session:
            assert len(list(session.execute(select(FactUse)).scalars())) == 12
        assert fact(app, fid).strength == 1.0  # applied by the daemon, not by the caller
        assert SleepStage(app, OfflineModel()).apply_uses(NOW + timedelta(hours=4)) == 12
        used = fact(app, fid)
        assert used.strength == 10.0 and used.last_used == used_at
        with reading(app.engine) as session:
            assert list(session.execute(select(FactUse)).scalars()) == []

    def test_a_use_of_a_merged_away_fact_counts_for_the_kept_one(self, app):
        """mark_used on a fact merged since: the kept fact gets the use; unknown ids are dropped."""
        veg = put(app, "Maya is a vegetarian.", angle(0))
        veg2 = put(app, "Maya is vegetarian", angle(5))
        stage = SleepStage(app, OfflineModel())
        stage.run_scope("maya", NOW)
        mark_used("maya", [veg2, "f_unknown"], app=app, at=NOW + timedelta(hours=1))
        assert stage.apply_uses(NOW + timedelta(hours=2)) == 1
        assert fact(app, veg).strength == 3.0

    def test_mark_used_validates_scope_and_ids(self, app):
        """A bad scope or an empty id raises ValueError before anything is written."""
        with pytest.raises(ValueError):
            mark_used("../etc", ["f_1"], app=app)
        with pytest.raises(ValueError):
            mark_used("maya", [""], app=app)

    def test_pin_protects_from_decay_and_unpin_restores_it(self, app):
        """A pinned old fact survives the pass; pinning a closed or unknown fact raises FactNotFound."""
        old = put(app, "Maya keeps a spare key under the mat.", angle(0), importance=2,
                  last_used=NOW - timedelta(days=400))
        pin("maya", old, app=app, now=NOW)
        SleepStage(app, OfflineModel()).run_scope("maya", NOW)
        assert fact(app, old).valid_to is None
        with pytest.raises(FactNotFound):
            pin("maya", "f_nope", app=app, now=NOW)
        pin("maya", old, pinned=False, app=app, now=NOW)
        SleepStage(app, OfflineModel()).run_scope("maya", NOW)
        assert fact(app, old).end_reason == "dropped"


class TestProgress:
    def test_the_pass_beats_once_per_cluster_judged(self, app):
        """on_progress is called for every cluster the model judges, so a long pass keeps the watchdog fed."""
        for group in range(3):
            put(app, f"topic {group} first", angle(group * 60))
            put(app, f"topic {group} second", angle(group * 60 + 2))
        stage = SleepStage(app, OfflineModel())
        beats: list[int] = []
        stage.on_progress = lambda: beats.append(1)
        report = stage.run_scope("maya", NOW)
        assert report.clusters == 3 and len(beats) == 3
