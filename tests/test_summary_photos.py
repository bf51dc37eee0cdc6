"""The offline summariser's shown-photo rule: a turn that points at its one photo ("here's our
latest work") is told by the photo's caption, which outweighs the pointing words."""

from __future__ import annotations

from consolidator.model.offline import summarise
from consolidator.model.offline.summarise import extractive_summary, shown_photos

PAINTING = "[photo: a painting of a sunset with a palm tree]"


def lines(*turns: tuple[str, str]) -> list[str]:
    return [f"2023-05-08 10:{i:02d} {who}: {text}" for i, (who, text) in enumerate(turns)]


def day(shown: str) -> list[str]:
    return lines(
        ("Ana", "How was the weekend, Ben?"),
        ("Ben", f"Busy but good. We finished the new painting yesterday, {shown} "
                "[shares a photo: a painting of a sunset with a palm tree]"),
        ("Ana", "Wow, I love the colors."),
        ("Ben", "Thanks! My sister Lena helped with the frame and we varnished it twice."),
        ("Ana", "I started pottery classes at the community center on Tuesdays."),
    )


def items(*turns: tuple[int, str]) -> list[tuple]:
    return [(n, s, [], {}) for n, s in turns]


def test_the_photo_a_turn_points_at_is_kept_over_the_pointing_words(monkeypatch):
    """With the rule the caption is the turn's summary; without it (the control) the pointing
    sentence wins and the painting's subject is lost."""
    assert PAINTING in extractive_summary(day("here's our latest work!"), 200)
    monkeypatch.setattr(summarise, "SHOWN_BOOST", 1.0)
    control = extractive_summary(day("here's our latest work!"), 200)
    assert PAINTING not in control and "here's our latest work" in control


def test_pointing_words_in_any_form_mark_the_photo():
    """"this", "take a look", "check it out" point as "here's" does; a photo nobody points at,
    or one of two photos in a turn, is not marked."""
    for pointing in ("Take a look.", "Check it out!", "We made this.", "Here is the result."):
        assert shown_photos(items((1, pointing), (1, PAINTING))) == {1}
    assert shown_photos(items((1, "We finished it yesterday."), (1, PAINTING))) == set()
    assert shown_photos(items((1, "Here's the result."), (1, PAINTING), (1, "[photo: a beach]"))) == set()
    assert shown_photos(items((0, "Look at this!"), (1, PAINTING))) == set()


def test_an_unpointed_photo_keeps_its_plain_weight(monkeypatch):
    """No pointing words: the summary is the same with and without the rule."""
    unpointed = day("and varnished the back.")
    with_rule = extractive_summary(unpointed, 200)
    monkeypatch.setattr(summarise, "SHOWN_BOOST", 1.0)
    assert extractive_summary(unpointed, 200) == with_rule
