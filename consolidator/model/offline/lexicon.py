"""Word weights for the offline summariser: how rare a word is in English, and which words never count.

- Rarity: max(0, 7 - zipf), where zipf is wordfreq's English Zipf frequency (the "small"
  list, 29k words; words not in it are rarer than zipf 3 and weigh 7, as names do; the one
  lookup is words.zipf).
- Never scored: function words (text.STOPWORDS), the closed class of interjections and
  reactions (words.PHATIC) (greetings, thanks, agreement, generic praise and feeling), negation
  clitics, and the speakers' own names with their short forms ("Mari" for "Marina").
- Names: a capitalised word past the first of a sentence that is not a speaker, "I" or a
  calendar word (text.NAME_STOPWORDS), read without its clitic: "I'm", "I've" and "Monday's"
  are no names (they were, and gave every sentence with a second "I'm" a name's boost).
"""

from __future__ import annotations

from functools import lru_cache

from consolidator.model.offline.words import MAX_ZIPF, NAME_STOPWORDS, PHATIC, STOPWORDS, zipf

@lru_cache(maxsize=1 << 16)
def base_form(token: str) -> str:
    """Lower-cased token without its clitic: "Marina's" -> "marina", "that's" -> "that"."""
    low = token.lower().replace("’", "'")
    if low.endswith("n't"):
        return "not"
    return low.split("'", 1)[0]


class Lexicon:
    """What one request's words weigh: rarity, minus the speakers' names."""

    def __init__(self, speakers: set[str]) -> None:
        self.speakers = speakers
        self._scored: dict[str, str | None] = {}  # token -> its scored base form, or None
        self._speaker: dict[str, bool] = {}

    def is_speaker(self, token: str) -> bool:
        known = self._speaker.get(token)
        if known is None:
            low = base_form(token)
            known = self._speaker[token] = low in self.speakers or (
                token[:1].isupper() and len(low) >= 3 and any(name.startswith(low) for name in self.speakers))
        return known

    def scored(self, tokens: list[str]) -> list[str]:
        """The base forms that carry weight: no function words, reactions or speakers."""
        out = []
        for token in tokens:
            word = self._scored.get(token, "")
            if word == "":
                word = base_form(token)
                if not word or word in STOPWORDS or word in PHATIC or word == "not" or self.is_speaker(token):
                    word = None
                self._scored[token] = word
            if word is not None:
                out.append(word)
        return out

    @staticmethod
    def weight(word: str) -> float:
        return max(0.0, MAX_ZIPF - zipf(word))


def names_in(tokens: list[str], lexicon: Lexicon) -> set[str]:
    """Capitalised words past the first that are not a speaker, "I" or a calendar word."""
    return {t for t in tokens[1:] if t[:1].isupper() and base_form(t) not in NAME_STOPWORDS and not lexicon.is_speaker(t)}


def has_name(tokens: list[str], lexicon: Lexicon) -> bool:
    """`names_in(tokens)` is not empty (without building it)."""
    return any(t[:1].isupper() and base_form(t) not in NAME_STOPWORDS and not lexicon.is_speaker(t) for t in tokens[1:])
