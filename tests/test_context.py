"""context.md: its sections, its hard token cap on a huge store, its status line, and read_context."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import consolidator
from consolidator.core.app import App
from consolidator.core.config import ConfigError, Settings, load_settings
from consolidator import read_context
from consolidator.snapshots.context import cost, cut_words, fit, publish_context, status_line
from consolidator.domain import estimate_tokens
from stores.engine import transaction
from stores.messages import NewMessage, append_messages
from tests.support.memory_kit import START, Memory
from tests.support.context_kit import LONG_TEXT, RUNGS, context_text, fill_huge_store, with_cap, write_json

NOW = START + timedelta(days=3)
SECTIONS = ("# Memory: maya", "Status:", "## People", "## Facts", "## Open tasks", "## Summaries")


class TestCap:
    @pytest.mark.slow
    @pytest.mark.parametrize("tokens", [64, 300, 1500, 6000])
    def test_never_exceeds_its_cap_on_a_store_of_ten_thousand_facts(self, app: App, tokens: int) -> None:
        """With 10,000 facts and hundreds of contacts, tasks and long summaries, the file stays under the cap."""
        fill_huge_store(app)
        capped = with_cap(app, tokens)
        publish_context(capped, "maya", NOW)
        text = context_text(app)
        assert estimate_tokens(text) <= tokens
        assert estimate_tokens(text) >= tokens * 0.8  # the budget is used, not wasted
        if tokens >= 300:
            for section in SECTIONS:
                assert section in text
            facts = text.split("## Facts\n")[1].split("## ")[0]
            assert facts.startswith("- Fact number 0: ") and "[f0]" in facts and "[f9999]" not in facts

    @pytest.mark.slow
    def test_default_cap_fills_every_section_and_cuts_at_word_boundaries(self, app: App) -> None:
        """At the default 1,500 tokens each section gets items, and cut text ends on a whole word."""
        fill_huge_store(app)
        publish_context(app, "maya", NOW)
        text = context_text(app)
        assert app.settings.context.context_tokens == 1500
        sections = {part.split("\n", 1)[0]: part for part in text.split("## ")[1:]}
        assert {"People", "Facts", "Open tasks", "Summaries", "Not yet consolidated"} == set(sections)
        for body in sections.values():
            assert body.count("\n- ") >= 2
        summaries = [line for line in sections["Summaries"].splitlines() if line.startswith("- ")]
        assert summaries[0].startswith("- day (time-day): time day: sentence0")
        for line in summaries:  # each cut right before a space of the full line
            assert line.endswith("…")
            label, _, shown = line[:-1].partition("): ")
            full = next(f"{lad} {r}: " + LONG_TEXT for lad, r in RUNGS if shown.startswith(f"{lad} {r}: "))
            assert full.startswith(shown) and full[len(shown)] == " "
        assert "- Person 299 (aka P299, Pers299): diet: diet value 299" in sections["People"]  # newest first
        assert "Task 0 with" in sections["Open tasks"] and "(due 2025-04-01)" in sections["Open tasks"]


class TestContent:
    def test_a_small_store_is_shown_whole_with_its_status(self, app: App) -> None:
        """Contacts with details, open tasks with due dates and the status line come from the pipeline."""
        memory = Memory(app)
        memory.say("maya", "user: My friend Ana Lopez works at Google.",
                   "user: Remind me to call the dentist on Friday.", "user: todo: buy milk")
        text = context_text(app)
        for section in SECTIONS:
            assert section in text
        assert "- Ana Lopez: employer: Google. relation: the user's friend." in text  # details end with a stop
        assert "- Call the dentist (due 2025-03-07) [#1]\n- Buy milk [#2]" in text
        assert "0 messages not yet consolidated" in text and "no summaries yet" in text

    def test_status_counts_messages_not_yet_consolidated(self, app: App) -> None:
        """Logged but unbatched messages are reported as not yet consolidated, and the ladder lag too."""
        append_messages(app.engine, [NewMessage("maya", START + timedelta(minutes=i), "user", f"m{i}")
                                     for i in range(7)], START)
        write_json(app, "maya", "time/day.json", {"label": "2025-03-03", "text": "A day.", "watermark": {"seq": 4}})
        publish_context(app, "maya", NOW)
        text = context_text(app)
        assert "7 messages logged" in text and "7 messages not yet consolidated" in text
        assert "summaries cover messages through #4 (3 behind)" in text
        assert "- day (2025-03-03): A day." in text
        assert status_line(1, START, 0, None).startswith("Status: 1 message logged,")  # not "1 messages"
        assert "1 message not yet consolidated" in status_line(3, START, 2, None)

    def test_duplicate_rung_texts_are_shown_once(self, app: App) -> None:
        """The interaction rung that reuses the day's text is not repeated."""
        write_json(app, "maya", "time/day.json", {"label": "2025-03-03", "text": "Same text.", "watermark": {"seq": 1}})
        write_json(app, "maya", "count/1.json", {"label": "interaction 1", "text": "Same text.", "watermark": {"seq": 1}})
        publish_context(app, "maya", NOW)
        assert context_text(app).count("Same text.") == 1


class TestFitting:
    @pytest.mark.parametrize(
        "items, budget, per_item, expected, cut",
        [
            (["- aa", "- bb"], 10, None, ["- aa", "- bb"], False),
            (["- " + "word " * 20, "- b"], 10, None, ["- word word word word word word word…"], True),
            (["- a", "- " + "word " * 20], 10, None, ["- a", "- word word word word word word…"], True),
            (["- a", "- " + "word " * 20], 3, None, ["- a"], True),  # too little room left to cut into
            (["- " + "word " * 20, "- b"], 100, 4, ["- word word…", "- b"], False),
        ],
    )
    def test_whole_items_first_then_text_at_a_word_boundary(self, items, budget, per_item, expected, cut) -> None:
        """Items are kept whole while they fit; the first that does not is cut at a word boundary."""
        lines, was_cut = fit(items, budget, per_item)
        assert lines == expected and was_cut is cut
        assert sum(cost(line) for line in lines) <= budget

    def test_cut_words_never_splits_a_word(self) -> None:
        """cut_words ends on a whole word plus an ellipsis, within the limit."""
        assert cut_words("alpha beta gamma", 12) == "alpha beta…"
        assert cut_words("alphabetagamma", 5) == ""
        assert cut_words("short", 10) == "short"

    def test_shares_over_one_are_rejected(self, tmp_path) -> None:
        """Section shares adding up to more than 1 are a configuration error naming the section."""
        path = tmp_path / "c.toml"
        path.write_text("[context]\nfacts_share = 0.9\n")
        with pytest.raises(ConfigError, match="context"):
            load_settings(path, env={})


class TestReader:
    def test_read_context_returns_the_file_or_nothing(self, app: App, monkeypatch, state_dir) -> None:
        """read_context (exported by the package) is '' before the first publish, then the file's text."""
        monkeypatch.setenv("CONSOLIDATOR_STATE_DIR", str(state_dir))
        assert consolidator.read_context is read_context
        assert read_context("maya") == ""
        Memory(app).say("maya", "user: todo: buy milk")
        assert read_context("maya") == context_text(app)
        assert "Buy milk" in read_context("maya")

    def test_read_context_follows_a_config_file(self, app: App, tmp_path) -> None:
        """An explicit config path or Settings locates the state dir."""
        publish_context(app, "maya", NOW)
        config = tmp_path / "other.toml"
        config.write_text(f'state_dir = "{app.settings.state_dir}"\n')
        assert read_context("maya", config) == context_text(app) != ""
        assert read_context("maya", app.settings) == context_text(app)
        assert read_context("maya", Settings(state_dir=tmp_path / "empty")) == ""

    def test_read_context_rejects_a_bad_scope(self) -> None:
        """A scope that could escape the snapshot directory is refused."""
        with pytest.raises(ValueError):
            read_context("../etc")


def test_context_follows_a_new_day_summary(app: App) -> None:
    """A scope whose ladders changed gets its context.md recomposed by the snapshot stage."""
    memory = Memory(app)
    memory.say("maya", "user: todo: buy milk")
    write_json(app, "maya", "time/day.json", {"label": "2025-03-03", "text": "A quiet day.", "watermark": {"seq": 1}})
    with transaction(app.engine) as session:  # as the ladder stage does in a pass over the scope
        from stores.view_versions import bump
        from stores.work_queue import mark_due

        bump(session, "maya", "ladders")
        mark_due(session, "maya", memory.clock)
    memory.consolidator.drain(memory.clock + timedelta(minutes=1))
    assert "- day (2025-03-03): A quiet day." in context_text(app)
    assert datetime.fromisoformat(context_text(app).split("_updated ")[1].split("_")[0]) > START.replace(tzinfo=timezone.utc)


class TestWhatTheCountSummariesCover:
    def test_count_blocks_say_their_range_and_newer_interactions_are_added(self, tmp_path) -> None:
        """13 interactions (the newest still open) with count rungs 1 and 10: the block says 1-10 of 13, and the
        closed interactions that no block holds yet (11, 12) have lines of their own, newest first."""
        from consolidator.ladders.stage import LadderStage
        from consolidator.runtime.tick import Consolidator
        from consolidator.core.app import open_app
        from consolidator.core.config import LadderSettings, Settings
        from tests.support.fakes import CountingModel

        settings = Settings(state_dir=tmp_path / "state", ladders=LadderSettings(count=[1, 10]))
        app = open_app(settings)
        try:
            messages = [NewMessage("maya", START + timedelta(hours=3 * k, minutes=i), "user", f"topic{k} line{i}",
                                   session=f"s{k}") for k in range(1, 14) for i in range(2)]
            append_messages(app.engine, messages, START)
            now = START + timedelta(days=10)
            Consolidator(app, [], [LadderStage(app, CountingModel())]).tick(now)
            publish_context(app, "maya", now)
            text = context_text(app)
        finally:
            app.close()
        lines = [line for line in text.split("## Summaries", 1)[1].splitlines() if line.startswith("- count/")]
        assert [line.split(":", 1)[0] for line in lines] == [
            "- count/1 (interaction 12 of 13)", "- count/1 (interaction 11 of 13)", "- count/10 (interactions 1-10 of 13)"]
        assert "topic12" in lines[0] and "topic11" in lines[1] and "topic10" in lines[2]
