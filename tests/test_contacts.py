"""Contacts: created with aliases, details with history, biography and summary, grounding, scopes."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from consolidator.model.schemas import ContactsReply, ContactUpdate
from consolidator.core.app import open_app
from consolidator.core.config import ScopeSettings, Settings
from stores.contacts import SUMMARY_CHARS, append_summary
from tests.support.memory_kit import Memory, RecordingModel, ScriptedModel


@pytest.fixture
def memory(app) -> Memory:
    return Memory(app)


def current(memory: Memory, scope: str, name: str) -> dict[str, str]:
    contact = next(c for c in memory.contacts(scope) if c.name == name)
    return {d.key: d.value for d in memory.details(scope) if d.contact_id == contact.id and d.valid_to is None}


class TestCreation:
    def test_contact_gets_its_full_name_and_the_short_form_as_alias(self, memory: Memory) -> None:
        """'Ana Lopez' then 'Ana' make one contact named Ana Lopez with alias Ana and both details."""
        memory.say("maya", "user: My friend Ana Lopez works at Google.")
        memory.say("maya", "user: Ana lives in Madrid.")
        [ana] = memory.contacts("maya")
        assert ana.name == "Ana Lopez"
        assert [a.lower() for a in ana.aliases] == ["ana"]
        assert current(memory, "maya", "Ana Lopez") == {
            "relation": "the user's friend", "employer": "Google", "home": "Madrid"
        }
        snapshot = memory.snapshot("maya", "contacts.json")
        assert snapshot["scope"] == "maya"
        assert snapshot["contacts"][0]["name"] == "Ana Lopez"
        assert snapshot["contacts"][0]["details"]["home"] == "Madrid"

    def test_people_named_after_people_verbs_become_contacts(self, memory: Memory) -> None:
        """'I had lunch with Tom Baker' creates Tom Baker, with the sentence as his summary."""
        ids = memory.say("maya", "user: I had lunch with Tom Baker.")
        [tom] = memory.contacts("maya")
        assert tom.name == "Tom Baker"
        assert "lunch with Tom Baker" in tom.summary
        assert tom.sources == ids


class TestHistory:
    def test_changed_job_supersedes_the_old_detail_and_keeps_it(self, memory: Memory) -> None:
        """A new job closes the old row (valid_to, superseded_by) and adds the new one."""
        memory.say("maya", "user: Ana works as a nurse.")
        memory.say("maya", "user: Ana now works as a teacher.")
        jobs = [d for d in memory.details("maya") if d.key == "job"]
        assert [d.value for d in jobs] == ["a nurse", "a teacher"]
        old, new = jobs
        assert old.valid_to is not None and old.superseded_by == new.id
        assert new.valid_to is None and new.valid_from >= old.valid_from
        assert old.valid_to == new.valid_from
        assert current(memory, "maya", "Ana")["job"] == "a teacher"

    def test_an_unchanged_detail_adds_no_row(self, memory: Memory) -> None:
        """Saying the same job again leaves exactly one open row."""
        memory.say("maya", "user: Ana works as a nurse.")
        memory.say("maya", "user: Ana works as a nurse. Ana is great.")
        assert [(d.value, d.valid_to) for d in memory.details("maya") if d.key == "job"] == [("a nurse", None)]

    def test_biography_and_summary_are_refreshed_each_batch(self, memory: Memory) -> None:
        """The biography follows the new job; the running summary keeps both batches, dated, in the third person."""
        memory.say("maya", "user: Ana works as a nurse.")
        memory.say("maya", "user: Ana now works as a teacher.")
        [ana] = memory.contacts("maya")
        assert "teacher" in ana.biography and "nurse" not in ana.biography
        assert ana.summary.split("\n") == ["2025-03-03: Ana works as a nurse.", "2025-03-03: Ana works as a teacher."]
        assert ana.summary.startswith("2025-03-03: ")

    @pytest.mark.slow
    def test_running_summary_keeps_the_newest_text_within_its_bound(self, app) -> None:
        """After many long batch summaries the running summary is <= its bound and ends with the newest."""
        n = {"i": 0}

        def reply(request):
            n["i"] += 1
            text = f"batch {n['i']} " + "word " * 60
            return ContactsReply(contacts=[ContactUpdate(name="Ana", summary=text, source_ids=[request.messages[0].id])])

        memory = Memory(app, ScriptedModel(contacts=reply))
        for i in range(12):
            memory.say("maya", f"user: Ana said thing {i}.")
        [ana] = memory.contacts("maya")
        assert len(ana.summary) <= SUMMARY_CHARS
        assert "batch 12 " in ana.summary and "batch 1 " not in ana.summary
        assert not ana.summary.startswith(" ")

    @pytest.mark.parametrize(
        "running, addition, limit, expected",
        [
            ("", "one two", 100, "one two"),
            ("one two", "three", 100, "one two\nthree"),
            ("alpha beta", "gamma", 10, "beta\ngamma"),  # exactly the newest 10 chars, whole words
            ("alpha beta", "gamma", 9, "gamma"),  # the newest 9 would start inside "beta"
            ("alpha beta", "  ", 10, "alpha beta"),
        ],
    )
    def test_append_summary_cuts_at_a_word_boundary(self, running, addition, limit, expected) -> None:
        """The running summary drops its oldest words whole, never half a word."""
        assert append_summary(running, addition, limit) == expected


class TestLocalDates:
    def test_a_summary_said_at_half_past_midnight_in_paris_is_dated_that_tuesday(self, state_dir) -> None:
        """Monday 23:30 UTC is Tuesday 00:30 in Paris: a Paris scope dates it Tuesday, a UTC scope Monday."""
        settings = Settings(state_dir=state_dir, scopes={"maya": ScopeSettings(timezone="Europe/Paris")})
        reply = lambda r: ContactsReply(contacts=[  # noqa: E731
            ContactUpdate(name="Ana", summary="Ana started a new job.", source_ids=[r.messages[0].id])])
        model = ScriptedModel(contacts=reply)
        app = open_app(settings)
        try:
            memory = Memory(app, model)
            for scope in ("maya", "omar"):
                memory.clock = datetime(2025, 3, 3, 23, 29, tzinfo=timezone.utc)  # said at 23:30 UTC, a Monday
                memory.say(scope, "user: Ana started a new job.")
            [maya], [omar] = memory.contacts("maya"), memory.contacts("omar")
        finally:
            app.close()
        assert maya.summary == "2025-03-04: Ana started a new job."
        assert omar.summary == "2025-03-03: Ana started a new job."
        assert [r.timezone for r in model.contacts] == ["Europe/Paris", "UTC"]


    def test_the_history_command_shows_a_former_values_local_days(self, state_dir, tmp_path, run_cli) -> None:
        """`contacts --history` dates a former value by the Paris days it held, not the UTC days."""
        (tmp_path / "config.toml").write_text('[scopes.maya]\ntimezone = "Europe/Paris"\n')
        script = iter([{"employer": "Google"}, {"employer": "Meta"}])
        reply = lambda r: ContactsReply(contacts=[  # noqa: E731
            ContactUpdate(name="Ana", details=next(script), source_ids=[r.messages[0].id])])
        app = open_app(Settings(state_dir=state_dir, scopes={"maya": ScopeSettings(timezone="Europe/Paris")}))
        try:
            memory = Memory(app, ScriptedModel(contacts=reply))
            for day in (3, 5):  # 23:30 UTC on Monday 3 and Wednesday 5 March
                memory.clock = datetime(2025, 3, day, 23, 29, tzinfo=timezone.utc)
                memory.say("maya", "user: Ana works somewhere new.")
        finally:
            app.close()
        assert "(was) employer: Google [2025-03-04 .. 2025-03-06]" in run_cli("contacts", "--scope", "maya",
                                                                             "--history").stdout

class TestMatching:
    @pytest.mark.slow
    def test_shared_first_name_never_merges_two_people(self, app) -> None:
        """'Ana Smith' is a new contact beside 'Ana Lopez'; a bare 'Ana' both claim is skipped."""
        script = iter([
            [ContactUpdate(name="Ana Lopez", aliases=["Ana"], details={"home": "Madrid"})],
            [ContactUpdate(name="Ana Smith", aliases=["Ana"], details={"home": "Oslo"})],
            [ContactUpdate(name="Ana", details={"home": "Rome"})],
        ])
        memory = Memory(app, ScriptedModel(contacts=lambda r: ContactsReply(contacts=next(script))))
        memory.say("maya", "user: Ana Lopez lives in Madrid.")
        memory.say("maya", "user: Ana Smith lives in Oslo.")
        memory.say("maya", "user: Ana lives in Rome.")
        assert sorted(c.name for c in memory.contacts("maya")) == ["Ana Lopez", "Ana Smith"]
        assert current(memory, "maya", "Ana Lopez") == {"home": "Madrid"}
        assert current(memory, "maya", "Ana Smith") == {"home": "Oslo"}

    def test_an_alias_joins_a_short_name_to_its_full_name(self, app) -> None:
        """A stored 'Ana' and an update 'Ana Lopez' with alias 'Ana' are one person."""
        script = iter([
            [ContactUpdate(name="Ana", details={"home": "Madrid"})],
            [ContactUpdate(name="Ana Lopez", aliases=["Ana"], details={"job": "nurse"})],
        ])
        memory = Memory(app, ScriptedModel(contacts=lambda r: ContactsReply(contacts=next(script))))
        memory.say("maya", "user: Ana lives in Madrid.")
        memory.say("maya", "user: Ana Lopez is a nurse.")
        [ana] = memory.contacts("maya")
        assert ana.name == "Ana" and ana.aliases == ["Ana Lopez"]
        assert current(memory, "maya", "Ana") == {"home": "Madrid", "job": "nurse"}

    def test_only_contacts_the_batch_mentions_are_shown_capped(self, app) -> None:
        """Of 40 stored contacts the model sees the ones named in the batch, at most the cap."""
        names = [f"Person{i} Example" for i in range(40)]
        batches = iter([[ContactUpdate(name=n) for n in names], []])
        model = ScriptedModel(contacts=lambda r: ContactsReply(contacts=next(batches)))
        memory = Memory(app, model)
        memory.consolidator.steps[0].known_cap = 3
        memory.say("maya", "user: " + " ".join(f"met {n}." for n in names))
        memory.say("maya", "user: Person1 and Person2 Example and Person3 Example and Person4 Example came.")
        known = [k.name for k in model.contacts[-1].known]
        assert len(known) == 3
        assert set(known) <= {"Person1 Example", "Person2 Example", "Person3 Example", "Person4 Example"}


class TestGrounding:
    def test_tool_and_action_lines_alone_never_create_a_contact(self, memory: Memory) -> None:
        """Names in tool or action output create no contact with the offline model."""
        memory.say("maya", "tool: Created contact Bob Stone. I had lunch with Bob Stone.",
                   "action: emailed Carla Diaz. Carla Diaz works at Acme.")
        assert memory.contacts("maya") == []

    def test_an_update_citing_only_a_tool_line_is_ignored(self, app) -> None:
        """A model update whose only source is a tool line is dropped; one citing the user is kept."""
        def reply(request):
            tool, user = request.messages
            return ContactsReply(contacts=[
                ContactUpdate(name="Bob Stone", source_ids=[tool.id]),
                ContactUpdate(name="Ana", details={"home": "Madrid"}, source_ids=[user.id]),
                ContactUpdate(name="Zed"),  # no ids, not named by a person: ungrounded
            ])

        memory = Memory(app, ScriptedModel(contacts=reply))
        memory.say("maya", "tool: Bob Stone, Zed", "user: Ana lives in Madrid.")
        assert [c.name for c in memory.contacts("maya")] == ["Ana"]


class TestScopes:
    @pytest.mark.slow
    def test_two_scopes_never_see_each_others_contacts(self, app) -> None:
        """The model gets only the batch scope's contacts, and the stores stay apart."""
        model = RecordingModel()
        memory = Memory(app, model)
        memory.say("maya", "user: Ana Lopez works at Google.")
        memory.say("omar", "user: Ana Lopez works at Meta.")
        memory.say("omar", "user: Ana lives in Rome.")
        memory.say("maya", "user: Ana lives in Madrid.")
        for request in model.contacts:
            for known in request.known:
                assert known.details.get("employer") == {"maya": "Google", "omar": "Meta"}[request.scope]
        assert current(memory, "maya", "Ana Lopez") == {"employer": "Google", "home": "Madrid"}
        assert current(memory, "omar", "Ana Lopez") == {"employer": "Meta", "home": "Rome"}
        assert [r.scope for r in model.contacts if r.known] == ["omar", "maya"]
