"""The offline summariser: phatic suppression, unscored prefixes, MMR, numbers and names, dates, budget."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from consolidator.domain import estimate_tokens
from consolidator.ladders.inputs import render
from consolidator.model.offline import OfflineModel
from consolidator.model.offline import summarise
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.summarise import extractive_summary
from consolidator.model.schemas import SummarizeRequest, SummaryInput
from stores.messages import Message

UTC = timezone.utc
MONDAY = date(2023, 5, 8)


def lines(*turns: tuple[str, str], day: str = "2023-05-08") -> list[str]:
    """Rendered input lines, one minute apart: ("Ana", "text") -> "2023-05-08 10:00 Ana: text"."""
    return [f"{day} 10:{i:02d} {who}: {text}" for i, (who, text) in enumerate(turns)]


def bodies(summary: str) -> list[str]:
    """The summary's lines without their "date time speaker:" prefixes."""
    return [line.split(": ", 1)[1] for line in summary.splitlines()]


def request(texts: list[str], budget: int, labels: list[str] | None = None, window: str = "w") -> SummarizeRequest:
    return SummarizeRequest(scope="s", ladder="time", rung="day", window_label=window, budget_tokens=budget,
                            inputs=[SummaryInput(id=f"i{n}", label=(labels or [""] * len(texts))[n], text=t)
                                    for n, t in enumerate(texts)])


GREETINGS_DAY = lines(
    ("Ana", "Hey Ben!"),
    ("Ben", "Hi Ana, how are you?"),
    ("Ana", "Good, thanks! You?"),
    ("Ben", "Wow, that's so cool, Ana!"),
    ("Ana", "I booked the ferry to Naxos for the whole family."),
    ("Ben", "Awesome, sounds great!"),
    ("Ana", "Thanks, Ben!"),
    ("Ben", "Yeah, totally."),
)


# --- phatic sentences ----------------------------------------------------------------------------


def test_a_day_of_greetings_keeps_its_one_content_sentence_first():
    """Greetings, thanks and bare reactions are dropped: the content sentence comes first, alone."""
    out = extractive_summary(GREETINGS_DAY, 400)
    assert bodies(out) == ["I booked the ferry to Naxos for the whole family."]


def test_a_day_of_nothing_but_greetings_still_says_something():
    """When every sentence is phatic they compete: the summary is not empty."""
    out = extractive_summary(GREETINGS_DAY[:4], 400)
    assert out and estimate_tokens(out) <= 400


# --- the prefix is not scored ----------------------------------------------------------------------


def test_two_chatty_speakers_do_not_drown_the_one_telling_line():
    """Many lines from two speakers (their names and hours on every line) lose to the rare content."""
    chatter = [("Ana" if i % 2 else "Ben", text) for i, text in enumerate(
        ["I think so too.", "We went there again.", "It was fine I guess.", "Maybe later then.",
         "I said that before.", "We will see about it.", "It was a long day.", "I know what you mean."])]
    out = extractive_summary(lines(*chatter, ("Cleo", "The pottery kiln in Cardiff cracked during firing.")), 20)
    assert bodies(out) == ["The pottery kiln in Cardiff cracked during firing."]


def test_who_and_when_never_change_which_sentences_are_chosen():
    """The same lines under other (rare, same-length) speakers' names and other times give the same sentences."""
    said = ["I started a new job at the bakery.", "The weather was grey.", "My sister Ines visited from Porto.",
            "We ate too much.", "The bakery opens at 5 every morning.", "I need more sleep."]
    plain = [f"2023-05-08 10:0{i} {w}: {t}" for i, (w, t) in enumerate(zip(["Ana", "Ben"] * 3, said))]
    odd = [f"2023-05-08 23:5{i} {w}: {t}" for i, (w, t) in enumerate(zip(["Zyx", "Qov"] * 3, said))]
    assert bodies(extractive_summary(plain, 30)) == bodies(extractive_summary(odd, 30))


# --- redundancy -------------------------------------------------------------------------------------

PARAPHRASES = lines(
    ("Ana", "We adopted Biscuit, a rescue greyhound, from the animal shelter in Leeds."),
    ("Ana", "Biscuit the greyhound was adopted by us from the Leeds animal shelter."),
    ("Ana", "We adopted a rescue greyhound named Biscuit from the shelter in Leeds."),
    ("Ana", "My brother begins a nursing degree."),
)


def test_paraphrases_of_one_event_leave_room_for_the_other_event():
    """Within two sentences' budget: one greyhound sentence and the nursing degree, not two greyhounds."""
    two = len(PARAPHRASES[0]) + len(PARAPHRASES[1]) + 1
    assert len(PARAPHRASES[0]) + len(PARAPHRASES[1]) + len(PARAPHRASES[3]) + 2 > two + 20  # no room for three
    out = extractive_summary(PARAPHRASES, (two + 3) // 4)
    said = bodies(out)
    assert len(said) == 2 and "My brother begins a nursing degree." in said
    assert sum("greyhound" in s for s in said) == 1


def test_without_the_redundancy_penalty_the_other_event_would_be_lost(monkeypatch):
    """The control for the test above: relevance alone picks two greyhound sentences."""
    monkeypatch.setattr(summarise, "LAMBDA", 1.0)
    monkeypatch.setattr(summarise, "REPEAT_COSINE", 1.01)
    two = len(PARAPHRASES[0]) + len(PARAPHRASES[1]) + 1
    said = bodies(extractive_summary(PARAPHRASES, (two + 3) // 4))
    assert "My brother begins a nursing degree." not in said


def test_exact_repeats_are_kept_once_in_input_order():
    """Chosen sentences appear in input order, an exact repeat only once."""
    out = extractive_summary(["Tom booked Rome.", "Ana flew to Oslo.", "Tom booked Rome."], 100)
    assert out == "Tom booked Rome. Ana flew to Oslo."


# --- numbers, names, titles -------------------------------------------------------------------------


def test_a_sentence_with_a_number_and_a_name_wins_the_only_slot():
    """Of two otherwise alike sentences, the one carrying a date and a name is kept."""
    out = extractive_summary(lines(("Ana", "We moved the meeting with the landlord to a later week."),
                                   ("Ana", "We moved the meeting with Okafor to 14 March.")), 20)
    assert bodies(out) == ["We moved the meeting with Okafor to 14 March."]


def test_a_cut_sentence_keeps_its_number_and_name():
    """A sentence too long for the budget is cut to the clause with the flight's city and time."""
    long = ("Honestly it has been a long and tiring week, with lots of errands and chores around the house "
            "and the garden, but the good news is that the flight to Oslo leaves at 7:45 on Friday.")
    out = extractive_summary([long], 12)
    assert "Oslo" in out and "7:45" in out and estimate_tokens(out) <= 12


def test_quoted_title_counts_as_content():
    """A reaction that names a quoted title is not phatic: the title survives."""
    out = extractive_summary(lines(("Ana", "Thanks!"), ("Ben", 'Wow, I loved "Piranesi" so much!')), 400)
    assert "Piranesi" in out and "Thanks!" not in out


# --- relative dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("I saw her yesterday.", "yesterday (2023-05-07)"),
        ("Call me tomorrow.", "tomorrow (2023-05-09)"),
        ("We hiked last Saturday.", "last Saturday (2023-05-06)"),
        ("It broke two days ago.", "two days ago (2023-05-06)"),
        ("We move next month.", "next month (2023-06)"),
        ("I quit last week.", "last week (week of 2023-05-01)"),
        ("I painted it last year.", "last year (2022)"),
    ],
)
def test_relative_dates_are_written_out_from_the_line_date(said, written):
    """Plain relative dates get the absolute date beside them (said on Monday 2023-05-08)."""
    assert written in resolve_relative_dates(said, MONDAY)


@pytest.mark.parametrize("said", ["I ran more in the last week.", "See you on Friday.", "That was a few days ago.",
                                  "I saw her yesterday (2023-05-07)."])
def test_vague_or_already_resolved_dates_are_left_alone(said):
    """Spans, bare weekdays, vague amounts and already resolved dates are not (re)written."""
    assert resolve_relative_dates(said, MONDAY) == said


def test_yesterday_after_local_midnight_is_the_local_monday():
    """00:30 Tuesday in Paris (Monday 22:30 UTC): "yesterday" is Monday 2023-05-08, not Sunday."""
    paris = ZoneInfo("Europe/Paris")
    at = datetime(2023, 5, 8, 22, 30, tzinfo=UTC)
    message = Message(id="m1", scope="s", seq=1, at=at, role="user", speaker="Ana", received_at=at,
                      text="I finally went to the dentist yesterday and the filling is done.")
    line = render(message, paris)
    assert line.startswith("2023-05-09 00:30 Ana: ")
    out = OfflineModel().summarize(request([line], 400)).text
    assert "yesterday (2023-05-08)" in out


def test_a_day_label_dates_lines_without_a_dated_prefix():
    """Plain text under a day's label is resolved against that label's date."""
    out = OfflineModel().summarize(request(["Ana flew to Lisbon yesterday."], 400, labels=["2023-05-08 (Mon)"],
                                           window="week 2023-W19")).text
    assert out == "Ana flew to Lisbon yesterday (2023-05-07)."


# --- higher rungs and the budget ------------------------------------------------------------------------


def test_a_rung_above_reselects_from_summaries_keeping_each_prefix():
    """Two day summaries in, one within budget out: every line still says who and when."""
    monday = "\n".join(lines(("Ana", "I booked the ferry to Naxos yesterday."), ("Ben", "My knee surgery is set for June.")))
    tuesday = "\n".join(lines(("Ana", "The Naxos ferry leaves at 8 from Piraeus."), ("Ben", "Physio starts after the surgery."),
                              day="2023-05-09"))
    out = extractive_summary([monday, tuesday], 30)
    assert estimate_tokens(out) <= 30 and out.count("\n") >= 1
    for line in out.splitlines():
        assert line[:17] in {"2023-05-08 10:00 ", "2023-05-08 10:01 ", "2023-05-09 10:00 ", "2023-05-09 10:01 "}
    assert "yesterday (2023-05-07)" in out or "Naxos ferry leaves" in out


def test_labels_of_a_passed_through_window_are_not_sentences():
    """A rung above reading "label: line" text (a window passed through) never selects a label."""
    passed = "\n".join(f"{label}: {line}" for label, line in [
        ("2023-05-08 (Mon)", lines(("Ana", "I booked the ferry to Naxos."))[0]),
        ("2023-05-09 (Tue)", lines(("Ben", "My knee surgery is set for June."), day="2023-05-09")[0]),
        ("2023-05-10 (Wed)", lines(("Ana", "The ferry leaves Piraeus at 8."), day="2023-05-10")[0])])
    out = extractive_summary([passed, "\n".join(lines(("Ben", "Physio starts on Monday.")))], 400)
    assert len(out.splitlines()) == 4 and "(Tue)" not in out and "(Wed)" not in out


def test_a_resolved_date_is_not_resolved_again_a_rung_up():
    """A summary of summaries keeps one bracketed date per expression."""
    day = extractive_summary(lines(("Ana", "I booked the ferry to Naxos yesterday.")), 400)
    week = extractive_summary([day, "\n".join(lines(("Ben", "My knee surgery is set for June."), day="2023-05-09"))], 400)
    assert week.count("(2023-05-07)") == 1 and "yesterday (2023-05-07) (" not in week


CONVERSATION = lines(*[
    ("Ana" if i % 2 else "Ben", text) for i, text in enumerate([
        "Hey! How was the weekend?", "Great, we drove to Bath on Saturday and saw the Roman baths.",
        "Nice! I finally finished reading 'The Overstory' - it took me 3 weeks.",
        "My daughter Lina starts school in September, so we're looking at uniforms.",
        "Good luck! Our landlord raised the rent by 12 percent, we might move to Bristol next year.",
        "Oh no, that's a lot. Have you talked to the housing office about it?",
        "Yes, they said the increase is legal but we can appeal before 30 June.",
        "Thanks for telling me. By the way, the dentist moved my appointment to next Tuesday.",
    ])])


@pytest.mark.parametrize("budget", [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 400])
def test_summary_never_exceeds_its_budget(budget):
    """estimate_tokens(summary) <= budget for any budget, tiny ones included."""
    assert estimate_tokens(extractive_summary(CONVERSATION, budget)) <= budget


def test_summary_of_nothing_is_empty():
    """No inputs (or only whitespace) give an empty summary."""
    assert extractive_summary([], 50) == "" and extractive_summary(["  ", "\n"], 50) == ""
