"""Chat as written out before any rule reads it: straight quotes, casual spellings spelled out
("im" -> "I'm", "pls" -> "please"), contractions expanded ("she's" -> "she is", "didn't" ->
"did not", "Mom's in hospital" -> "Mom is in hospital"), a month typed in lower case
capitalised. Pure functions of the text.
"""

from __future__ import annotations

import re

from consolidator.model.offline.words import MONTHS

QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_APOSTROPHE = re.compile(r"\b([A-Za-z]+)'([A-Za-z]+)\b")
_INVERTED = re.compile(r"\s+(?:i|you|he|she|it|we|they)\b", re.I)  # a subject after the verb: a question
_NOT_BASES = frozenset("do does did is are was were has have had could would should".split())
_EXPANSIONS = {  # (word, ending) -> the words it stands for ("she's" -> "she is")
    **{("i", e): f"I {w}" for e, w in (("m", "am"), ("ve", "have"), ("d", "would"), ("ll", "will"))},
    **{(p, "s"): "is" for p in ("she", "he", "it", "that", "there")},
    **{(p, "re"): "are" for p in ("they", "we", "you")},
    **{(p, "ll"): "will" for p in ("we", "you", "they", "she", "he", "it", "that", "there", "who")},
    **{(p, "ve"): "have" for p in ("we", "you", "they", "who")},
    **{(p, "d"): "would" for p in ("we", "you", "they", "she", "he")},
}


# "It's been", "she's got": the "'s" of a perfect is "has", never "is"
_HAS_PERFECT = re.compile(r"\b(she|he|it|that|there|who|what)'s (?=(?:been|got|gotten|had)\b)", re.I)
_HAD_BETTER = re.compile(r"\b(i|we|you|they|she|he)'d (?=better\b)", re.I)  # "I'd better go": had, never would


# A name's or a noun's "'s" before what no possession precedes is a verb: "is", or "has" before a perfect.
_NOUN_VERB = re.compile(r" (?:(?:still|always|never|also|just|really|already) )?(?:(been|got|gotten|had)|in|at|on|from|with|"
                        r"away|out|off|here|there|over|a|an|the|not|so|very|too|such|now|coming|going|moving|"
                        r"staying|visiting|leaving|getting|starting)\b(?!-)", re.I)
_NOT_NOUNS = frozenset("let what who where how here one".split())
_AT_HOME_OF = re.compile(r"\b(?:at|to|from|by|near|round|over)\s+(?:my |our |the )?$", re.I)  # "dinner at Ana's on Monday"


def _expand(m: re.Match[str]) -> str:
    word, ending = m.group(1), m.group(2).lower()
    low = word.lower()
    if ending == "t" and low.endswith("n"):
        if _INVERTED.match(m.string, m.end()):
            return m.group(0)  # "didn't he?", "why don't we": "did not he" is no English
        base = word[:-1]
        if base.lower() in _NOT_BASES:
            return f"{base} not"
        if low in ("can", "won"):
            return "cannot" if low == "can" else "will not"
        return m.group(0)
    expansion = _EXPANSIONS.get((low, ending))
    if (expansion is None and ending == "s" and low not in _NOT_NOUNS and (after := _NOUN_VERB.match(m.string, m.end()))
            and not _AT_HOME_OF.search(m.string, 0, m.start())):
        return f"{word} {'has' if after.group(1) else 'is'}"  # "Mom's in hospital", "Ana's got a new job"
    if expansion is None:
        return m.group(0)
    return expansion if low == "i" else f"{word} {expansion}"


_DOUBLE_QUOTED = re.compile(r'("[^"]*")')


# Chat typed fast: "im allergic to penicillin", "i dont", "pls", "u": the words as spelled out.
_CASUAL = {"im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "wont": "won't", "didnt": "didn't",
           "doesnt": "doesn't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "werent": "weren't",
           "havent": "haven't", "hasnt": "hasn't", "couldnt": "couldn't", "shouldnt": "shouldn't",
           "wouldnt": "wouldn't", "thats": "that's", "whats": "what's", "youre": "you're", "theyre": "they're",
           "shes": "she's", "hes": "he's", "pls": "please", "plz": "please", "u": "you", "ur": "your",
           "bday": "birthday", "i": "I"}
# A month typed in lower case after a word that dates it ("in june", "by october"); "may" and "march" are verbs too.
_LOWER_MONTH = re.compile(r"\b(in|on|by|since|until|till|from|of|last|next|this|early|late|mid) "
                          rf"({'|'.join(m for m in MONTHS if m not in ('may', 'march'))})\b")
_CASUAL_WORD = re.compile(rf"(?<![\w'.-])(?:{'|'.join(_CASUAL)})(?![\w'-]|\.\w)", re.I)


def _spelled_out(m: re.Match[str]) -> str:
    word, low = m.group(0), m.group(0).lower()
    if word.islower() or low in ("im", "i"):
        return _CASUAL[low]
    if word[:1].isupper() and word[1:].islower() and "'" in _CASUAL[low]:  # "Dont", "Thats" opening a sentence
        return _CASUAL[low][:1].upper() + _CASUAL[low][1:]
    return word


# "Both of us love hiking": we, both; "for both of us": for both of them (an "us" is the speaker alone)
_ALL_OF_US = re.compile(r"(?:(?<=^)|(?<=[.!?,;:]\s)|(?<=\band\s)|(?<=\bso\s))(both|all|the two|the three) of us\b", re.I)
_OF_US = re.compile(r"\b(both|all|each|either|neither|two|three|four|none) of us\b", re.I)


def normalise(text: str) -> str:
    """Straight quotes, chat's casual spellings written out ("im" -> "I'm", "pls" -> "please"),
    expanded contractions, "both of us" as the "we" or "both of them" it is, single spaces. A
    double-quoted span is a quotation and keeps its words as said ('"an offer he can't refuse"',
    never "cannot")."""
    out = _LOWER_MONTH.sub(lambda m: f"{m.group(1)} {m.group(2).capitalize()}",
                           _CASUAL_WORD.sub(_spelled_out, text.translate(QUOTES)))
    if " of us" in out.lower():
        out = _OF_US.sub(r"\1 of them", _ALL_OF_US.sub(lambda m: f"{'W' if m.group(1)[0].isupper() else 'w'}e "
                                                                   f"{m.group(1).lower()}", out))
    if "'" in out:
        out = "".join(part if n % 2 else _APOSTROPHE.sub(_expand, _HAD_BETTER.sub(r"\1 had ", _HAS_PERFECT.sub(r"\1 has ", part)))
                      for n, part in enumerate(_DOUBLE_QUOTED.split(out)))
    return " ".join(out.split())
