"""What a prompt spends its tokens on (consolidator.model.refs, prompts, schemas): known items as
plain lines, message lines without quotes or repeated times, replies whose common values are
defaults. Each rendering must still carry the whole request: the fake's responder, which answers
as the offline model would, reads every field back from the prompt alone."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from consolidator.model.prompts import _SPECS, _render
from consolidator.model.refs import (
    line_text,
    line_who,
    render_contacts,
    render_facts,
    render_lines,
    render_tasks,
)
from consolidator.model import schemas
from tests.support.model_responder import parse_request

AT = datetime(2025, 3, 29, 22, 10, tzinfo=UTC)  # Paris: 23:10 +01:00; DST starts that night


def line(i: int, role: str, speaker: str | None, text: str, minutes: float) -> schemas.Line:
    return schemas.Line(id=f"msg-{i}", at=AT + timedelta(minutes=minutes), role=role, speaker=speaker, text=text)


LINES = [
    line(0, "user", "Ana", "I moved to Lyon: the flat is great.", 0),
    line(1, "user", "Ben", 'She said "finally" and laughed.', 0.5),  # same minute as the line before
    line(2, "assistant", "Max", "Noted.\nAnything else?", 1),  # a line break: a JSON string
    line(3, "user", None, '"Quoted" at the start', 2),
    line(4, "tool", None, "search: 3 results", 3),
    line(5, "user", "tool", "A person whose name reads as a role", 4),
    line(6, "action", "cron/daily", "ran", 5),
    line(7, "user", "Ana", "Remind me to call Mom.", 60 * 5),  # next local day, after the DST switch
]
FACTS = [schemas.KnownFact(id="f-low", text="Ana likes tea", similarity=0.2),
         schemas.KnownFact(id="f-high", text="Ana lives in\nPorto (2025-01-02).", similarity=0.9)]
CONTACTS = [schemas.KnownContact(name="Ana", aliases=["Annie", "A."], details={"job": "nurse", "likes": "tea; jazz"},
                         biography="Ana is a nurse."),
            schemas.KnownContact(name="Ben")]
TASKS = [schemas.KnownTask(id="t-1", title="Send the report", due=date(2025, 4, 1)), schemas.KnownTask(id="t-2", title="Call Mom")]


def as_read(lines: list[schemas.Line]) -> list[schemas.Line]:
    """The lines as the responder reads them back: ids are the line numbers the prompt shows, and
    times are to the minute."""
    return [m.model_copy(update={"id": str(n), "at": m.at.replace(second=0)}) for n, m in enumerate(lines, 1)]


class TestTheResponderReadsEveryRequestBack:
    @pytest.mark.parametrize("zone", ["UTC", "Europe/Paris"])
    def test_a_batch_request_round_trips(self, zone: str) -> None:
        """Lines (roles, speakers, quotes, line breaks, shared minutes, a DST switch), facts by rank,
        contacts and tasks come back from the rendered prompt as they were, under their short refs."""
        request = schemas.BatchRequest(scope="s", messages=LINES, neighbours=FACTS, known_contacts=CONTACTS,
                               open_tasks=TASKS, timezone=zone)
        back = parse_request("consolidate_batch", _render(request))
        assert back.messages == as_read(LINES) and back.timezone == zone
        assert [(f.id, f.text) for f in back.neighbours] == [("F2", "Ana lives in Porto (2025-01-02)."),
                                                              ("F1", "Ana likes tea")]
        assert back.known_contacts == CONTACTS
        assert [(t.id, t.title, t.due) for t in back.open_tasks] == [("T1", "Send the report", date(2025, 4, 1)),
                                                                     ("T2", "Call Mom", None)]

    @pytest.mark.parametrize("request_", [
        schemas.FactExtractionRequest(scope="s", messages=LINES, neighbours=FACTS, timezone="Europe/Paris"),
        schemas.ContactsRequest(scope="s", messages=LINES, known=CONTACTS),
        schemas.TasksRequest(scope="s", messages=LINES, open_tasks=TASKS, timezone="America/New_York"),
    ], ids=["facts", "contacts", "tasks"])
    def test_each_single_step_request_round_trips(self, request_: Any) -> None:
        """The per-step operations use the same renderings and read back the same way."""
        operation = {schemas.FactExtractionRequest: "extract_facts", schemas.ContactsRequest: "update_contacts",
                     schemas.TasksRequest: "update_tasks"}[type(request_)]
        back = parse_request(operation, _render(request_))
        assert back.messages == as_read(LINES) and back.timezone == request_.timezone

    def test_a_summary_asked_with_the_batch_round_trips(self) -> None:
        """A window row (`S1 count/1: label, lines 2-3,5, at most N tokens`) gives back its short ref,
        ladder, rung, label, budget and exactly its lines."""
        window = schemas.SummarizeRequest(scope="s", ladder="count", rung="1", window_label="interactions 7-7",
                                  inputs=[schemas.SummaryInput(id=LINES[i].id, label="", text="x") for i in (1, 2, 4)],
                                  budget_tokens=250, ref="count/1/7-7")
        request = schemas.BatchRequest(scope="s", messages=LINES, neighbours=[], known_contacts=[], open_tasks=[],
                               summaries=[window])
        text = _render(request)
        assert text.endswith("\nsummaries:\nS1 count/1: interactions 7-7, lines 2-3,5, at most 250 tokens")
        [back] = parse_request("consolidate_batch", text).summaries
        assert (back.ref, back.ladder, back.rung, back.window_label, back.budget_tokens) == (
            "S1", "count", "1", "interactions 7-7", 250)
        assert [i.id for i in back.inputs] == ["2", "3", "5"]


class TestPlainLines:
    def test_known_items_are_one_plain_line_each(self) -> None:
        """Facts `F1 text` (most similar first, line breaks flattened), tasks `T1 title (due ...)`,
        contacts `name | aliases: ... | key: value | biography: ...`; no JSON keys or quotes."""
        assert render_facts(FACTS) == "F2 Ana lives in Porto (2025-01-02).\nF1 Ana likes tea"
        assert render_tasks(TASKS) == "T1 Send the report (due 2025-04-01)\nT2 Call Mom"
        assert render_contacts(CONTACTS) == (
            "Ana | aliases: Annie, A. | job: nurse | likes: tea; jazz | biography: Ana is a nurse.\nBen")
        assert render_facts([]) == render_tasks([]) == render_contacts([]) == "(none)"

    @pytest.mark.parametrize("text, shown", [
        ("I moved to Lyon: great.", "I moved to Lyon: great."),
        ('She said "finally".', 'She said "finally".'),
        ("two\nlines", '"two\\nlines"'),
        ("a\u2028b", '"a\u2028b"'),
        ('"Quoted" first', '"\\"Quoted\\" first"'),
    ])
    def test_a_text_is_quoted_only_when_it_would_not_read_as_one_line(self, text: str, shown: str) -> None:
        """A message's text runs to the end of its line; a line break, or a leading quote, makes it a JSON string."""
        assert line_text(text) == shown

    @pytest.mark.parametrize("role, speaker, who", [
        ("user", "Ana", "Ana"), ("user", None, "user"), ("assistant", "Max", "assistant/Max"),
        ("tool", None, "tool"), ("user", "tool", "user/tool"), ("user", "a/b", "user/a/b"),
    ])
    def test_a_named_person_is_shown_by_name_alone(self, role: str, speaker: str | None, who: str) -> None:
        """`Ana` is a user line of Ana's; any other line keeps its role, and a name that reads as a role its `user/`."""
        assert line_who(schemas.Line(id="m", at=AT, role=role, speaker=speaker, text="x")) == who

    def test_a_line_shows_its_time_only_when_the_minute_changes(self) -> None:
        """Lines said in the same minute as the line before leave the time out; a new day heading shows it again."""
        assert render_lines(LINES[:3], "UTC").split("\n") == [
            "2025-03-29 (Sat) +00:00", "[1] 22:10 Ana: I moved to Lyon: the flat is great.",
            '[2] Ben: She said "finally" and laughed.', '[3] 22:11 assistant/Max: "Noted.\\nAnything else?"']
        late = [LINES[0], LINES[0].model_copy(update={"at": AT + timedelta(hours=2)})]
        assert render_lines(late, "UTC").split("\n")[-2:] == ["2025-03-30 (Sun) +00:00", "[2] 00:10 Ana: "
                                                              "I moved to Lyon: the flat is great."]


class TestWhatIsLeftOut:
    def test_an_empty_known_section_and_the_default_zone_are_not_written(self) -> None:
        """No known facts, contacts or tasks: no section at all; a UTC scope: no `time zone:` line."""
        bare = schemas.BatchRequest(scope="s", messages=LINES[:1], neighbours=[], known_contacts=[], open_tasks=[])
        assert _render(bare) == "messages:\n2025-03-29 (Sat) +00:00\n[1] 22:10 Ana: I moved to Lyon: the flat is great."
        zoned = _render(bare.model_copy(update={"timezone": "Europe/Paris", "open_tasks": TASKS[:1]}))
        assert zoned.startswith("time zone: Europe/Paris\nopen tasks:\nT1 Send the report (due 2025-04-01)\nmessages:\n")

    def test_the_merge_judge_reads_facts_without_ids_or_scores(self) -> None:
        """A cluster is `F1 text` lines in the order given; stored ids and similarities are not sent."""
        request = schemas.ClusterRequest(scope="s", facts=FACTS)
        assert _render(request) == "facts:\nF1 Ana likes tea\nF2 Ana lives in Porto (2025-01-02)."
        assert [(f.id, f.text) for f in parse_request("judge_cluster", _render(request)).facts] == [
            ("F1", "Ana likes tea"), ("F2", "Ana lives in Porto (2025-01-02).")]


class TestRepliesLeaveDefaultsOut:
    def test_cited_lines_are_written_as_lines_and_read_under_either_name(self) -> None:
        """The tool schema names `source_ids` `lines` (shorter, repeated per item); both names validate,
        Python code reads `source_ids`."""
        for cls in (schemas.FactCandidate, schemas.ContactUpdate, schemas.TaskChange):
            assert "lines" in cls.model_json_schema()["properties"]
            assert "source_ids" not in cls.model_json_schema()["properties"]
        fact = schemas.FactCandidate.model_validate({"text": "x", "lines": ["3"]})
        assert fact.source_ids == ["3"] == schemas.FactCandidate.model_validate({"text": "x", "source_ids": ["3"]}).source_ids
        assert fact.model_dump(by_alias=True, exclude_defaults=True) == {"text": "x", "lines": ["3"]}
        with pytest.raises(ValidationError):
            schemas.FactCandidate.model_validate({"text": "x", "lines": ["3"], "sources": ["4"]})


    def test_an_ordinary_fact_is_its_text_and_sources(self) -> None:
        """importance 5 and topic events are the defaults: an ordinary dated event needs neither field."""
        fact = schemas.FactCandidate.model_validate({"text": "Ana moved to Lyon (2025-03-29).", "source_ids": ["1"]})
        assert (fact.importance, fact.topic, fact.op) == (5, "events", "ADD")
        assert fact.model_dump(exclude_defaults=True) == {"text": "Ana moved to Lyon (2025-03-29).",
                                                          "source_ids": ["1"]}
        rare = schemas.FactCandidate(text="Ana is allergic to nuts.", importance=10, topic="health", source_ids=["2"])
        assert rare.model_dump(exclude_defaults=True)["topic"] == "health"

    def test_a_batch_reply_may_leave_out_its_empty_tasks(self) -> None:
        """tasks defaults to none (most batches open or close no task); facts and contacts stay required."""
        assert schemas.BatchReply.model_validate({"facts": [], "contacts": []}).tasks == []
        assert set(schemas.BatchReply.model_json_schema()["required"]) == {"facts", "contacts"}

    @pytest.mark.parametrize("operation", list(_SPECS))
    def test_tool_schemas_keep_every_field_but_no_title(self, operation: str) -> None:
        """pydantic's `title` keywords are gone; every property (a task's `title` among them) stays."""
        spec = _SPECS[operation]
        schema, full = spec.tool_param["input_schema"], spec.reply.model_json_schema()

        def titles(node: Any) -> int:
            if isinstance(node, dict):
                return sum(k == "title" and isinstance(v, str) for k, v in node.items()) + sum(map(titles, node.values()))
            return sum(map(titles, node)) if isinstance(node, list) else 0

        assert titles(schema) == 0 < titles(full)
        assert schema["properties"].keys() == full["properties"].keys()
        for name, definition in full.get("$defs", {}).items():
            assert schema["$defs"][name]["properties"].keys() == definition["properties"].keys()
