"""Compacting sentences before the offline summariser chooses them: interjections, discourse
markers, hedges, intensifiers, tag questions and trailing additives go; the speaker's other
words stay in order, negations, modal adverbs, numbers, names, titles, dates and asides untouched."""

from __future__ import annotations

from dataclasses import replace

import pytest

from consolidator.model.offline import summarise
from consolidator.model.offline.lexicon import Lexicon, has_name, names_in
from consolidator.model.offline.summarise import extractive_summary, fact_prior
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.text_cut import TOKEN
from consolidator.model.offline.tuning import DEFAULTS


def lines(*turns: tuple[str, str], day: str = "2023-05-08") -> list[str]:
    """Rendered input lines, one minute apart."""
    return [f"{day} 10:{i:02d} {who}: {text}" for i, (who, text) in enumerate(turns)]


def said(summary: str) -> list[str]:
    """The summary's lines without headers and "Speaker:" labels."""
    return [line.split(": ", 1)[1] for line in summary.splitlines() if ": " in line]


@pytest.mark.parametrize(("sentence", "compacted"), [
    # interjections at the start, and set off inside
    ("Oh, I finished the quilt for my niece.", "I finished the quilt for my niece."),
    ("Wow, haha, the ferry to Naxos was late.", "The ferry to Naxos was late."),
    ("Well, the kiln cracked.", "The kiln cracked."),
    ("I checked the boiler and, ugh, the pilot light was out.", "I checked the boiler and the pilot light was out."),
    ("We baked rye bread haha!", "We baked rye bread!"),
    ("Yum, the lasagna was homemade.", "The lasagna was homemade."),
    # discourse markers
    ("You know, I signed up for the choir.", "I signed up for the choir."),
    ("The choir, I mean, rehearses on Tuesdays.", "The choir rehearses on Tuesdays."),
    ("Honestly, the exam was in Leeds.", "The exam was in Leeds."),
    ("By the way, my cousin Ravi moved to Oslo.", "My cousin Ravi moved to Oslo."),
    ("Turns out, it was tendinitis.", "It was tendinitis."),
    # hedges
    ("I think it's the hardest climb in the valley.", "It's the hardest climb in the valley."),
    ("I was kind of nervous before the audition.", "I was nervous before the audition."),
    ("Well, I guess we'll rent a cabin near the lake.", "We'll rent a cabin near the lake."),
    # intensifiers, including "so"/"pretty" before a word of feeling
    ("I really loved the pottery workshop.", "I loved the pottery workshop."),
    ("I'm so proud of the mural.", "I'm proud of the mural."),
    ("I just adopted a super shy greyhound.", "I adopted a shy greyhound."),
    # tag questions become statements
    ("The marathon was in April, right?", "The marathon was in April."),
    ("The recital went well, didn't it?", "The recital went well."),
    # trailing additives, leading links
    ("I started learning the cello too.", "I started learning the cello."),
    ("The lease ends in March though!", "The lease ends in March!"),
    ("So I'm carving out an hour each day for running.", "I'm carving out an hour each day for running."),
    # emoji and emoticons
    ("I passed my driving test 🎉 :)", "I passed my driving test"),
])
def test_talk_about_the_talk_is_removed(sentence, compacted):
    """Each closed class of filler goes, and only it: the rest is the speaker's words in order."""
    assert compact(sentence) == compacted


@pytest.mark.parametrize(("sentence", "compacted"), [
    ("Whoa, Mel, you know, that sign looks serious!", "Mel, that sign looks serious!"),
    ("Jon, honestly, I loved the show.", "Jon, I loved the show."),
    ("Caroline, you know, is right about the lease.", "Caroline is right about the lease."),
    ("I went, you know, to the market in Leeds.", "I went to the market in Leeds."),
    ("Mel, you know, we're moving to Denver.", "Mel, we're moving to Denver."),
    ("Hi Mel, you know, I adopted a cat.", "Hi Mel, I adopted a cat."),
])
def test_a_name_addressed_keeps_its_comma_when_a_marker_after_it_goes(sentence, compacted):
    """"Mel, you know, that sign" is "Mel, that sign": without the comma the name reads as the
    subject of what follows. Before a verb the name was the subject, and no comma is left."""
    assert compact(sentence) == compacted


@pytest.mark.parametrize(("sentence", "compacted"), [
    ("I quit the choir, by the way, I joined a rowing club.", "I quit the choir, I joined a rowing club."),
    ("The flat is tiny, honestly, we need a bigger one.", "The flat is tiny, we need a bigger one."),
    ("It was great and, honestly, I loved it.", "It was great and I loved it."),
    ("We went, you know, to the fair.", "We went to the fair."),
])
def test_a_clause_after_a_marker_keeps_the_comma_that_ends_the_one_before(sentence, compacted):
    """"the choir, by the way, I joined" is two clauses: without the comma they ran into one
    ("quit the choir I joined a rowing club"), and the facts parser read one claim of both.
    After a link word ("and, honestly, I") the link joins them already."""
    assert compact(sentence, hedges=False) == compacted


@pytest.mark.parametrize(("sentence", "compacted"), [
    ("Oh, I think we'll move to Leeds in May, you know.", "I think we'll move to Leeds in May."),
    ("Well, I guess we'll rent a cabin near the lake.", "I guess we'll rent a cabin near the lake."),
    ("The choir, I believe, rehearses on Tuesdays.", "The choir, I believe, rehearses on Tuesdays."),
    ("I was kind of nervous before the audition, haha.", "I was kind of nervous before the audition."),
    ("I'm kinda nervous about the audition.", "I'm kinda nervous about the audition."),
    ("I'm pretty sure it was Jon.", "I'm pretty sure it was Jon."),
])
def test_the_fact_parsers_compaction_keeps_the_hedges(sentence, compacted):
    """hedges=False (what the fact parser reads): the filler still goes, but "I think" stays, so a
    guess is never stored as a statement."""
    assert compact(sentence, hedges=False) == compacted


@pytest.mark.parametrize("sentence", [
    "I'm not really into jazz.",  # an intensifier after a negation stays
    "I don't just paint, I sculpt.",
    "What kind of music do you play?",  # "kind of" after a determiner is no hedge
    "It's my kind of place.",
    "So much happened in 2022.",  # "so much" is a quantity, not a grade
    "I read \"Really Good, Actually\" twice.",  # a quoted title is a quotation
    "[laughs, you know]",  # an aside that shows no medium is left whole
    "Well done on the 10k.",  # "well" not set off by punctuation is no interjection
    "No, I never went back to Lisbon.",  # an answer and a negation
    "Maybe we'll rent a cabin near the lake.",  # a possibility is not a plan
    "We'll probably move to Cork in May.",
    "Yes, the flat in Porto is ours.",
    "That's for sure.",
    "It was a pretty dress.",  # "pretty" before a thing is no grade
    "I'm down to just two biscuits a day.",  # "just" before a quantity is "only": a limit
    "The drive takes just 40 minutes.",
])
def test_negations_numbers_titles_and_content_words_are_kept(sentence):
    """What looks like filler but carries meaning (or is quoted) is left as it is."""
    assert compact(sentence) == sentence


@pytest.mark.parametrize("aside, compacted", [
    ("(photo: a photo of a painting of a sunset over the ocean)", "(photo: a painting of a sunset over the ocean)"),
    ("(photo: a photography of a couple dancing)", "(photo: a couple dancing)"),
    ("(photo: an image of a red kayak)", "(photo: a red kayak)"),
    ("(photo: a clip of the 10k finish, really fast)", "(photo: the 10k finish, really fast)"),
    ("(photo: a really tall lighthouse, you know)", "(photo: a really tall lighthouse, you know)"),
])
def test_an_aside_names_its_medium_once_and_keeps_what_it_shows(aside, compacted):
    """A photo as model/attachments.py renders it: a caption naming the medium again loses
    those words; the caption itself is a quotation and keeps every word (filler included)."""
    assert compact(aside) == compacted


@pytest.mark.parametrize("aside", ["(photo: a photo of )", "[photo of the lake]", "(file: a photo of a lake)"])
def test_an_aside_with_nothing_left_to_show_is_left_as_it_is(aside):
    assert compact(aside) == aside


def test_a_sentence_that_is_all_filler_is_left_for_the_phatic_filter():
    """Nothing would be left: the sentence comes back whole (the summariser drops it as phatic)."""
    assert compact("Haha!") == "Haha!"
    assert compact("Lol, haha.") == "Lol, haha."


FILLED_DAY = lines(
    ("Ana", "Oh, you know, I honestly just finished the quilt for my niece, haha."),
    ("Ben", "Wow, I mean, I really think the ferry to Naxos was kind of late, right?"),
    ("Ana", "Well, I totally signed up for the choir in Leeds too."),
    ("Ben", "So I actually adopted a super shy greyhound named Pip though!"),
)


def test_compacted_sentences_leave_room_for_one_more_content_line():
    """The same day at the same length: compacting fits every content line where whole
    sentences fit one fewer."""
    out = extractive_summary(FILLED_DAY, 60)
    assert said(out) == ["I finished the quilt for my niece.", "The ferry to Naxos was late.",
                         "I signed up for the choir in Leeds.", "I adopted a shy greyhound named Pip!"]


def test_without_compaction_a_content_line_would_not_fit():
    """The control for the test above: with the fillers kept, one of the four lines is left out."""
    out = extractive_summary(FILLED_DAY, 60, settings=replace(DEFAULTS, compact_sentences=False))
    assert len([s for line in said(out) for s in line.split(". ")]) == 3


def test_i_m_is_no_name():
    """A contraction of "I" later in a sentence is not a proper name (it earned a name's boost)."""
    lexicon = Lexicon({"ana"})
    tokens = TOKEN.findall("Since the move I'm tired and I've slept badly.")
    assert not has_name(tokens, lexicon) and names_in(tokens, lexicon) == set()
    assert has_name(TOKEN.findall("Since the move I'm visiting Ravi."), lexicon)
    plain = fact_prior("Since the move I'm tired.", TOKEN.findall("Since the move I'm tired."), lexicon)
    named = fact_prior("Since the move I'm with Ravi.", TOKEN.findall("Since the move I'm with Ravi."), lexicon)
    assert named == plain * DEFAULTS.key_boost
