"""The offline extractor's dates and life events said in passing: a part of the day, a date kept in
place, a past event dated by its sentence, a weekday with its day of the month, an ending that
names no value (the wider extraction tests: test_offline_extraction.py)."""

from __future__ import annotations

from datetime import date

import pytest

from consolidator.model.offline.reldates import resolve_absolute_dates
from tests.support.offline_kit import said_by_caroline


@pytest.mark.parametrize(("said", "fact"), [
    ("I went hiking yesterday morning.", "Caroline went hiking (2023-05-06)."),  # never "went hiking morning"
    ("We went dancing last Friday night.", "Caroline went dancing (2023-05-05)."),
    ("My manager quit this morning.", "Caroline's manager quit this morning (2023-05-07)."),  # a time, no habit given up
    ("They're promoting me to team lead, starting next month.",
     "Caroline is being promoted to team lead, starting next month (June 2023) (2023-05-07)."),
    # a life event's rule dated by its clause; a trailing "how about you?" leaves a statement, not a question
    ("Been up and down lately, got married last week - how about you?", "Caroline got married (week of 2023-04-24)."),
    ("I went to a pottery workshop last Friday, how about you?", "Caroline went to a pottery workshop (2023-05-05)."),
    # the date is what is said of the subject: it stays in place (it left "anniversary is, 12 years"), and no stance
    ("Btw our anniversary is next Saturday, 12 years!",
     "Caroline's anniversary is next Saturday (2023-05-13), 12 years (2023-05-07)."),
    ("We're back from Japan!", "Caroline is back from Japan (2023-05-07)."),  # a coming back: an event, no state
    ("I applied for the job at Acme, fingers crossed.", "Caroline applied for the job at Acme (2023-05-07)."),
    ("I lost my passport in Osaka though, what a mess.", "Caroline lost their passport in Osaka (2023-05-07)."),
])
def test_a_part_of_the_day_a_time_quit_and_a_promotion_done_to_the_speaker(said, fact):
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(("said", "facts"), [
    ("I got divorced last year.", ["Caroline got divorced last year (2022)."]),  # an ending: no value to date by
    ("I got divorced.", ["Caroline got divorced."]),
])
def test_a_partner_ended_with_got_is_read_without_a_value(said, facts):
    """"got divorced" raised IndexError in the dating of "got married" (lineclaims._acquired_on)."""
    assert said_by_caroline(said) == facts


def test_a_month_in_lower_case_and_a_trailing_btw_are_read():
    """"retiring in june btw": the month is a month, "btw" no part of the fact."""
    assert said_by_caroline("My boss Helena is retiring in june btw, we are planning a party.") == [
        "Helena is Caroline's boss.", "Helena is retiring (June 2023)."]


def test_a_weekday_with_its_day_of_the_month_is_not_the_next_such_weekday():
    """"Saturday the 15th" was dated the coming Saturday, a week before the 15th."""
    assert all("(2023-05-13)" not in f for f in said_by_caroline("The final is on Saturday the 20th at 8pm in Lisbon."))


@pytest.mark.parametrize(("said", "fact"), [
    # the weekday was dated alone, the coming Saturday, and the date beside it left as words
    ("The final is on Saturday, May 20 at 8pm.", "Caroline said: The final is on Saturday, May 20 (2023-05-20) at 8pm (2023-05-07)."),
    # the weekday picks the month: June 9 is the next Friday the 9th ("pushed" read the last 9th, April's)
    ("Ana pushed the party to Friday the 9th.",
     "Caroline said: The party was moved to Friday the 9th (2023-06-09) by Ana (2023-05-07)."),
    ("I flew to Rome on Friday, May 5.", "Caroline flew to Rome (2023-05-05)."),  # was "flew to Rome on Friday,"
    ("I am flying to Rome on Friday 12 May.", "Caroline is flying to Rome (2023-05-12)."),  # the day before its month
    ("I have a call with Jonas on Tuesday morning.", "Caroline has a call with Jonas (2023-05-09)."),  # no "Jonas morning"
    ("I promised to visit Rui in June.", "Caroline promised to visit Rui (June 2023)."),  # what was promised is ahead
    ("Our wedding was moved to June 2027.", "Caroline's wedding was moved to June 2027 (2023-05-07)."),  # its year
])
def test_a_weekday_written_with_its_date_dates_the_clause_by_both(said, fact):
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(("said", "facts"), [
    ("My son had an accident last Tuesday, he fell off his bike and it was rough.",  # "fell": dated the day said
     ["Caroline's son had an accident (2023-05-02).", "Caroline's son fell off his bike (2023-05-02)."]),
    ("I went to Lisbon last week and I am flying to Rome tomorrow.",
     ["Caroline went to Lisbon (week of 2023-04-24).", "Caroline is flying to Rome (2023-05-08)."]),
    ("I started painting last year and I love it.", ["Caroline started painting (2022)."]),
])
def test_a_past_event_with_no_date_of_its_own_takes_the_one_its_sentence_resolved(said, facts):
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(("said", "facts"), [
    # a day or month without its year: the clause's tense picks the next one or the last one
    ("I'm flying to Berlin on March 14 for a conference.", ["Caroline is flying to Berlin for a conference (2024-03-14)."]),
    ("I ran my first marathon on December 20.", ["Caroline ran their first marathon (2022-12-20)."]),
    ("I adopted a puppy on the 3rd of May.", ["Caroline adopted a puppy (2023-05-03)."]),
    ("My sister and I are running a half marathon in April.",
     ["Caroline and their sister are running a half marathon (April 2024)."]),
    # a year said is the date; a month and a year together too
    ("Rui and I met in 2015 at a concert.", ["Caroline met Rui at a concert (2015)."]),
    ("We got married in June 2018.", ["Caroline got married (June 2018)."]),
    # a timetable's present speaks of what will be: the coming Wednesday, not the day said (a Sunday)
    ("My daughter Lia starts swimming lessons on Wednesday at 5pm.",
     ["Lia is Caroline's daughter.", "Lia starts swimming lessons at 5pm (2023-05-10)."]),
    # a span's start is no date of the clause; a date with no tense to place it stays as said
    ("I've been painting since 2015.", ["Caroline has been painting since 2015 (2023-05-07)."]),
])
def test_a_calendar_date_written_out_dates_its_clause(said, facts):
    assert said_by_caroline(said) == facts


def test_a_calendar_date_needs_a_real_day_and_a_tense():
    from datetime import date

    from consolidator.model.offline.reldates import absolute_dates
    today = date(2023, 5, 7)
    assert absolute_dates("I was born on February 30", today) == []
    assert absolute_dates("March 14 works for me", today) == []  # no tense: which March 14?
    assert absolute_dates("I had lunch with April", today) == []  # a month alone needs its "in"
    assert [r for _, r in absolute_dates("we went there on March 14, 2019", today)] == ["2019-03-14"]


@pytest.mark.parametrize(("said", "facts"), [
    # a date said of what something is stays in place, its year written beside it as a relative date's is
    ("Our wedding is on June 14 in Sintra.", ["Caroline's wedding is on June 14 (2023-06-14) in Sintra (2023-05-07)."]),
    # what something is booked for is ahead, whatever the tense of the booking
    ("I booked the gallery for June 14, so the date is fixed.", [
        "Caroline booked the gallery for June 14 (2023-06-14), so the date is fixed (2023-05-07)."]),
])
def test_a_calendar_date_kept_in_place_gets_its_year(said, facts):
    assert said_by_caroline(said) == facts


def test_a_day_that_comes_every_year_gets_no_year():
    assert said_by_caroline("Our anniversary is on June 14.") == ["Caroline's anniversary is on June 14 (2023-05-07)."]


@pytest.mark.parametrize(("said", "fact"), [
    ("I was in Paris from March 3 to March 9.", "Caroline was in Paris from March 3 (2023-03-03) to March 9 (2023-03-09) (2023-05-07)."),
    # a span's end is no target ahead ("moved to March 3" is): with no tense to place it, as said
    ("I'm out of office from December 22 to January 5.", "Caroline is out of office from December 22 to January 5 (2023-05-07)."),
])
def test_a_span_of_calendar_dates_takes_its_clauses_tense(said, fact):
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(("said", "facts"), [
    ("We're flying to Madeira on the 20th, staying at my aunt's place.",
     ["Caroline is flying to Madeira, staying at their aunt's place (2023-05-20)."]),
    ("I paid the deposit on the 28th.", ["Caroline paid the deposit (2023-04-28)."]),  # past: last month's
    ("I'm flying to Berlin on March 14 for a conference, back on the 18th.",  # the 18th of the month said before
     ["Caroline is flying to Berlin on March 14 (2024-03-14) for a conference, back on the 18th (2024-03-18) (2023-05-07)."]),
    ("I live on the 3rd floor now.", ["Caroline lives on the 3rd floor now (2023-05-07)."]),  # an ordinal that is no day
])
def test_a_day_of_the_month_dates_its_clause(said, facts):
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("My passport expires in March.", ["Caroline's passport expires (March 2024)."]),  # ahead: next March
    ("My lease ends in June.", ["Caroline's lease ends (June 2023)."]),
    ("My car insurance renews on the 15th.", ["Caroline's car insurance renews (2023-05-15)."]),
])
def test_what_expires_or_ends_in_a_month_is_ahead(said, facts):
    """"My passport expires in March" said in May 2023 was dated the day it was said: an end or an
    expiry is a timetable's present, as a start is."""
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(("said", "fact"), [
    ("Ana wants a demo on June 15th.", "Ana wants a demo (2023-06-15)."),  # said 2023-05-07: ahead
    ("We plan to visit Porto on Saturday.", "Caroline plans to visit Porto on Saturday (2023-05-13)"),
    ("Ana wanted a demo on June 15th.", "Ana wanted a demo (2022-06-15)"),  # a want of the past
])
def test_what_one_wants_or_plans_now_with_a_day_is_ahead(said, fact):
    """A want, need or plan said in the present speaks of what will be: its day is the next one."""
    assert any(f.startswith(fact) for f in said_by_caroline(said)), said_by_caroline(said)


@pytest.mark.parametrize(("said", "fact"), [
    ("My work hours are 10 to 6, Monday to Thursday.", "Caroline's work hours are 10 to 6, Monday to Thursday"),
    ("The studio is open Tuesday through Saturday, from 9.", "Caroline said: The studio is open Tuesday through"),
])
def test_a_range_of_weekdays_is_a_routine_not_a_day(said, fact):
    """"Monday to Thursday" dated its Monday a week on and its Thursday this week: a range of
    weekdays is a week's routine, and names no day."""
    facts = said_by_caroline(said)
    assert any(f.startswith(fact) for f in facts) and not any("(2023-05-1" in f for f in facts), facts


@pytest.mark.parametrize(("said", "fact"), [
    ("Last night was amazing! We celebrated my daughter's birthday with a concert.",
     "Caroline celebrated their daughter's birthday with a concert (2023-05-06)."),
    ("Last weekend was so fun! We went hiking with Melanie.", "Caroline went hiking with Melanie (2023-04-29)."),
    ("Yesterday was wild. The warm summer breeze was perfect for my first sailing lesson.",  # "summer": no day of its own
     "Caroline said: The warm summer breeze was perfect for Caroline's first sailing lesson (2023-05-06)."),
    ("Yesterday was wild. Today I finally signed the lease.", "Today, Caroline finally signed the lease (2023-05-07)."),
    ("Yesterday was hectic. The kids painted the fence.", "Caroline said: The kids painted the fence (2023-05-06)."),
    ("This week has been crazy. My daughter Mia started school.", "Mia started school (2023-05-07)."),  # no "This week,"
])
def test_a_time_said_of_is_when_the_lines_next_sentences_happened(said, fact):
    """"Last night was amazing! We celebrated ..." was dated the day it was said: "last night" is the
    subject of the first sentence, and when the next happened, unless it says its own day."""
    assert fact in said_by_caroline(said)


@pytest.mark.parametrize(("said", "fact"), [
    ("My daughter was born on March 3.", "Caroline's daughter was born on March 3 (2023-05-07)."),  # was (2023-03-03)
    ("I was born in 1990 in May.", "Caroline was born in May (1990)."),  # was "(May 2023)" as well
])
def test_a_birth_without_its_year_gets_none_from_the_tense(said, fact):
    """The tense picks the last May for "I went to Paris in May"; a birth's year it cannot tell."""
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(("said", "resolved"), [
    ("I agreed to help him in November.", "(November 2026)"),  # what was agreed to be done is ahead
    ("I signed up and agreed to the terms in November.", "(November 2025)"),  # a thing agreed to: the tense's
    ("I planned to go skiing in March but I broke my leg.", "(March 2025)"),  # a plan said in the past may be past
])
def test_a_month_after_a_promise_is_ahead_only_of_a_thing_to_do(said, resolved):
    assert resolved in resolve_absolute_dates(said, date(2025, 12, 4))
