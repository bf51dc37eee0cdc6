"""The recall bench (bench/recall.py): its matching rule, and shares on a tiny LoCoMo file worked out by hand."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bench.locomo import load_locomo
from bench.recall import answer_forms, find_data, load_questions, run_conversation, split_evidence
from bench.recall_dates import resolved_answers
from bench.recall_junk import CaseStats, contact_is_junk, fact_is_junk, summary_is_junk, task_is_junk
from bench.recall_match import content_words, covers, vocabulary
from bench.recall_state import bench_settings, provider_of
from consolidator.core.config import LadderSettings, Settings
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder
from consolidator.model.schemas import (
    ClusterReply, ContactsReply, FactCandidate, FactExtractionReply, SummaryReply, TasksReply,
)

# --- the matching rule -------------------------------------------------------------------

MATCHES = [
    # (answer, source text, covered?)
    ("a puppy", "I adopted a puppy last week.", True),  # articles are not content words
    ("Adoption agencies", "She called two adoption agency offices.", True),  # plural -ies vs singular
    ("painting", "Caroline paints landscapes.", True),  # -ing vs -s
    ("She loved hiking", "they love to hike", True),  # -ed, -ing, pronoun dropped
    ("7 May 2023", "session_1: 13:56 on 07 May 2023", True),  # a date: 7, may, 2023
    ("7 May 2023", "it was 7 June 2023", False),  # one date word missing
    ("8 May 2023", "2023-05-08 (Mon) Caroline went out", True),  # an ISO date reads as a date
    (2022, "back in 2022 we moved", True),  # an int answer
    (2022, "back in 2021 we moved", False),
    ("two dogs", "I have 2 dogs", True),  # number words are numbers
    ("the 3rd of June", "on June 3", True),  # ordinals
    ("Sept 2022", "in September 2022", True),  # month abbreviations
    ("Caroline's guinea pig", "Caroline has a guinea pig", True),  # possessive
    ("a red kayak", "I bought a kayak", False),  # a missing word fails the whole answer
    ("Bach and Mozart", "I love Bach", False),
    ("self-care", "Self care matters", True),  # hyphens split
    ("1,000 dollars", "it cost 1000 dollars", True),  # thousands separator
]


@pytest.mark.parametrize("answer, source, expected", MATCHES)
def test_matching_rule(answer: object, source: str, expected: bool) -> None:
    """An answer is covered exactly when every content word (stemmed, numbers and dates normalised) is in the source."""
    assert covers(content_words(answer), vocabulary(source)) is expected


def test_content_words_drop_only_stop_words() -> None:
    """Articles, prepositions, pronouns and auxiliaries go; numbers and month names (even "may") stay."""
    assert content_words("The week before 9 May, 2023") == ["week", "9", "may", "2023"]
    assert content_words("She is going to the park with her kids") == ["go", "park", "kid"]
    assert content_words("of the") == []
    assert not covers(content_words("of the"), vocabulary("of the"))  # no content word: never covered


@pytest.mark.parametrize(
    ("answer", "day"),
    [
        ("The Friday before 15 July 2023", "14 july 2023"),  # the latest Friday strictly before
        ("Saturday after 11 September, 2023.", "16 september 2023"),
        ("Thursday before December 17, 2023.", "14 december 2023"),  # month first
        ("The weekend before 17 July 2023", "15 july 2023"),  # a weekend is its Saturday
        ("two weekends before 17 July 2023", "8 july 2023"),
        ("weekend before 14 October, 2023", "7 october 2023"),  # said on a Saturday: the weekend before it
        ("The week before 9 June 2023", "week of 29 may 2023"),  # weeks start on Monday
        ("The week of 23 August 2023", "week of 21 august 2023"),
        ("3 days before 2 March 2024", "28 february 2024"),  # a leap year
        ("The day after 31 December 2023", "1 january 2024"),
    ],
)
def test_an_answer_counting_from_a_date_names_the_day(answer: str, day: str) -> None:
    """A relative answer is read as the day (or the week) it names, with reldates' conventions."""
    assert resolved_answers(answer) == [day]


@pytest.mark.parametrize("answer", ["A few days before May 24, 2023.", "first week of June 2023", "10 years ago",
                                    "7 May 2023", "The Friday before 31 February 2023"])
def test_vague_absolute_or_impossible_answers_name_no_other_day(answer: str) -> None:
    """Vague amounts, absolute dates and impossible anchors give no alternative."""
    assert resolved_answers(answer) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Caroline went to a council meeting for adoption (2023-07-14).", True),  # the day it names
        ("Last Friday I went to a council meeting (said 15 July 2023).", True),  # the answer's own words
        ("Caroline went to a council meeting for adoption (2023-07-15).", False),  # the day it was said
    ],
)
def test_a_source_holding_the_day_an_answer_names_covers_it(source: str, expected: bool) -> None:
    """"The Friday before 15 July 2023" is covered by its words or by 14 July 2023, not by 15 July alone."""
    forms = answer_forms("The Friday before 15 July 2023")
    assert any(covers(f, vocabulary(source)) for f in forms) is expected


def test_evidence_ids_split_on_semicolons_and_spaces() -> None:
    """Malformed evidence lists become single dia ids; junk that is not an id is dropped."""
    assert split_evidence(["D8:6; D9:17", "D9:1 D4:4", "D2:03", "", "x"]) == ("D8:6", "D9:17", "D9:1", "D4:4", "D2:3")


# --- junk heuristics ---------------------------------------------------------------------

TRANSCRIPT = ["Hey Caroline! Sounds great.", "Thanks, Caroline. That sounds fun, I met Oscar at the park.",
              "Wow, that is lovely. Oh wow.", "Unconditional love is so important."]


@pytest.mark.parametrize("text, junk", [
    ("Caroline has a guinea pig.", False),  # a speaker
    ("Caroline's sister lives in Lisbon.", False),  # possessive of a speaker
    ("Oscar is a painter.", False),  # capitalised mid-sentence in the transcript
    ("Sounds likes your event was amazing.", True),  # lower case in the transcript
    ("Unconditional loves is so important.", True),  # only ever a sentence opener, a common word
    ("I love it.", True),  # a pronoun
    ("it was fun", True),
    ("Last month, Caroline got hurt at the park.", False),  # a fronted time phrase, then the subject
    ("Last month, it was fun.", True),  # the same phrase before a pronoun
    ("Well, sounds likes your event was amazing.", True),
])
def test_fact_subject_heuristic(text: str, junk: bool) -> None:
    """A fact is junk when its leading capitalised words name no person or thing."""
    assert fact_is_junk(text, CaseStats(TRANSCRIPT), {"caroline", "melanie"}) is junk


@pytest.mark.parametrize(("summary", "junk"), [
    # the example of a day made of first sentences, in the old one-line form
    ("13:56 Caroline: Hey Mel! 13:57 Melanie: Hey Caroline! 13:59 Melanie: Wow, that's cool, Caroline! "
     "14:05 Melanie: Wow, Caroline!", True),
    ("2023-05-08 13:56\nCaroline: Hey Mel! Good to see you!\nMelanie: Thanks, Caroline! "
     "I painted a lake sunrise last year.", True),
    ("2023-05-08 13:56\nCaroline: I went to a LGBTQ support group yesterday (2023-05-07). Hey Mel!\n"
     "Melanie: I painted that lake sunrise last year (2022)!", False),
])
def test_summary_greetings_heuristic(summary: str, junk: bool) -> None:
    """A summary is junk when half or more of its sentences are greetings or bare reactions;
    times, dates and speaker labels are not its sentences."""
    assert summary_is_junk(summary, {"caroline", "melanie", "mel"}) is junk


def test_contact_and_task_heuristics() -> None:
    """Interjections are not contacts; a task needs a verb where the action goes."""
    stats = CaseStats(TRANSCRIPT)
    people = {"caroline", "melanie"}
    names = ["Melanie", "Oscar", "Wow", "Sounds"]
    assert [contact_is_junk(n, stats, people) for n in names] == [False, False, True, True]
    titles = ["Feed a horse a carrot", "Prepare emotionally", "Caroline calls the bank", "Must renew the passport",
              "Family love", "That day."]
    assert [task_is_junk(t, stats, people) for t in titles] == [False, False, False, False, True, True]


# --- the whole bench on a tiny LoCoMo file ------------------------------------------------


class MarkerModel:
    """A deterministic stand-in for the LLM: day, interaction and week summaries keep the lines
    that contain "remember" or "note"; longer rungs say nothing useful; a fact for each line
    containing "remember"; no contacts, no tasks."""

    name = "marker"
    KEEP = ("remember", "note")

    def summarize(self, request):
        if request.rung not in ("day", "1", "week"):
            return SummaryReply(text="A quiet stretch.")
        lines = [line for i in request.inputs for line in i.text.splitlines()]
        kept = [line for line in lines if any(k in line.lower() for k in self.KEEP)]
        return SummaryReply(text="\n".join(kept))

    def extract_facts(self, request):
        return FactExtractionReply(facts=[
            FactCandidate(text=f"{m.speaker}: {m.text}", importance=5, source_ids=[m.id])
            for m in request.messages if "remember" in m.text.lower()])

    def judge_cluster(self, request):
        return ClusterReply(merge=False)

    def update_contacts(self, request):
        return ContactsReply(contacts=[])

    def update_tasks(self, request):
        return TasksReply(changes=[])

    def split_table(self, request):
        from consolidator.model.offline.tables import split_table
        return split_table(request)


def tiny_locomo(path: Path) -> Path:
    """Two sessions in different weeks; answers placed in a fact, in a summary only, in the transcript only."""
    turns1 = [("Alice", "Remember that I adopted a puppy named Biscuit."),
              ("Bob", "Note that my sister moved to Lisbon."),
              ("Alice", "Cool, I bought a red kayak.")]
    turns2 = [("Bob", "Note: the weather was lovely."),
              ("Alice", "Indeed it was, a lovely warm afternoon in the park.")]
    conversation = {"speaker_a": "Alice", "speaker_b": "Bob",
                    "session_1_date_time": "10:00 am on 8 May, 2023", "session_2_date_time": "6:00 pm on 20 May, 2023"}
    for n, turns in ((1, turns1), (2, turns2)):
        conversation[f"session_{n}"] = [{"speaker": s, "dia_id": f"D{n}:{k + 1}", "text": t}
                                        for k, (s, t) in enumerate(turns)]
    qa = [
        {"question": "What did Alice adopt?", "answer": "a puppy", "evidence": ["D1:1"], "category": 4},
        {"question": "What did Alice buy?", "answer": "A red kayak", "evidence": ["D1:3"], "category": 1},
        {"question": "Where did Bob's sister move?", "answer": "Lisbon", "evidence": ["D2:1; D1:2"], "category": 2},
        {"question": "What is Alice's cat called?", "adversarial_answer": "Tom", "evidence": [], "category": 5},
    ]
    path.write_text(json.dumps([{"sample_id": "tiny", "conversation": conversation, "qa": qa}]), encoding="utf-8")
    return path


def tiny_settings(state_dir: Path) -> Settings:
    """Day and week, count/1; a budget so small that every window with two lines is summarised."""
    ladders = LadderSettings(time=["day", "week"], count=[1], budget_tokens=16)
    return bench_settings(state_dir).model_copy(update={"ladders": ladders})


@pytest.mark.slow
def test_shares_on_a_tiny_conversation(tmp_path: Path) -> None:
    """Drained with a model whose output is known, each source holds exactly the answers placed in it.

    "a puppy" is a fact (so in facts.json and context.md) and in the day/interaction/week
    summaries; "a red kayak" is only in the transcript; "Lisbon" is in session 1's summaries,
    reached through the second id of a malformed evidence list, and in no store.
    """
    data = tiny_locomo(tmp_path / "tiny.json")
    conv = load_locomo(data)[0]
    questions = load_questions(data)["tiny"]
    assert [q.category for q in questions] == [4, 1, 2]  # the adversarial one is skipped
    result = run_conversation(conv, questions, tiny_settings(tmp_path / "state"), model=MarkerModel(),
                              settle=timedelta(days=8))
    rows = result["tally"].as_dict()["categories"]
    hits = {row: rows[row]["hits"] for row in ("single-hop", "multi-hop", "temporal")}
    assert hits["single-hop"] == dict.fromkeys(["context", "stores", "day", "count/1", "week", "transcript"], 1)
    assert hits["multi-hop"] == {"context": 0, "stores": 0, "day": 0, "count/1": 0, "week": 0, "transcript": 1}
    assert hits["temporal"] == {"context": 0, "stores": 0, "day": 1, "count/1": 1, "week": 1, "transcript": 1}
    assert rows["all"]["n"] == 3 and rows["all"]["share"]["transcript"] == 1.0
    assert rows["all"]["share"]["day"] == pytest.approx(2 / 3)


@pytest.mark.slow
def test_compression_counts_what_each_rung_read(tmp_path: Path) -> None:
    """A day reads its raw lines and writes the kept ones; the week above reads what the days wrote."""
    data = tiny_locomo(tmp_path / "tiny.json")
    conv = load_locomo(data)[0]
    result = run_conversation(conv, [], tiny_settings(tmp_path / "state"), model=MarkerModel())
    comp = result["compression"]
    lines = [f"{m.at:%H:%M} {m.speaker}: {m.text}" for m in conv.messages]  # the bench measures raw lines
    assert comp["time/day"]["read"] == sum(len(line) for line in lines)
    def marked(m) -> bool:  # what MarkerModel keeps
        return any(k in m.text.lower() for k in MarkerModel.KEEP)

    kept = [f"{m.at:%Y-%m-%d %H:%M} {m.speaker}: {m.text}" for m in conv.messages  # as the summary input renders them
            if marked(m)]
    assert comp["time/day"]["wrote"] == sum(len(line) for line in kept) + 1  # two kept lines in session 1: one "\n"
    ratios = []  # each day's own read/wrote: the bench's "least" is the smallest
    for session in conv.sessions:
        said = [m for m in session.messages if marked(m)]
        if said:
            wrote = sum(len(f"{m.at:%Y-%m-%d %H:%M} {m.speaker}: {m.text}") for m in said) + len(said) - 1
            ratios.append(sum(len(f"{m.at:%H:%M} {m.speaker}: {m.text}") for m in session.messages) / wrote)
    assert len(ratios) >= 2 and comp["time/day"]["min_ratio"] == pytest.approx(min(ratios))
    assert comp["count/1"] == comp["time/day"]  # one session a day: the same windows
    assert comp["time/week"]["read"] == comp["time/day"]["wrote"]
    assert comp["stores"]["read"] == comp["time/day"]["read"]
    assert result["junk"]["facts"] == {"total": 1, "junk": 0, "examples": []}


@pytest.mark.slow
def test_the_bench_reads_messages_the_daemon_archived(tmp_path: Path) -> None:
    """Drained long after the talk, the older months are archived; the bench still reads every line."""
    data = tiny_locomo(tmp_path / "tiny.json")
    conv = load_locomo(data)[0]
    settings = tiny_settings(tmp_path / "state")
    result = run_conversation(conv, [], settings, model=MarkerModel(), settle=timedelta(days=200))
    assert any(settings.archive_dir.rglob("*.parquet"))  # the daemon did archive
    lines = [f"{m.at:%H:%M} {m.speaker}: {m.text}" for m in conv.messages]
    assert result["compression"]["stores"]["read"] == sum(len(line) for line in lines)


def test_default_data_is_found_from_a_worktree() -> None:
    """With no --path, the dev subset is found in a shared/ folder above the repository."""
    if not any((p / "shared" / "data" / "locomo-dev").is_dir() for p in Path(__file__).resolve().parents):
        pytest.skip("no shared/data/locomo-dev above this checkout")
    assert find_data(None).is_file()
    assert find_data(Path("elsewhere.json")) == Path("elsewhere.json")  # a given path is taken as it is


@pytest.mark.slow
def test_a_key_drains_through_the_anthropic_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ANTHROPIC_API_KEY set, the bench's settings and wiring pick the Anthropic backend (here a local fake)."""
    key = "sk-ant-recall-bench-test"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    data = tiny_locomo(tmp_path / "tiny.json")
    conv = load_locomo(data)[0]
    with FakeAnthropic(api_key=key, responder=OfflineResponder()) as fake:
        config = tmp_path / "config.toml"
        config.write_text(f'[model]\nbase_url = "{fake.url}"\n', encoding="utf-8")
        settings = bench_settings(tmp_path / "state", config)
        assert provider_of(settings) == "anthropic"
        result = run_conversation(conv, load_questions(data)["tiny"], settings)
        assert result["model"]["calls"] == fake.counters.answered > 0
    assert result["tally"].as_dict()["categories"]["all"]["hits"]["transcript"] == 3
