"""Each ranking rule of `recall` on a small hand-written conversation, with a control that shows
the rule is what decides (the same items, the rule off or the query without what triggers it)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

from consolidator.retrieval.items import contact_item
from consolidator.retrieval.rank import Candidate, RankSettings
from consolidator.retrieval.read import _handle, _pool
from consolidator.retrieval.render import fill, line_for
from consolidator.retrieval.terms import content_stems, only_asks, query_words, stem
from stores.files.recall_index import IndexItem, Row, index_path
from tests.support.index_kit import day, fact, index_memory, message, order, row, week

NOW = datetime(2024, 6, 20, 12, 0, tzinfo=timezone.utc)  # a Thursday


@pytest.fixture
def memory(tmp_path: Path):
    """write(items) makes the scope's index; ask(query, **rank settings) recalls from it."""
    return index_memory(tmp_path, NOW)


DINNERS = (message("mar", "Maya: I cooked risotto for dinner.", "2024-03-10T19:00:00"),
           message("may", "Maya: I cooked paella for dinner.", "2024-05-10T19:00:00"))


@pytest.mark.parametrize(("items", "question", "rule", "first", "first_with_the_rule_off"), [
    # "When ...?" shows the turn rather than the newer week summary saying the same
    pytest.param((message("m1", "Maya went to a pottery class.", "2024-05-07T18:00:00"),
                  week("2024-06-10", "Maya went to a pottery class.", "2024-06-10")),
                 "When did Maya go to a pottery class?", "when_boost", "m1", "time/week/2024-06-10",
                 id="a_when_question_favours_a_dated_turn_over_a_coarse_summary"),
    # "in March" puts March's item before the newer May one
    pytest.param(DINNERS, "What dinner did Maya cook in March?", "period_boost", "mar", "may",
                 id="a_named_period_favours_items_inside_it"),
    # "last week" (relative to now, in the scope's zone) favours that week's item over this week's
    pytest.param((message("lastweek", "Maya: Went hiking on Wednesday.", "2024-06-12T10:00:00"),
                  message("thisweek", "Maya: Went hiking on Tuesday.", "2024-06-18T10:00:00")),
                 "Where did Maya go hiking last week?", "period_boost", "lastweek", "thisweek",
                 id="last_week_is_the_week_before_now"),
])
def test_a_time_in_the_question_favours_the_items_it_names(memory, items, question, rule, first,
                                                           first_with_the_rule_off) -> None:
    """The item the question's time names comes first; with the rule off, recency wins (the newer first)."""
    write, ask = memory
    write(*items)
    assert order(ask(question))[0] == first
    assert order(ask(question, **{rule: 1.0}))[0] == first_with_the_rule_off


def test_what_happened_in_a_period_is_asked_of_the_period_alone(memory) -> None:
    """"What happened last week?" searched "happened" everywhere: a turn of any week that says
    "happened" came before the week's own items, which hold no word of the question."""
    write, ask = memory
    write(message("old", "Maya: Something funny happened at the market.", "2024-05-02T10:00:00"),
          message("hike", "Maya: Went hiking in Sintra with Ana.", "2024-06-12T10:00:00"),
          message("cake", "Maya: Baked a lemon cake for Rui.", "2024-06-14T10:00:00"))
    assert set(order(ask("What happened last week?", budget=60))[:2]) == {"hike", "cake"}


def test_a_named_period_with_its_year_favours_items_inside_it(memory) -> None:
    """"in May 2024" puts May's item first."""
    write, ask = memory
    write(*DINNERS)
    assert order(ask("What dinner did Maya cook in May 2024?"))[0] == "may"


def test_the_newer_of_two_equal_items_comes_first(memory) -> None:
    """Recency breaks an even match: the newer item first; with the recency prior off, order falls to the tie rule."""
    write, ask = memory
    write(message("jan", "Maya: My favourite tea is sencha.", "2024-01-05T09:00:00"),
          message("jun", "Maya: My favourite tea is hojicha.", "2024-06-15T09:00:00"))
    assert order(ask("favourite tea"))[:2] == ["jun", "jan"]


def test_an_item_that_says_what_a_shown_item_says_is_skipped(memory) -> None:
    """A fact and its turn say the same: one is shown, the room goes to another item; control: both shown."""
    write, ask = memory
    write(fact("f1", "Maya adopted a cat named Mochi.", "2024-06-01T10:00:00"),
          message("m1", "Maya: We adopted a cat named Mochi!", "2024-06-01T10:00:00"),
          message("m2", "Maya: The cat hides under the sofa.", "2024-06-02T10:00:00"))
    shown = order(ask("Maya adopted a cat named Mochi"))
    assert ("f1" in shown) != ("m1" in shown) and "m2" in shown
    both = order(ask("Maya adopted a cat named Mochi", redundant_share=1.01))
    assert "f1" in both and "m1" in both


def test_a_fact_brings_its_source_turn_when_the_turn_holds_more_of_the_query() -> None:
    """The turn a fact came from follows the fact when it holds query words the fact lacks, ahead
    of better-scored items; a fact without sources brings nothing, and neither does a turn that adds nothing."""
    src = row(2, "msg:maya:src", "message", "Maya: We got Mochi from the Ohio shelter.", at="2024-06-01T10:00:00")
    others = [row(3 + i, f"msg:maya:c{i}", "message", f"Maya: Mochi chased toy number {i}.",
                  at=f"2024-06-0{i + 2}T10:00:00") for i in range(3)]
    query = content_stems("Which shelter did Maya adopt the cat Mochi from?")

    def shown(fact_sources: str, turn=src) -> list[str]:
        fact_row = row(1, "fact:f1", "fact", "Maya adopted a cat named Mochi.", at="2024-06-01T10:00:00",
                       sources=fact_sources)
        ranked = [Candidate(fact_row, score=1.0), *(Candidate(o, score=0.9 - i / 10) for i, o in enumerate(others)),
                  Candidate(turn, score=0.1)]
        _, chosen = fill(ranked, 1000, "maya", timezone.utc, query, lambda ids: {turn.id: turn} if turn.id in ids else {},
                         RankSettings())
        return [s.candidate.row.id for s in chosen]

    assert shown('["maya:src"]')[:2] == ["fact:f1", "msg:maya:src"]
    assert shown("[]")[:2] == ["fact:f1", "msg:maya:c0"]
    plain = row(2, "msg:maya:src", "message", "Maya: We got Mochi.", at="2024-06-01T10:00:00")
    assert shown('["maya:src"]', plain)[:2] == ["fact:f1", "msg:maya:c0"]


def test_a_superseded_fact_is_history_and_ranks_below_the_current_one(memory) -> None:
    """A fact no longer current is labelled so, never as a fact, and the current one comes first."""
    write, ask = memory
    old = IndexItem(id="fact:old", kind="fact", text="Maya works at Acme.", body="Maya works at Acme.",
                    status="history", at=day("2023-01-01T00:00:00"), until=day("2024-03-01T00:00:00"), importance=5)
    write(old, fact("new", "Maya works at Initech.", "2024-03-01T00:00:00"))
    result = ask("Where does Maya work?")
    assert order(result)[:2] == ["new", "old"]
    assert "2023-01-01..2024-03-01 no longer current: Maya works at Acme. [old]" in result.text


def test_the_fill_prefers_an_item_that_brings_a_query_word_no_shown_item_has() -> None:
    """A question about two things ("hiking or museums") shows the museum turn after the best hiking
    one, ahead of a better-scored second hiking turn; with the coverage rule off, two hiking turns."""
    turns = [("r1", "Maya: We hiked the ridge trail on Saturday.", 1.0),
             ("r2", "Maya: Hiking the coast path was windy.", 0.9),
             ("r3", "Maya: The modern art museum was lovely.", 0.7)]
    question = "Does Maya prefer hiking or museums?"
    terms = frozenset(stem(w) for w in query_words(question))

    def shown(**rules) -> list[str]:
        ranked = [Candidate(row(i + 1, f"msg:maya:{key}", "message", text, at="2024-06-01T10:00:00"), score=s)
                  for i, (key, text, s) in enumerate(turns)]
        _, chosen = fill(ranked, 40, "maya", timezone.utc, content_stems(question), lambda ids: {},
                         RankSettings(**rules), terms=terms)
        return [s.candidate.row.id for s in chosen]

    assert shown() == ["msg:maya:r1", "msg:maya:r3"]
    assert shown(coverage_boost=0.0) == ["msg:maya:r1", "msg:maya:r2"]


def test_a_long_turn_cut_to_fit_keeps_the_sentence_with_the_query_words_not_the_speaker_name() -> None:
    """The person a query names is every turn's "Name: " opening: it must not pick the first
    sentence; the cut shows the sentence that answers, still opened by the speaker."""
    text = ("Maya: Yeah, my family has been great and their love and support really helped me through a lot "
            "of tough times this year. It's awesome! We even went on another camping trip in the forest.")
    turn = Candidate(row(1, "msg:maya:t1", "message", text, at="2024-06-01T10:00:00"), score=1.0)
    shown, line = line_for(turn, "maya", timezone.utc, content_stems("Where has Maya camped?"), 20)
    assert shown == "Maya: We even went on another camping trip in the forest."
    assert line.endswith("[t1]")


def test_a_turn_cut_to_fit_shows_the_sentence_after_the_one_the_question_repeats() -> None:
    """A turn sets the scene in the question's words and says what happened in the next sentence:
    cut to fit, it keeps that next sentence too when there is room, and not a third."""
    text = ("Maya: Thanks! Last Friday I went to a council meeting for adoption. So many families wanted to "
            "give kids a home. It made me even more determined. Anyway, how are you?")
    turn = Candidate(row(1, "msg:maya:t1", "message", text, at="2024-06-01T10:00:00"), score=1.0)
    query = content_stems("What did Maya see at the council meeting for adoption?")
    shown, _ = line_for(turn, "maya", timezone.utc, query, 30)
    assert shown == ("Maya: Last Friday I went to a council meeting for adoption. … "
                     "So many families wanted to give kids a home.")
    tight, _ = line_for(turn, "maya", timezone.utc, query, 16)
    assert tight == "Maya: Last Friday I went to a council meeting for adoption."


def test_irregular_verb_forms_share_a_stem() -> None:
    """"made" is "make" as "painted" is "paint", in a question and an item alike; "lay" stays
    itself (it is also the past of "lie")."""
    assert stem("made") == stem("make") == stem("making")
    assert stem("went") == stem("gone") == stem("go") and stem("bought") == stem("buy")
    assert stem("lay") == "lay" != stem("lie")
    assert content_stems("What did the kids make?") & content_stems("We all made our own pots.")


def test_a_turn_cut_to_fit_that_keeps_only_what_a_shown_item_says_is_skipped() -> None:
    """Cut to the room left, a long turn keeps only the sentence the fact above already says: the
    room goes to the next item instead; with the redundancy rule off, the cut turn takes it."""
    facts = row(1, "fact:f1", "fact", "Maya went camping in the forest.", at="2024-06-01T10:00:00")
    long_turn = row(2, "msg:maya:m1", "message", "Maya: Yeah, my family has been great and their support really "
                    "helped me through some tough times this year. We even went camping in the forest.",
                    at="2024-06-01T10:00:00")
    other = row(3, "msg:maya:m2", "message", "Maya: The lake was cold.", at="2024-06-02T10:00:00")

    def shown(**rules) -> list[str]:
        ranked = [Candidate(facts, score=1.0), Candidate(long_turn, score=0.9), Candidate(other, score=0.5)]
        _, chosen = fill(ranked, 40, "maya", timezone.utc, content_stems("Where did Maya go camping?"),
                         lambda ids: {}, RankSettings(**rules))
        return [s.candidate.row.id for s in chosen]

    assert shown() == ["fact:f1", "msg:maya:m2"]
    assert shown(redundant_share=1.01) == ["fact:f1", "msg:maya:m1"]


def test_a_turn_that_only_asks_ranks_below_the_turn_that_answers(memory) -> None:
    """"What's your best camping memory?" repeats the topic and says nothing of it: the turn that
    tells comes first; with the rule off, the shorter, newer question wins."""
    write, ask = memory
    write(message("says", "Maya: My best camping memory is the beach last summer, the kids loved the bonfire.",
                  "2024-06-10T10:00:00"),
          message("asks", "Maya: Wow, that's awesome! What's your best camping memory?", "2024-06-18T10:00:00"))
    assert order(ask("best camping memory"))[0] == "says"
    assert order(ask("best camping memory", asking_factor=1.0))[0] == "asks"


def test_only_asks_tells_a_question_from_a_turn_that_says_something() -> None:
    assert only_asks("Wow, that's awesome! What's your best camping memory?")
    assert only_asks("Cool! Did you see that band? (photo: a photo of a stage)")
    assert not only_asks("Thanks. It's still a work in progress, but I'm doing my best. Any plans for the summer?")
    assert not only_asks("We went camping at the beach.")


def test_a_compound_in_the_question_finds_its_two_words_in_the_memory(memory, tmp_path) -> None:
    """"roadtrips" asked, "road trip" said: the word no item holds is searched as the two words
    items do; a word that splits only into a short piece ("mentorship": "mentors" + "hip") and a
    word items hold are searched as they are."""
    write, ask = memory
    write(message("trip", "Maya: We took a road trip along the coast to Porto.", "2024-05-02T10:00:00"),
          message("hip", "Maya: My hip hurts and my mentors say rest.", "2024-05-03T10:00:00"),
          message("care", "Maya: Sundays are for self care.", "2024-05-03T11:00:00"),
          *(message(f"m{i}", f"Maya: Lunch at the usual place, number {i}.", "2024-05-04T10:00:00") for i in range(6)))
    got = ask("Where did Maya go on roadtrips?", budget=60)
    assert order(got)[:1] == ["trip"], got.text
    handle = _handle(index_path(tmp_path / "state" / "snapshots" / "maya"))
    assert handle.searchable(["roadtrips", "mentorship", "lunch"]) == ["road", "trips", "mentorship", "lunch"]
    assert handle.searchable(["selfcare"]) == ["self", "care"]  # two parts of four letters


def _card(query: str, max_tokens: int) -> str:
    """A contact card of four details and a dated biography, as the index holds it, cut to fit."""
    tomas = SimpleNamespace(id=7, name="Tomas", aliases=["Tom"], updated_at=datetime(2024, 6, 1, tzinfo=timezone.utc),
                            sources=[], biography="Tomas moved to Lisbon (2021-03-01). Tomas works as a nurse (2023-01-10).")
    item = contact_item(tomas, {"health": "a sprained ankle", "likes": "sailing; fish tacos; old jazz records; long walks",
                                "places": "Lisbon; the aquarium; a street fair", "plans": "visit Porto"})
    card = Row(n=1, id=item.id, kind="contact", status="", ladder=None, rung=None, label=item.label, speaker=None,
               text=item.text, at=item.at, until=None, importance=5.0, sources_json="[]")
    shown, line = line_for(Candidate(card, score=1.0), "maya", timezone.utc, content_stems(query), max_tokens)
    assert line.endswith("[contact:7]")
    return shown


def test_a_contact_card_cut_to_fit_shows_the_detail_asked_about_and_whose_it_is() -> None:
    """Each detail of a card is a sentence of its own: cut to fit, the card shows the detail the
    query names (not the first ones in key order, cut mid-list), opened by the person's name,
    then as many other details as fit; the biography no longer runs on from the last detail."""
    assert "plans: visit Porto. Tomas moved to Lisbon (2021-03-01)." in _card("", 200)
    shown = _card("Which places has Tomas been to?", 30)
    assert shown.startswith("Tomas (aka Tom): ")
    assert "places: Lisbon; the aquarium; a street fair." in shown
    assert "health: a sprained ankle." in shown  # room left: the card's first detail too
    # No word of the query in the card: its details in order, as many as fit, not just the first.
    assert _card("What is Tomas up to?", 30) == ("Tomas (aka Tom): health: a sprained ankle. … "
                                                 "likes: sailing; fish tacos; old jazz records; long walks.")


def test_the_period_a_query_names_does_not_pick_a_cut_items_dated_sentences(memory) -> None:
    """"in 2023" selects by time; as a word it would pick the card's sentences dated 2023 (their
    date notes) over the detail the query asks about."""
    write, ask = memory
    tomas = SimpleNamespace(id=7, name="Tomas", aliases=[], updated_at=datetime(2024, 6, 1, tzinfo=timezone.utc),
                            sources=[], biography="Tomas works as a nurse (2023-01-10). Tomas adopted a cat (2023-02-11).")
    write(contact_item(tomas, {"health": "a sprained ankle", "likes": "sailing; fish tacos; old jazz records",
                               "places": "Lisbon; the aquarium; a street fair"}))
    card = next(i.text for i in ask("Which places did Tomas visit in 2023?", budget=100).items if i.kind == "contact")
    assert "places: Lisbon; the aquarium; a street fair." in card and "nurse" not in card


def test_a_question_naming_a_person_reads_their_card(memory) -> None:
    """"What is Tomas's relationship status?" shares no word with his card ("roles: single
    parent"): the card of a person the query names gets a relevance floor (card_relevance), so
    it ranks above turns that match one common word; with the floor off it is left out, and a
    "when" question gives it none."""
    write, ask = memory
    tomas = SimpleNamespace(id=7, name="Tomas", aliases=[], updated_at=datetime(2024, 6, 1, tzinfo=timezone.utc),
                            sources=[], biography="")
    write(contact_item(tomas, {"roles": "single parent", "places": "Lisbon; the aquarium"}),
          message("s0", "Tomas: The status of the parcel is unclear.", "2024-06-02T10:00:00"),
          *(message(f"d{i}", f"Tomas: I cooked {dish} for dinner.", f"2024-06-0{i + 3}T10:00:00")
            for i, dish in enumerate(["risotto", "paella", "ramen", "tacos", "curry", "gnocchi"])))
    question = "What is Tomas's relationship status?"
    assert "contact:7" in order(ask(question, budget=80))
    assert "contact:7" not in order(ask(question, budget=80, card_relevance=0.0))
    # A "when" question asks for a date, which the card's details do not hold: no floor for it.
    assert "contact:7" not in order(ask("When did Tomas's relationship status change?", budget=80))


def test_a_person_named_in_lower_case_still_brings_their_card(memory, tmp_path) -> None:
    """A planner passes the user's words as typed: "what is tomas's relationship status?" names
    Tomas as much as the capitalised question does, so his card joins the pool at the floor."""
    write, _ = memory
    tomas = SimpleNamespace(id=7, name="Tomas", aliases=[], updated_at=datetime(2024, 6, 1, tzinfo=timezone.utc),
                            sources=[], biography="")
    write(contact_item(tomas, {"roles": "single parent"}),
          message("s0", "Tomas: The status of the parcel is unclear.", "2024-06-02T10:00:00"))
    handle = _handle(index_path(tmp_path / "state" / "snapshots" / "maya"))
    handle.refresh()
    for question in ("What is Tomas's relationship status?", "what is tomas's relationship status?"):
        card = next(c for c in _pool(handle, question, 80, RankSettings()) if c.row.id == "contact:7")
        assert card.base == RankSettings().card_relevance, question


def test_a_question_of_what_is_to_be_done_reads_the_open_tasks(memory) -> None:
    """"What do I need to do this week?" shares no word with "Call the plumber": the open tasks
    join the pool at task_relevance when the query asks what is to be done, a closed one never;
    with the floor off, or a question of something else, they are left out."""
    write, ask = memory

    def task(n: int, title: str, status: str, due: str | None) -> IndexItem:
        return IndexItem(id=f"task:{n}", kind="task", text=title, body=title, status=status, at=day("2024-06-10"),
                         label=due)

    write(task(1, "Call the plumber about the leak", "open", "2024-06-21"), task(2, "Renew the passport", "open", None),
          task(3, "Book the dentist", "done", None),
          *(message(f"d{i}", f"Maya: I need to rest, I cooked {dish} for dinner.", f"2024-06-0{i + 3}T10:00:00")
            for i, dish in enumerate(["risotto", "paella", "ramen", "tacos", "curry", "gnocchi"])))
    question = "What do I need to do this week?"
    assert [tag for tag in order(ask(question, budget=120)) if tag.startswith("#")] == ["#1", "#2"]  # tasks' tags
    for upcoming in ("What's coming up this week?", "Anything on my calendar?"):
        assert [tag for tag in order(ask(upcoming, budget=120)) if tag.startswith("#")] == ["#1", "#2"], upcoming
    # with the floor off, only the task due this week comes, by its due day (test_recall_due.py)
    assert [tag for tag in order(ask(question, budget=120, task_relevance=0.0)) if tag.startswith("#")] == ["#1"]
    for other in ("What did I cook for dinner?", "What do I like to do on weekends?", "Why did I have to rest?",
                  "What happened due to the rain?", "Is the calendar app any good?"):  # no question of what is to be done
        assert not any(tag.startswith("#") for tag in order(ask(other, budget=120))), other


def test_a_fact_is_found_by_the_day_it_notes_ahead_not_only_by_when_it_was_said(memory) -> None:
    """"Maya's flight to Lisbon is on Friday (2024-06-21)" was said last week: "anything tomorrow?"
    and "what's coming up?" name no word of it, and its time (when it was said) is in neither
    period; the day its text notes is. A day gone, or a day past the period, is not brought."""
    write, ask = memory
    write(fact("flight", "Maya's flight to Lisbon is on Friday (2024-06-21) (2024-06-12).", "2024-06-12T10:00:00"),
          fact("dentist", "Maya's dentist appointment is on Monday (2024-06-17) (2024-06-12).", "2024-06-12T10:00:00"),
          fact("party", "Maya said: The party is on Saturday (2024-07-06) (2024-06-12).", "2024-06-12T10:00:00"),
          *(message(f"d{i}", f"Maya: I cooked {dish} for dinner.", f"2024-06-1{i}T19:00:00")
            for i, dish in enumerate(["risotto", "paella", "ramen", "tacos", "curry", "gnocchi"])))
    plans = {"flight", "dentist", "party"}
    assert [t for t in order(ask("Anything tomorrow?", budget=80)) if t in plans] == ["flight"]
    coming = [t for t in order(ask("What's coming up?", budget=120)) if t in plans]
    assert coming == ["flight", "party"], coming  # Monday the 17th is gone
    assert "flight" not in order(ask("What did I cook yesterday?", budget=80))


def test_coming_up_is_from_now_and_a_named_period_is_more_precise() -> None:
    from consolidator.retrieval.when import understand

    now = datetime(2024, 6, 20, 15, 0, tzinfo=timezone.utc)
    ahead = understand("What's coming up?", now, timezone.utc)
    assert ahead.start == now and (ahead.end - now).days >= 365 and ahead.search_text("What's coming up?") == "What's ?"
    week = understand("What's coming up this week?", now, timezone.utc)
    assert (week.start, week.end) == (datetime(2024, 6, 17, tzinfo=timezone.utc), datetime(2024, 6, 24, tzinfo=timezone.utc))
    tomorrow = understand("Anything tomorrow?", now, timezone.utc)
    assert tomorrow.start == datetime(2024, 6, 21, tzinfo=timezone.utc)


def test_a_period_is_found_in_facts_by_its_days_and_its_whole_months() -> None:
    """The text a fact notes a period's day with: a day where the period holds part of its month
    (a month's facts noting the day they were said do not crowd out its later plans), the month
    where it holds all of it."""
    from consolidator.retrieval.rank import noted_patterns, noted_within

    def ts(*args) -> float:
        return datetime(*args, tzinfo=timezone.utc).timestamp()

    assert noted_patterns((ts(2024, 6, 17), ts(2024, 6, 24))) == [f"2024-06-{d})" for d in range(17, 24)]
    assert noted_patterns((ts(2023, 5, 1), ts(2023, 6, 1))) == ["2023-05-"]
    ahead = noted_patterns((ts(2025, 12, 30, 9), ts(2026, 3, 1)))
    assert ahead == ["2025-12-30)", "2025-12-31)", "2026-01-", "2026-02-"]
    assert noted_within("Maya's flight is on Friday (2026-01-09) (2025-12-29).", (ts(2025, 12, 30, 9), ts(2026, 3, 1)))
    assert not noted_within("Maya went to Porto (2025-12-29).", (ts(2025, 12, 30, 9), ts(2026, 3, 1)))
