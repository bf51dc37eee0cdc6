"""The offline summariser's answer rule: of a reply to a question, the sentence that takes up
the question's words is its answer and weighs ECHO_BOOST more than the reply's other sentences."""

from __future__ import annotations

from dataclasses import replace

from consolidator.model.offline import summarise
from consolidator.model.offline.summarise import extractive_summary
from consolidator.model.offline.summaryform import parse_turns
from consolidator.model.offline.lexicon import Lexicon
from consolidator.model.offline.tuning import DEFAULTS

ANSWER = "As for exercises, swimming and yoga are good options."


def lines(*turns: tuple[str, str]) -> list[str]:
    return [f"2023-05-08 10:{i:02d} {who}: {text}" for i, (who, text) in enumerate(turns)]


NO_ECHO = replace(DEFAULTS, echo_boost=1.0)  # the control: the rule off


def priors(*turns: tuple[str, str], settings=DEFAULTS) -> dict[str, float]:
    parsed = parse_turns(lines(*turns))
    return {c.text: c.prior for c in summarise._candidates(parsed, Lexicon(summarise.speakers_of(parsed)), settings)}


def test_the_reply_sentence_that_takes_up_the_question_is_kept():
    """The room holds Ben's reply and Ana's news, not all of it: with the rule the answer to what
    Ana asked stays; without it (the control) a pottery class takes its place."""
    day = lines(
        ("Ana", "Do you know any good low-impact exercises?"),
        ("Ben", f"The new gym on Elm Street opened in June. {ANSWER}"),
        ("Ana", "My sister Lena moved to Lisbon for a nursing job in March."),
        ("Ana", "I started pottery classes at the community center with Marta."),
    )
    assert ANSWER in extractive_summary(day, 200)
    control = extractive_summary(day, 200, settings=NO_ECHO)
    assert ANSWER not in control and "pottery" in control


def test_only_a_reply_sentence_sharing_a_word_of_the_question_is_boosted():
    """The echoing sentence's prior is x echo_boost; the reply's other sentence, a reply to a
    statement, and the asker's own next sentence keep theirs."""
    asked = (("Ana", "Do you know any good low-impact exercises?"),
             ("Ben", f"The new gym on Elm Street opened in June. {ANSWER}"))
    told = (("Ana", "I know some good low-impact exercises."), ("Ben", ANSWER))
    own = (("Ana", "Do you know any good low-impact exercises? Swimming exercises are my favourite."),)
    boosted = [priors(*asked), priors(*told), priors(*own)]
    plain = [priors(*asked, settings=NO_ECHO), priors(*told, settings=NO_ECHO), priors(*own, settings=NO_ECHO)]
    assert boosted[0][ANSWER] == 1.25 * plain[0][ANSWER]
    gym = "The new gym on Elm Street opened in June."
    assert boosted[0][gym] == plain[0][gym]
    assert boosted[1] == plain[1] and boosted[2] == plain[2]
