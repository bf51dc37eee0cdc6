"""AnthropicModel's prompts: lines in the scope's local time, and the rules each prompt asks for
(the real anthropic SDK against the local fake of the Messages API, as in test_anthropic_backend)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.prompts import local_time
from consolidator.model.schemas import Line
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.anthropic_kit import REQUESTS, call, fake, make_model, recorder  # noqa: F401  (fixtures)


LATE = Line(id="n1", at=datetime(2025, 3, 3, 23, 30, tzinfo=UTC), role="user", speaker="Caroline",
            text="I went to the support group yesterday.")
# The operations that read people's words: each must ask for absolute dates and no small talk.
READING = ("summarize", "extract_facts", "update_contacts", "update_tasks", "consolidate_batch")
WITH_LINES = ("extract_facts", "update_contacts", "update_tasks", "consolidate_batch")


def with_zone(operation: str, zone: str | None) -> Any:
    """The operation's sample request, its lines replaced by LATE, in `zone` (the default if None)."""
    update: dict[str, Any] = {} if operation == "summarize" else {"messages": [LATE]}
    if zone is not None:
        update["timezone"] = zone
    return REQUESTS[operation].model_copy(update=update)


class TestLocalTimeAndRules:
    @pytest.mark.parametrize("operation", WITH_LINES)
    def test_a_line_is_shown_in_the_scopes_local_time(
        self, operation: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """23:30 UTC on Monday is shown as Tuesday 00:30 +01:00 for a Europe/Paris scope."""
        getattr(make_model(), operation)(with_zone(operation, "Europe/Paris"))
        user = fake.bodies[0]["messages"][0]["content"]
        assert "2025-03-04 (Tue) +01:00\n[1] 00:30 Caroline: I went" in user
        assert user.startswith("time zone: Europe/Paris\n") and "23:30" not in user

    @pytest.mark.parametrize("operation", WITH_LINES)
    def test_without_a_zone_lines_stay_in_utc(
        self, operation: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """A request that names no zone shows UTC times, offset +00:00, and does not state the default zone."""
        getattr(make_model(), operation)(with_zone(operation, None))
        user = fake.bodies[0]["messages"][0]["content"]
        assert "2025-03-03 (Mon) +00:00\n[1] 23:30 Caroline: " in user and "time zone" not in user

    @pytest.mark.parametrize(
        "at, zone, shown",
        [
            (datetime(2025, 7, 1, 22, 15, tzinfo=UTC), "Europe/Paris", "2025-07-02 00:15 +02:00 (Wed)"),
            (datetime(2025, 3, 3, 3, 0, tzinfo=UTC), "America/New_York", "2025-03-02 22:00 -05:00 (Sun)"),
            (datetime(2025, 3, 3, 12, 0, tzinfo=UTC), "Asia/Kolkata", "2025-03-03 17:30 +05:30 (Mon)"),
            (datetime(2025, 3, 3, 12, 0), "Europe/Paris", "2025-03-03 13:00 +01:00 (Mon)"),  # naive: UTC
        ],
    )
    def test_local_time_keeps_the_offset_and_the_weekday(self, at: datetime, zone: str, shown: str) -> None:
        """Summer time, a negative and a half-hour offset each give the local day, offset and weekday."""
        assert local_time(at, ZoneInfo(zone)) == shown

    def test_the_zone_changes_the_message_but_not_the_cached_system_prompt(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """Two scopes in different zones share the system prompt (the cached prefix) byte for byte."""
        model = make_model()
        model.extract_facts(with_zone("extract_facts", "Europe/Paris"))
        model.extract_facts(with_zone("extract_facts", "Asia/Tokyo"))
        paris, tokyo = fake.bodies
        assert paris["system"] == tokyo["system"] and paris["tools"] == tokyo["tools"]
        assert paris["messages"] != tokyo["messages"]

    def test_a_summary_request_names_its_zone_when_it_has_one(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """The summarize message says the scope's zone when it is not UTC; inputs are kept as labelled."""
        model = make_model()
        model.summarize(with_zone("summarize", "Europe/Paris"))
        model.summarize(with_zone("summarize", None))
        paris, default = (body["messages"][0]["content"] for body in fake.bodies)
        assert "time zone: Europe/Paris\n" in paris and "time zone" not in default
        assert "[1] 09:30:" in paris

    @pytest.mark.parametrize("operation", READING)
    def test_each_reading_prompt_asks_for_absolute_dates_and_no_small_talk(
        self, operation: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """The system prompt resolves "yesterday"/"last week"/"next month" to absolute dates, keeps
        named details and leaves out greetings, thanks and acknowledgements."""
        call(make_model(), operation)
        system = fake.bodies[0]["system"][0]["text"].lower()
        assert re.search(r"resolve relative dates[^.]*yesterday[^.]*last week[^.]*next month", system)
        assert "absolute dates" in system and "local" in system
        assert all(word in system for word in ("greetings", "thanks", "acknowledgements"))
        assert all(word in system for word in ("titles", "names", "numbers", "places"))

    @pytest.mark.parametrize("operation", ["extract_facts", "consolidate_batch"])
    def test_fact_prompts_ask_for_dated_third_person_events(
        self, operation: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """Facts are third-person sentences; events are facts, with a dated example."""
        call(make_model(), operation)
        system = fake.bodies[0]["system"][0]["text"]
        assert "third-person" in system and "events and experiences are facts" in system
        assert re.search(r'"[A-Z][a-z]+ [^"]*\(\d{4}-\d\d-\d\d\)\."', system)

    @pytest.mark.parametrize("operation", ["update_contacts", "update_tasks", "consolidate_batch"])
    def test_contacts_are_people_and_tasks_are_commitments(
        self, operation: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """Contacts are asked for people only (not pets or places); tasks for commitments with an action."""
        call(make_model(), operation)
        system = fake.bodies[0]["system"][0]["text"]
        if operation != "update_tasks":
            assert re.search(r"people only \(never pets, places", system)
        if operation != "update_contacts":
            assert re.search(r"commitments or requests with an action", system)

    def test_the_merge_judge_keeps_dates_and_details(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """A merged fact may lose no name, number, place or date."""
        call(make_model(), "judge_cluster")
        system = fake.bodies[0]["system"][0]["text"]
        assert re.search(r"no detail is lost \([^)]*numbers[^)]*dates\)", system)
