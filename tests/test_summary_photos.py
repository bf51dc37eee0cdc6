"""The offline summariser's shown-photo rule: a turn that points at its one photo ("here's our
latest work") is told by the photo's caption, which outweighs the pointing words."""

from __future__ import annotations

from dataclasses import replace

from consolidator.model.offline import summarise
from consolidator.model.offline.summarise import extractive_summary, shown_photos
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.summaryform import parse_turns
from consolidator.model.offline.tuning import DEFAULTS
from consolidator.model.offline.lexicon import Lexicon

PAINTING = "(photo: a painting of a sunset with a palm tree)"


def lines(*turns: tuple[str, str]) -> list[str]:
    return [f"2023-05-08 10:{i:02d} {who}: {text}" for i, (who, text) in enumerate(turns)]


UNSHOWN = replace(DEFAULTS, shown_boost=1.0)  # the control: the rule off


def day(shown: str) -> list[str]:
    return lines(
        ("Ana", "How was the weekend, Ben?"),
        ("Ben", f"Busy but good. We finished the new painting yesterday, {shown} "
                "(photo: a painting of a sunset with a palm tree)"),
        ("Ana", "Wow, I love the colors."),
        ("Ben", "Thanks! My sister Lena helped with the frame and we varnished it twice."),
        ("Ana", "I started pottery classes at the community center on Tuesdays."),
    )


def shown(*turns: tuple[str, str]) -> set[int]:
    """shown_photos over the turns' sentences as parsed, each (turn, sentence, ...) an item."""
    parsed = parse_turns(lines(*turns))
    items = [(n, compact(s), [], {}) for n, turn in enumerate(parsed) for s in turn.sentences]
    return shown_photos(parsed, items)


def test_the_photo_a_turn_points_at_is_kept_over_the_pointing_words():
    """With the rule the caption is the turn's summary; without it (the control) the pointing
    sentence wins and the painting's subject is lost."""
    assert PAINTING in extractive_summary(day("here's our latest work!"), 200)
    control = extractive_summary(day("here's our latest work!"), 200, settings=UNSHOWN)
    assert PAINTING not in control and "here's our latest work" in control


def test_pointing_words_in_any_form_mark_the_photo():
    """"this", "take a look", "check it out" point as "here's" does; a photo nobody points at,
    or one of two photos in a turn, is not marked; the mark is the photo's position."""
    photo = "(photo: a painting of a sunset with a palm tree)"
    for pointing in ("Take a look.", "Check it out!", "We made this.", "Here is the result."):
        assert shown(("Ben", f"{pointing} {photo}")) == {1}
    assert shown(("Ben", f"We finished it yesterday. {photo}")) == set()
    assert shown(("Ben", f"Here's the result. {photo} (photo: a beach)")) == set()
    assert shown(("Ana", "Look at this!"), ("Ben", photo)) == set()


def test_a_pointing_clause_trimmed_from_its_sentence_still_points():
    """"..., they made this!" is trimmed from its sentence as filler, yet it said the photo is
    what was made: the photo's prior is doubled all the same."""
    turns = parse_turns(lines(("Ben", "It was special to watch them come to life, they made this! "
                                      "(photo: a cup with a dog face)")))

    def priors(settings=DEFAULTS) -> dict[str, float]:
        return {c.text: c.prior for c in summarise._candidates(turns, Lexicon(summarise.speakers_of(turns)), settings)}

    boosted = priors()
    assert not any("made this" in text for text in boosted)  # the pointing clause is trimmed
    assert boosted["(photo: a cup with a dog face)"] == 2.0 * priors(UNSHOWN)["(photo: a cup with a dog face)"]


def test_an_unpointed_photo_keeps_its_plain_weight():
    """No pointing words: the summary is the same with and without the rule."""
    unpointed = day("and varnished the back.")
    with_rule = extractive_summary(unpointed, 200)
    assert extractive_summary(unpointed, 200, settings=UNSHOWN) == with_rule
