"""The summariser's rules about single sentences and turns (summarise.py, steps 4 and 5): which
sentences are phatic, how likely one states a fact (its prior), which turns answer a question
and which sentence is the answer, which photo a turn points at, who is no person.

Pure functions of their inputs and the settings passed in; summarise.py applies them as passes.
"""

from __future__ import annotations

import re

from consolidator.model.attachments import is_rendered
from consolidator.model.offline.lexicon import Lexicon, base_form, has_name
from consolidator.model.offline.summaryform import Turn
from consolidator.model.offline.text_cut import TITLE, TOKEN
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.offline.words import AGENT_SPEAKERS, zipf

COMMON_ZIPF = 5.5  # words at least this frequent in English are never content on their own

FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
SECOND_PERSON = frozenset("you your yours yourself yourselves".split())
_PHOTO = re.compile(r"^\(photo:")  # a photo as model/attachments.render writes it (and compact_aside keeps it)
_POINTING = re.compile(r"\b(?:here['’]?s|here is|this|these|take a look|check (?:it|this) out|look at)\b", re.I)


def fact_prior(sentence: str, tokens: list[str], lexicon: Lexicon, settings: OfflineSettings = DEFAULTS) -> float:
    """How likely a sentence states something about someone rather than reacting to it (module
    docstring, step 5; the turn's and the date's boosts are applied by the caller)."""
    return prior_of(prior_features(sentence, tokens, lexicon), settings)


def prior_features(sentence: str, tokens: list[str], lexicon: Lexicon) -> tuple[bool, bool, bool, bool, bool, bool]:
    """What fact_prior weighs, settings apart: (first person, second person, a question, a
    number, a name, a quoted title). A pure function of the sentence and the speakers."""
    forms = {base_form(t) for t in tokens}
    return (bool(forms & FIRST_PERSON), bool(forms & SECOND_PERSON), sentence.rstrip().endswith("?"),
            any(c.isdigit() for c in sentence), has_name(tokens, lexicon), bool(TITLE.search(sentence)))


def prior_of(features: tuple[bool, bool, bool, bool, bool, bool], settings: OfflineSettings) -> float:
    """fact_prior from prior_features."""
    first, second, question, *keys = features
    prior = settings.first_boost if first else 1.0
    if second and not first:
        prior *= settings.second_only
    if question:
        prior *= settings.question
    for present in keys:
        prior *= settings.key_boost if present else 1.0
    return prior


def replies(turns: list[Turn]) -> list[bool]:
    """Turns that reply to a question: the turn before, in the same session, is another
    speaker's and asks something (asides aside)."""
    def asks(turn: Turn) -> bool:
        return any(s.rstrip().endswith("?") for s in turn.sentences if not s.startswith("[") and not is_rendered(s))

    return [n > 0 and t.speaker is not None and turns[n - 1].speaker not in (None, t.speaker)
            and turns[n - 1].session == t.session and asks(turns[n - 1])
            for n, t in enumerate(turns)]


# A conversation's closing formula ("Let me know how it goes!", "Talk soon!"): a closed class of
# English, phatic even when a word in it is rarer than COMMON_ZIPF ("goes", "posted").
_CLOSING = re.compile(r"^(?:(?:and|so|just|please)\s+)?(?:let me know|keep me posted|keep me updated|keep me in the loop|"
                      r"talk (?:to you )?soon|take care|see you|catch you later|have fun|enjoy|good luck)\b"
                      r"(?:\s+(?:how (?:it|that|things|everything) (?:goes|go|went|turns out)|what happens|what you think|"
                      r"if you need (?:anything|help|me)))?[.!]*$", re.I)


# Catching up ("since we last talked", "long time no see"): the phrase itself says nothing, so a
# sentence is judged on the rest ("So much has happened since we last spoke" is phatic; "I went to
# a conference since we last spoke" is not).
_CATCHING_UP = re.compile(r"\b(?:(?:happened|happening|going on|up)\s+)?(?:ever )?since we (?:last )?"
                          r"(?:talked|spoke|chatted|caught up|met|talk|chat)\b|\blong time no (?:see|talk|chat)\b", re.I)


def _may_catch_up(sentence: str) -> bool:
    """Whether _CATCHING_UP can match: it needs "since we " or "long time no " (an ASCII sentence
    is tested by its lower case; any other is left to the pattern, as re.I folds a few
    non-ASCII letters onto ASCII ones)."""
    if not sentence.isascii():
        return True
    low = sentence.lower()
    return "since we " in low or "long time no " in low


def is_phatic(sentence: str, words: list[str]) -> bool:
    """No number and no word rarer than COMMON_ZIPF: it says nothing a reader needs."""
    if _CLOSING.match(sentence.strip()):
        return True
    if _may_catch_up(sentence) and (spans := _CATCHING_UP.findall(sentence)):
        said = {w.lower() for span in spans for w in TOKEN.findall(span)}
        words = [w for w in words if w not in said]
    return not any(c.isdigit() for c in sentence) and all(zipf(w) >= COMMON_ZIPF for w in words)


def speakers_of(turns: list[Turn]) -> set[str]:
    return {base_form(w) for t in turns if t.speaker for w in TOKEN.findall(t.speaker)}


def not_a_person(speaker: str | None) -> bool:
    """The agent ("assistant", "agent") or a tool/action line ("[tool]", "[action]")."""
    name = (speaker or "").strip().lower()
    return name in AGENT_SPEAKERS or (name.startswith("[") and name.endswith("]"))


def answers_asked(items: list[tuple], answering: list[bool]) -> set[int]:
    """Positions in `items` ((turn, sentence, tokens, concepts)) of the sentences of a reply that
    share a concept with a question of the turn replied to: "Any tips for low-impact exercises?"
    is answered by "As for low-impact exercises, swimming and yoga are good", not by the "I got
    it from a nearby restaurant" said first."""
    asked: dict[int, set[str]] = {}
    for n, s, _, concepts in items:
        if s.rstrip().endswith("?"):
            asked.setdefault(n, set()).update(concepts)
    return {pos for pos, (n, _, _, concepts) in enumerate(items)
            if answering[n] and not asked.get(n - 1, set()).isdisjoint(concepts)}


def shown_photos(turns: list[Turn], items: list[tuple]) -> set[int]:
    """Positions in `items` ((turn, sentence, ...)) of the photos their turn points at: a turn's
    only photo, where another of its sentences says "here's", "this", "take a look", ... (as
    said: trimming may drop the pointing clause, "..., they made this!")."""
    photos: dict[int, list[int]] = {}
    for pos, (n, s, *_) in enumerate(items):
        if _PHOTO.match(s):
            photos.setdefault(n, []).append(pos)
    return {found[0] for n, found in photos.items() if len(found) == 1
            and any(_POINTING.search(s) for s in turns[n].sentences
                    if not s.lstrip().startswith("[") and not is_rendered(s.lstrip()))}

