"""OfflineModel: the deterministic rule-based backend, operation by operation."""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest

from consolidator.domain import estimate_tokens
from consolidator.model.base import Model
from consolidator.model.offline.model import OfflineModel
from consolidator.model.offline.parse import parse_text
from consolidator.model.offline.summarise import ELLIPSIS, extractive_summary
from consolidator.model.offline.text import sentences
from consolidator.model.schemas import (
    Attachment,
    ClusterRequest,
    ContactsRequest,
    FactExtractionRequest,
    KnownContact,
    KnownFact,
    KnownTask,
    Line,
    SummarizeRequest,
    SummaryInput,
    TasksRequest,
)
from tests.support.offline_kit import chat

MODEL = OfflineModel()
AT = datetime(2025, 3, 5, 9, 30)  # a Wednesday
STORE = [
    KnownFact(id="f0", text="Maya is vegetarian.", similarity=0.71),
    KnownFact(id="f1", text="Maya has a serious peanut allergy.", similarity=0.62),
    KnownFact(id="f2", text="Maya lives in London.", similarity=0.85),
    KnownFact(id="f3", text="Maya is training for the Berlin marathon in September.", similarity=0.64),
]


def line(text: str, role: str = "user", speaker: str | None = "Maya", i: int = 0, at: datetime = AT) -> Line:
    return Line(id=f"m{i}", at=at, role=role, speaker=speaker, text=text)


def lines(*texts: str, **kw) -> list[Line]:
    return [line(t, i=i, **kw) for i, t in enumerate(texts)]


def facts(*texts: str, neighbours: list[KnownFact] = STORE, **kw):
    return MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines(*texts, **kw), neighbours=neighbours)).facts


def tasks(*texts: str, open_tasks: list[KnownTask] = (), **kw):
    return MODEL.update_tasks(TasksRequest(scope="s", messages=lines(*texts, **kw), open_tasks=list(open_tasks))).changes


def contacts(*texts: str, known: list[KnownContact] = (), **kw):
    return MODEL.update_contacts(ContactsRequest(scope="s", messages=lines(*texts, **kw), known=list(known))).contacts


def test_offline_model_is_a_model_named_offline():
    """OfflineModel satisfies the Model protocol under the name 'offline'."""
    assert isinstance(MODEL, Model) and MODEL.name == "offline"


# --- facts: the seed acceptance case -------------------------------------------------------

THIRD = {
    "move": "Maya moved from London to Paris last month.",
    "diet": "Maya is vegetarian.",
    "cat": "Maya adopted a cat named Miso.",
    "knee": "Maya injured her knee and is no longer training for the marathon.",
}
FIRST = {
    "move": "I moved from London to Paris last month.",
    "diet": "I'm vegetarian.",
    "cat": "I adopted a cat named Miso.",
    "knee": "I injured my knee and I'm no longer training for the marathon.",
}


@pytest.mark.parametrize("said", [THIRD, FIRST], ids=["third-person", "first-person"])
@pytest.mark.parametrize(
    ("key", "op", "target", "text"),
    [
        ("move", "UPDATE", "f2", "Maya lives in Paris."),
        ("diet", "NOOP", "f0", "Maya is vegetarian."),
        ("cat", "ADD", None, "Maya adopted a cat named Miso."),
        ("knee", "UPDATE", "f3", "Maya is no longer training for the marathon."),
    ],
)
def test_seed_candidates_get_the_seed_decisions(said, key, op, target, text):
    """Each seed message yields the seed's op and target, with a third-person text naming Maya."""
    got = [(f.op, f.target_id, f.text) for f in facts(said[key])]
    assert (op, target, text) in got


@pytest.mark.parametrize("said", [THIRD, FIRST], ids=["third-person", "first-person"])
def test_seed_batch_touches_each_stored_fact_at_most_once(said):
    """The four seed messages as one batch: one UPDATE per stored fact, London never kept alongside Paris."""
    got = facts(*said.values())
    targets = [f.target_id for f in got if f.op in ("UPDATE", "DELETE")]
    assert sorted(targets) == ["f2", "f3"]
    assert [f.op for f in got if f.target_id == "f0"] == ["NOOP"]
    assert not any("London" in f.text for f in got if f.op == "ADD")
    assert all(f.source_ids for f in got)


def test_first_person_without_speaker_is_the_user():
    """'I' with no speaker resolves to 'The user'."""
    assert [f.text for f in facts("I live in Berlin.", speaker=None, neighbours=[])] == ["The user lives in Berlin."]


@pytest.mark.parametrize(
    ("text", "op", "target"),
    [
        ("Maya does not live in London.", "DELETE", "f2"),  # retraction without replacement
        ("Maya no longer lives in London.", "UPDATE", "f2"),  # a change: supersede with the new truth
        ("Maya is training for the marathon.", "NOOP", "f3"),  # less detail than stored
        ("Maya is vegan.", "UPDATE", "f0"),  # single-valued diet, new value
        ("Maya is allergic to shellfish.", "ADD", None),  # allergies are many-valued
        ("Maya has a peanut allergy.", "NOOP", "f1"),
    ],
)
def test_op_decisions_against_neighbours(text, op, target):
    """Op choice follows subject/attribute/value against the neighbours."""
    got = facts(text)
    assert (got[0].op, got[0].target_id) == (op, target)


def test_later_value_in_a_batch_wins_and_inherits_the_change():
    """'I quit my job at Acme. I now work at Globex.' is one UPDATE of the Acme fact, citing both lines."""
    got = facts("I quit my job at Acme last week.", "I now work at Globex.",
                neighbours=[KnownFact(id="w", text="Maya works at Acme.")])
    assert [(f.op, f.target_id, f.text, f.source_ids) for f in got] == [
        ("UPDATE", "w", "Maya works at Globex.", ["m0", "m1"])
    ]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I work at Acme as an engineer.", ["Maya works at Acme.", "Maya works as an engineer."]),
        ("I work as a nurse.", ["Maya works as a nurse."]),
        ("I work as a data analyst for Bank of Spain.", ["Maya works as a data analyst.", "Maya works at Bank of Spain."]),
        ("They hired me as a barista at Blue Bottle!", ["Maya works as a barista.", "Maya works at Blue Bottle."]),
        ("My boss promoted me to senior analyst.", ["Maya was promoted to senior analyst."]),
        ("I work as a teacher at the local school.", ["Maya works as a teacher at the local school."]),  # no name, no employer
        ("I just turned forty-two!", ["Maya is forty-two years old."]),
        ("I started working as a pilot.", ["Maya works as a pilot."]),
        ("I began working at Acme.", ["Maya works at Acme."]),
        ("I'm originally from Spain.", ["Maya is from Spain."]),
        ("My dog Rex is sick.", ["Maya has a dog named Rex."]),
        ("Pip is my dog.", ["Maya has a dog named Pip."]),
        ("We adopted a kitten! Her name is Mochi.", ["Maya adopted a kitten.", "Maya has a kitten named Mochi."]),
        ("I can't eat gluten, so please no pasta recipes.", ["Maya cannot eat gluten."]),  # avoids: gluten
        ("I don't drink alcohol.", ["Maya does not drink alcohol."]),  # avoids: alcohol
        ("My sister Ana is a nurse and she lives in Rome.", ["Ana is Maya's sister.", "Ana is a nurse.", "Ana lives in Rome."]),
        ("Ana is my cousin.", ["Ana is Maya's cousin."]),
        ("I'm training for the Berlin marathon in September.", ["Maya is training for the Berlin marathon in September."]),
        ("I'm learning Japanese.", ["Maya is learning Japanese."]),
        ("I love sushi so much!", ["Maya loves sushi."]),
        ("I don't like olives.", ["Maya does not like olives."]),
        ("I don't eat meat anymore.", ["Maya does not eat meat anymore."]),
        ("I quit smoking.", ["Maya quit smoking."]),
        ("My favourite band is Muse.", ["Maya's favourite band is Muse."]),
        ("My favourite movie of all time is Jaws.", ["Maya's favourite movie is Jaws."]),  # a time phrase: no part of it
        ("I'm 30.", ["Maya is 30 years old."]),
        ("I'm diabetic.", ["Maya is diabetic."]),
        ("I love that idea!", []),  # deictic: meaningless without context
        ("I'm not sure.", []),
        ("Paris is lovely in spring.", []),
    ],
)
def test_fact_patterns(said, expected):
    """Each supported pattern gives its third-person fact texts, and idle talk gives none."""
    assert [f.text for f in facts(said, neighbours=[])] == expected


@pytest.mark.parametrize(
    "text", ["I'm allergic to peanuts.", "Maya has a serious peanut allergy.", "I have a severe allergy to penicillin."]
)
def test_allergies_are_critical_and_important(text):
    """An allergy is critical with importance 9-10 and topic health."""
    (f,) = facts(text, neighbours=[])
    assert f.critical and f.importance >= 9 and f.topic == "health"


@pytest.mark.parametrize("role", ["tool", "action", "system"])
def test_non_person_lines_never_produce_facts_tasks_or_contacts(role):
    """Tool, action and system lines say things no fact, task or contact comes from."""
    said = ("I live in Paris and I'm allergic to peanuts. Remind me to call Tom. "
            "My sister Ana is a nurse. I sent the report.")
    kw = {"role": role, "speaker": "Maya"}
    assert facts(said, neighbours=[], **kw) == []
    assert tasks(said, open_tasks=[KnownTask(id="t", title="Send the report")], **kw) == []
    assert contacts(said, **kw) == []


@pytest.mark.parametrize(("speaker", "produces"), [(None, False), ("assistant", False), ("agent", False), ("Ana", True)])
def test_assistant_lines_count_only_when_relaying_a_person(speaker, produces):
    """Role assistant is a person only with a speaker other than assistant/agent."""
    got = facts("I live in Madrid.", role="assistant", speaker=speaker, neighbours=[])
    assert bool(got) is produces


def test_facts_use_only_words_from_the_messages():
    """Apart from the subject and a few template verbs, every fact word was said."""
    said = ["I moved to Lisbon in May.", "My brother Leo works at Acme Bank.", "I adopted a dog named Rex.",
            "I hate mornings.", "I'm learning Portuguese.", "I stopped drinking coffee."]
    template = {"maya", "lives", "in", "works", "at", "is", "has", "a", "named", "their", "s", "hates", "learning"}
    spoken = {w.lower() for w in re.findall(r"[A-Za-z]+", " ".join(said))}
    for f in facts(*said, neighbours=[]):
        invented = {w.lower() for w in re.findall(r"[A-Za-z]+", f.text)} - spoken - template
        assert not invented, (f.text, invented)


# --- judge_cluster -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "merge", "text"),
    [
        (["Maya is vegetarian.", "Maya is a vegetarian"], True, "Maya is a vegetarian"),
        (["Maya is training for the marathon.", "Maya is training for the Berlin marathon in September."],
         True, "Maya is training for the Berlin marathon in September."),
        (["uses vim", "uses emacs"], False, None),
        (["Maya is 30", "Maya is 31"], False, None),
        (["Maya lives in London.", "Maya lives in Paris."], False, None),
        (["Maya likes sushi.", "Maya no longer likes sushi."], False, None),
        (["Maya has a cat.", "Ana has a cat."], False, None),
        (["Maya is vegetarian."], False, None),
    ],
)
def test_judge_cluster_merges_only_agreeing_facts(texts, merge, text):
    """Merge only when members agree; the merged text is the most informative member, verbatim."""
    req = ClusterRequest(scope="s", facts=[KnownFact(id=f"k{i}", text=t) for i, t in enumerate(texts)])
    reply = MODEL.judge_cluster(req)
    assert (reply.merge, reply.text) == (merge, text)
    assert reply.reason


# --- summaries ------------------------------------------------------------------------------------

INPUTS = [
    "Maya: I moved from London to Paris last month. The weather was nice. Ok.",
    "Assistant: Noted that you moved to Paris. Anything else?",
    "Maya: I'm allergic to peanuts, remember that. Paris is lovely in spring.",
    "Maya: Remind me to call the dentist on Friday. The dentist is in Paris.",
]


@pytest.mark.parametrize("budget", [1, 2, 3, 5, 8, 13, 21, 34, 55, 1000])
def test_summary_never_exceeds_budget_and_only_copies_input(budget):
    """Within budget; every sentence, or part of a cut one (parts joined by an ellipsis, a cut edge
    marked by one), is copied from an input."""
    req = SummarizeRequest(scope="s", ladder="count", rung="10", window_label="w", budget_tokens=budget,
                           inputs=[SummaryInput(id=f"i{n}", label=str(n), text=t) for n, t in enumerate(INPUTS)])
    out = MODEL.summarize(req).text
    assert estimate_tokens(out) <= budget
    for part in out.split(ELLIPSIS):
        for sentence in sentences(part):
            assert any(sentence.strip("…") in text for text in INPUTS), sentence


def test_summary_prefers_the_central_topic_under_a_tight_budget():
    """With room for one sentence, it is about what the inputs keep returning to (the move to Paris)."""
    out = extractive_summary(INPUTS, 12)
    assert "Paris" in out and "Ok." not in out


# --- tasks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "title", "due"),
    [
        ("Remind me to call the dentist on Friday.", "Call the dentist", date(2025, 3, 7)),
        ("Can you book a table at Luigi's for tomorrow?", "Book a table at Luigi's", date(2025, 3, 6)),
        ("I need to send the report to Tom by 2025-03-10.", "Send the report to Tom", date(2025, 3, 10)),
        ("todo: renew passport by March 10", "Renew passport", date(2025, 3, 10)),
        ("I have to pay rent by March 1.", "Pay rent", date(2026, 3, 1)),  # already past: next year
        ("Please water the plants tonight", "Water the plants", date(2025, 3, 5)),
        ("Remind me to call Ana on Wednesday", "Call Ana", date(2025, 3, 12)),  # today is Wednesday: next one
        ("I need to buy milk.", "Buy milk", None),
    ],
)
def test_requests_open_tasks_with_plain_due_dates(said, title, due):
    """A request opens one task, title normalised, due resolved against the message date."""
    assert [(c.op, c.title, c.due, c.source_ids) for c in tasks(said)] == [("open", title, due, ["m0"])]


def test_reminder_asked_as_a_question_opens_the_errand():
    """'Can you remind me to X?' opens X, not 'Remind me to X'; other questions open nothing."""
    assert [c.title for c in tasks("Can you remind me to water the plants?")] == ["Water the plants"]
    assert tasks("Do I need to bring anything?") == []


@pytest.mark.parametrize("said", ["Can you tell me the weather?", "I have to say, that was great.", "I need to know why."])
def test_questions_and_figures_of_speech_open_nothing(said):
    """Requests for information and idioms are not tasks."""
    assert tasks(said) == []


OPEN = [KnownTask(id="t1", title="Buy flowers for mom"), KnownTask(id="t2", title="Send the report to Tom"),
        KnownTask(id="t3", title="Call the dentist"), KnownTask(id="t4", title="Write the report")]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I sent the report.", [("done", "t2")]),
        ("The report is done.", [("done", "t2")]),
        ("Done: call the dentist", [("done", "t3")]),
        ("I bought the flowers", [("done", "t1")]),
        ("Cancel the reminder to call the dentist", [("cancelled", "t3")]),
        ("No need to buy flowers for mom any more", [("cancelled", "t1")]),
        ("Never mind the flowers.", [("cancelled", "t1")]),
        ("I called mom", []),  # shares only 'mom' and a different verb
        ("Did I send the report?", []),  # a question closes nothing
        ("Remind me to call the dentist.", []),  # already open: no second copy
    ],
)
def test_done_and_cancel_match_open_tasks_by_words(said, expected):
    """Done/cancel name the open task they match, and nothing when none matches."""
    assert [(c.op, c.task_id) for c in tasks(said, open_tasks=OPEN)] == expected


def test_a_tool_reporting_success_does_not_close_a_task():
    """'Booked the table' from a tool leaves the task open; the person saying it closes it."""
    open_tasks = [KnownTask(id="t", title="Book a table at Luigi's")]
    msgs = [line("Booked the table at Luigi's.", role="tool", speaker=None, i=0)]
    req = TasksRequest(scope="s", messages=msgs, open_tasks=open_tasks)
    assert MODEL.update_tasks(req).changes == []
    assert [(c.op, c.task_id) for c in tasks("I booked the table at Luigi's.", open_tasks=open_tasks)] == [("done", "t")]


def test_task_opened_and_done_in_one_batch_is_opened_then_closed():
    """Opened, then done by its title (it netted out: no trace even in `tasks --all`); no reopening."""
    assert [(c.op, c.title) for c in tasks("Remind me to email Ana.", "Remind me to email Ana!", "I emailed Ana.")
            ] == [("open", "Email Ana"), ("done", "Email Ana")]
    assert [c.title for c in tasks("Remind me to email Ana.", "Remind me to email Ana!")] == ["Email Ana"]


# --- contacts ------------------------------------------------------------------------------------


def test_contacts_merge_aliases_and_send_only_changed_details():
    """'Ana' and 'Ana Lopez' are one known contact; only the changed home is sent, with a new biography."""
    known = [KnownContact(name="Ana", details={"home": "Rome", "relation": "Maya's sister"},
                          biography="Ana is Maya's sister. Ana lives in Rome.")]
    got = {c.name: c for c in contacts("My sister Ana lives in Rome.", "Ana Lopez moved to Madrid.", known=known)}
    ana = got["Ana"]
    assert ana.aliases == ["Ana Lopez"]
    assert ana.details == {"home": "Madrid"}
    assert ana.biography == "Ana is Maya's sister. Ana Lopez lives in Madrid."
    assert "Madrid" in ana.summary and ana.source_ids == ["m1"]  # the line that says it, not every mention


def test_a_contact_update_lists_only_new_aliases():
    """A known alias ('Annie') is not sent again; a new form of the name ('Ana Lopez') is."""
    known = [KnownContact(name="Ana", aliases=["Annie"], details={"home": "Rome"})]
    ana = {c.name: c for c in contacts("My sister Annie lives in Rome.", "Ana Lopez moved to Madrid.", known=known)}["Ana"]
    assert ana.aliases == ["Ana Lopez"] and ana.details["home"] == "Madrid"
    same = {c.name: c for c in contacts("Annie moved to Madrid.", known=known)}["Ana"]
    assert same.aliases == [] and same.details == {"home": "Madrid"}


def test_a_contact_update_cites_the_lines_it_rests_on_not_every_line_of_the_person():
    """Ana speaks in five lines and one says where she works: only that line is cited (it dates the detail)."""
    said = ["Hi!", "How are you?", "I started working at Acme last week.", "Anyway.", "Bye!"]
    got = {c.name: c for c in contacts(*said, speaker="Ana")}
    ana = got["Ana"]
    assert ana.source_ids == ["m2"] and "Acme" in ana.summary


def test_ended_detail_is_cleared():
    """'No longer training' clears the known training detail (sent as '')."""
    known = [KnownContact(name="Maya", details={"training": "the Berlin marathon"})]
    (maya,) = contacts("I'm no longer training for the marathon.", known=known)
    assert maya.details == {"training": ""}


def test_new_people_come_from_speakers_relations_mentions_and_people_verbs():
    """Speakers, 'my sister Ana', '@tom' and 'lunch with Leo Park' become contacts, with details."""
    got = {c.name: c for c in contacts("My sister Ana is a nurse.", "Lunch with Leo Park, cc @tom.")}
    assert list(got) == ["Maya", "Ana", "Leo Park", "Tom"]
    assert got["Ana"].details == {"relation": "Maya's sister", "job": "a nurse"}
    assert got["Ana"].biography == "Ana is Maya's sister. Ana is a nurse."


def test_capitalised_common_words_are_not_contacts():
    """Sentence starts, days, months and places do not become people."""
    got = contacts("Monday was busy. In March we went to Paris. Paris is lovely. Yesterday I met Tom.")
    assert sorted(c.name for c in got) == ["Maya", "Tom"]


def test_biography_is_bounded():
    """A long known biography plus new details stays within about sixty words."""
    long_bio = " ".join(f"Ana visited place number {i}." for i in range(30))
    (ana,) = [c for c in contacts("Ana moved to Oslo.", known=[KnownContact(name="Ana", biography=long_bio)])
              if c.name == "Ana"]
    assert ana.biography.endswith("Ana lives in Oslo.") and len(ana.biography.split()) <= 60


def test_a_listed_detail_adds_to_the_biography_and_a_new_job_replaces_the_old():
    """Likes accumulate ('hiking' stays when 'pottery' comes); a job is single-valued (the old one goes)."""
    known = [KnownContact(name="Maya", details={"likes": "hiking", "job": "a nurse"},
                          biography="Maya loves hiking. Maya is a nurse.")]
    (maya,) = contacts("I love pottery.", "I became a teacher.", known=known)
    assert maya.details == {"likes": "hiking; pottery", "job": "a teacher"}
    assert maya.biography == "Maya loves hiking. Maya loves pottery. Maya is a teacher."


def test_the_running_summary_tells_what_the_person_did_before_what_they_said():
    """A plain event ('went to a pottery workshop') beats a rarer-worded remark reported in their
    name ('Maya said: The chandelier adds ...'): the summary says what is new about the person."""
    remark = "The chandelier adds a glamorous Venetian sparkle to the boutique."
    (maya,) = contacts(remark, "I went to a pottery workshop.")
    assert maya.summary == "Maya went to a pottery workshop."
    (only,) = contacts(remark)
    assert only.summary.startswith("Maya said: The chandelier")  # a remark is still better than nothing


def test_a_taste_or_lesson_that_points_at_the_context_is_no_detail():
    """'I enjoy the taste of these' (of what?) and 'I'm learning a ton' (of what?) give no detail;
    'I enjoy the taste of ginger' does."""
    assert contacts("I enjoy the taste of these.", "I'm learning a ton.")[0].details == {}
    assert contacts("I enjoy the taste of ginger.")[0].details == {"likes": "the taste of ginger"}


def test_a_taste_shared_with_each_other_is_no_detail_of_one_person():
    """'We just enjoy each other's company' said by Maya is no taste of Maya's ("Maya enjoys
    each other's company" says nothing): no "likes" detail, and no fact of its own; 'We enjoy
    long walks' is one."""
    assert contacts("We just enjoy each other's company.")[0].details == {}
    written = [f.text for f in facts("We roast marshmallows by the fire and just enjoy each other's company.")]
    assert written and not any(t.startswith("Maya enjoys each other") for t in written)
    assert contacts("We enjoy long walks.")[0].details == {"likes": "long walks"}


def test_loving_the_things_in_the_other_persons_photo_is_praise_not_a_taste():
    """Ana shares a photo; "I love the colours and love theme" praises what it shows: no taste of
    Tomas's, in his card or his facts. A taste said to a photo without pointing at it ("I love
    ginger snaps"), and "I love the beach" said to no photo, stay tastes."""
    photo = [Attachment(kind="image", caption="a painting of a sunset over the sea")]

    def tastes(reply: str, shared: bool = True) -> tuple[dict, list[str]]:
        lines = chat(("Ana", "I finished my painting last night!"), ("Tomas", reply))
        if shared:
            lines[0] = lines[0].model_copy(update={"attachments": photo})
        (card,) = [c for c in OfflineModel().update_contacts(
            ContactsRequest(scope="s", messages=lines, known=[])).contacts if c.name == "Tomas"] or [None]
        facts_of = [f.text for f in OfflineModel().extract_facts(
            FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts]
        return (card.details if card else {}), [t for t in facts_of if "loves" in t]

    assert tastes("Wow, that's gorgeous! I love the colours and love theme.") == ({}, [])
    assert tastes("Wow! I love all the yellow leaves.") == ({}, [])
    assert tastes("Looks great! I love ginger snaps.")[0] == {"likes": "ginger snaps"}
    assert tastes("I love the beach.", shared=False)[0] == {"likes": "the beach"}


# --- determinism ---------------------------------------------------------------------------------


def test_same_request_same_reply():
    """Every operation returns identical replies for identical requests."""
    said = list(THIRD.values()) + ["My sister Ana is a nurse.", "Remind me to call Ana on Friday."]
    msgs = lines(*said)
    for call, req in [
        (MODEL.extract_facts, FactExtractionRequest(scope="s", messages=msgs, neighbours=STORE)),
        (MODEL.update_contacts, ContactsRequest(scope="s", messages=msgs, known=[])),
        (MODEL.update_tasks, TasksRequest(scope="s", messages=msgs, open_tasks=OPEN)),
        (MODEL.judge_cluster, ClusterRequest(scope="s", facts=STORE)),
        (MODEL.summarize, SummarizeRequest(scope="s", ladder="time", rung="day", window_label="d", budget_tokens=40,
                                           inputs=[SummaryInput(id="a", label="a", text=" ".join(said))])),
    ]:
        assert call(req).model_dump() == call(req.model_copy(deep=True)).model_dump()
        assert call(req).model_dump() == OfflineModel().__getattribute__(call.__name__)(req).model_dump()


def test_what_someone_cannot_eat_they_avoid_unless_it_is_a_portion():
    assert [(c.attribute, c.value) for c in parse_text("I can't eat gluten.", "Maya")] == [("avoids", "gluten")]
    assert [(c.attribute, c.value) for c in parse_text("I don't drink alcohol.", "Maya")] == [("avoids", "alcohol")]
    assert all(c.attribute != "avoids" for c in parse_text("I can't eat another bite.", "Maya"))


def test_an_ending_the_rules_misread_ends_the_known_value_it_names():
    """"I left Acme" reads as a partner left (the rule cannot tell a company from a name); the known
    "Maya works at Acme" says the employer ended, in the facts and in the contact's details. A
    later ending in the batch ("we broke up") no longer swallows it."""
    store = [KnownFact(id="f3", text="Maya works at Acme.", similarity=0.6),
             KnownFact(id="f4", text="Maya is dating Bruno.", similarity=0.6)]
    said = ("Also I left Acme, I'm freelancing as a translator now.", "Bruno and I broke up, by the way.")
    ops = {(f.op, f.target_id, f.text) for f in facts(*said, neighbours=store)}
    assert {("UPDATE", "f3", "Maya left Acme."), ("UPDATE", "f4", "Maya broke up with Bruno.")} <= ops
    known = [KnownContact(name="Maya", details={"employer": "Acme", "partner": "dating Bruno"})]
    (maya,) = contacts(*said, known=known)
    assert maya.details == {"employer": "", "partner": ""}
