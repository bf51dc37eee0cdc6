"""What a candidate fact is worth keeping: rare content, without filler, that the store lacks.

A store that keeps every clause about a person grows as fast as the chat and mostly repeats
it: "Ana is so grateful for all the support", "Marina is up for the challenge", the
same trip told twice. What a later question asks about is the specific part: names, numbers,
titles, places, objects, activities. Four pure functions of the text follow from that:

- `worth`: the sum, over the distinct content words of a text, of how rare each is in
  English (wordfreq Zipf, words.zipf): max(0, RARE_BASE - zipf). Function words
  (text.STOPWORDS), the closed classes of feelings, praise, light verbs and time words
  (clauses.VAGUE, lexicon.PHATIC) and the names of the people talking weigh nothing; a number
  weighs NUMBER_WEIGHT; a capitalised word past the first (a name, a title) at least
  NAME_WEIGHT, as do a pastime named by "go" and its -ing form ("went fishing"), the place
  someone went to ("took the kids to the aquarium"), a thing they got new ("got some new
  shoes") and a life event ("graduated", "had a baby"; text.specifics): what a person does, where
  they go, what they get and how their life changes are what questions ask about, and the words'
  commonness hides it. "went to a pottery workshop" weighs
  about 4; "is up for the challenge" about 1.
- `tidy`: the clause without intensifiers ("really", "super", "so" before a word of
  feeling), emoticons, and a trailing evaluation ("..., and it was really enlightening"):
  they say how the speaker felt about the fact, not what happened.
- `kind_of`: what a predicate tells: an "event" (went, is taking, was hit by, has finished,
  goes sailing, a goal's "is to run a marathon", an effort's "is trying to quit smoking"),
  an "attitude" (a feeling, wish, belief or intention: is grateful, wants to, will keep,
  can make, felt liberated, is staying hopeful), or a "state" (mentors a teen, is a coach).
- `novel`: the plain clauses of a batch that add enough to what is known, i.e. to the
  neighbours the facts step shows (the stored facts nearest to the batch's lines) and to the
  batch's earlier claims. A clause's `new_worth` is the worth of its content words that the
  known texts lack; it must reach NEED[kind] + PER_WORD per word of the fact: what happened (or
  a standing wish told to the agent, "rule") needs little, a feeling or intention needs more,
  and a longer fact must say more to earn its length. A clause that adds less is a repeat,
  however it is worded, or talk about nothing.

Why drop at extraction rather than store everything with a low importance: the store's own
scoring (importance x recency x strength) ranks by use and age, not by content, so a clause of
no substance would sit in the store, take an embedding row, crowd the neighbours shown for
later batches and the facts section of context.md, and leave only months later under
facts.score_floor. A fact never written costs nothing. Among the facts kept, attitudes get a
lower importance (model.py), so they rank below events and fade sooner when unused.

Known limits: rarity is not meaning ("savor the good vibes" weighs more than "made dinner for
the kids"); the known texts are all the neighbours, whoever they are about, so a second
person doing the same thing with no new detail adds nothing (a name that is not a speaker's
counts as a new word, so "Ana went to the pottery class too" is kept the first time Ana is
seen near it).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Mapping

from consolidator.model.offline.clauses import VAGUE
from consolidator.model.offline.reldates import DATE_NOTE, start_of
from consolidator.model.offline.text import TIME_ONLY, activities, life_events, specifics, stem
from consolidator.model.offline.words import IRREGULAR_PAST, NUMBER_WORDS, PHATIC, STOPWORDS, zipf

RARE_BASE = 6.0  # a word weighs max(0, RARE_BASE - zipf): "the" (7.7) 0, "support" (5.5) 0.5, "pottery" (3.7) 2.3
NUMBER_WEIGHT = 3.0  # "18th", "2022", "10 miles": numbers are what questions ask for
NAME_WEIGHT = 3.0  # a capitalised word past the first (a name, title), a pastime, a destination: at least this
MIN_WORTH = 2.0  # a clause about a person is a fact from this worth on
MIN_WORTH_SAID = 3.0  # a clause kept in the speaker's name (no person for subject) needs more
EVALUATION_WORTH = 3.0  # "it was ..." below this worth is an evaluation, cut from the clause
NEED = {"event": 0.7, "rule": 0.7, "attitude": 4.0, "state": 2.5, "said": 2.5}  # new worth a clause must add, by kind...
PER_WORD = 0.11  # ...plus this per word of the fact: a longer fact must say more

_WORD = re.compile(r"[A-Za-z0-9]+(?:['-][A-Za-z0-9]+)*")
# A number said in words before what it counts ("has two kids", "speaks three languages") is a number.
_COUNTS = re.compile(rf"\b({'|'.join(w for w, n in NUMBER_WORDS.items() if n > 1)}) "
                     r"(?!(?:days?|weeks?|months?|years?|hours?|minutes?|times?|of)\b)[a-z]+", re.I)
_WEIGHTLESS = frozenset(STOPWORDS | VAGUE | PHATIC)

# Intensifiers: they grade a statement, they never carry it. ("kinda", "sorta" are hedges: they
# stay, as "I think" does, so a fact never states more surely than it was said.)
_FILLER = re.compile(
    r"\b(?:really|super|totally|truly|definitely|absolutely|honestly|literally|basically|actually)"
    r"\s+(?=[\w'])",
    re.I,
)
# "so", "very", "pretty", "quite", "such" only grade a following word of feeling or degree.
# ("pretty sure", "quite sure" hedge: they stay.)
_DEGREE = re.compile(r"\b(?:so|very|(?:pretty|quite)(?!\s+sure\b)|such a|such)\s+(?=(?P<w>[A-Za-z]+)\b)", re.I)
_DEGREE_WORDS = frozenset({"much", "many"})
_TRAILING_DEGREE = re.compile(r"(?:,\s*|\s+)(?:so much|very much|so many|a lot|a ton|too|btw|by the way)$", re.I)  # + asides
_EMOTICON = re.compile(r"(?<!\w)(?:<3+|[:;]-?[()DPp]|xD)(?!\w)")
# A trailing evaluation: "and it was really enlightening", "- it was fun", ", which is exciting".
# An exclamation that judges what was just said: "..., what a mess", "... though, what a day".
_EXCLAIMED = re.compile(r"(?:\s+though)?,\s*what an? [a-z]+(?: [a-z]+)?\s*$", re.I)
_EVALUATION = re.compile(
    r"(?:\s*[,;]|\s+[-\u2013\u2014]+|\s+and|,?\s+which)\s+(?:it|that|this|which)\s+"
    r"(?:was|is|has been|had been|were|are|felt|feels|looked|looks|sounded|sounds)\s+"
    r"(?:(?:so|really|super|pretty|very|quite|truly|totally|such|a|an|just)\s+)*"
    r"[A-Za-z-]+(?:\s+(?:experience|time|day|night|feeling|moment|one))?\s*$",
    re.I,
)
_EVALUATING = re.compile(
    r"(?:it|that|this|which|everything|it all)\s+(?:is|was|has been|had been|felt|feels|looked|looks|seemed|seems|"
    r"sounds|sounded)\b",
    re.I,
)


# --- worth -----------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def word_weight(word: str) -> float:
    """How rare a lower-cased word is in English: max(0, RARE_BASE - zipf); unknown words weigh RARE_BASE."""
    return max(0.0, RARE_BASE - zipf(word))


def _weights(text: str, names: tuple[str, ...]) -> dict[str, float]:
    skip = {part.lower() for name in names for part in name.split()}
    pastimes = specifics(text)
    counted = {m.group(1).lower() for m in _COUNTS.finditer(text)}
    events = life_events(text)  # "moved in with": a light verb that says a life changed
    found: dict[str, float] = {}
    for i, token in enumerate(_WORD.findall(DATE_NOTE.sub("", text))):
        low = token.lower()
        low = low[:-2] if low.endswith("'s") else low
        if (low in _WEIGHTLESS and low not in events) or low in skip or any(
                low.startswith(s) and len(low) - len(s) <= 1 for s in skip):
            continue
        if any(c.isdigit() for c in token) or low in counted:
            weight = NUMBER_WEIGHT
        else:
            weight = word_weight(low)
            if i > 0 and token[:1].isupper() or low in pastimes:
                weight = max(weight, NAME_WEIGHT)
        key = stem(low)
        found[key] = max(found.get(key, 0.0), weight)
    return found


def worth(text: str, names: Iterable[str] = ()) -> float:
    """The rarity of the text's distinct content words (see the module docstring); `names` weigh nothing."""
    return sum(_weights(text, tuple(names)).values())


def new_worth(text: str, known_stems: set[str], names: Iterable[str] = ()) -> float:
    """`worth` counting only the content words whose stems are not in `known_stems`."""
    return sum(w for key, w in _weights(text, tuple(names)).items() if key not in known_stems)


def stems_of(text: str) -> set[str]:
    """The stems `new_worth` compares: every word's, dates left out."""
    return {stem(low[:-2] if low.endswith("'s") else low)
            for low in (t.lower() for t in _WORD.findall(DATE_NOTE.sub("", text)))}


# --- filler ----------------------------------------------------------------------------------


def tidy(clause: str) -> str:
    """The clause without intensifiers, emoticons and a trailing evaluation (see the module docstring)."""
    out = _EXCLAIMED.sub("", _EVALUATION.sub("", _EMOTICON.sub("", clause)))
    out = _FILLER.sub("", out)
    out = _TRAILING_DEGREE.sub("", out)
    out = _DEGREE.sub(lambda m: "" if is_stance(m.group("w")) or m.group("w").lower() in _DEGREE_WORDS
                      else m.group(0), out)
    return " ".join(out.split())


def is_evaluation(piece: str) -> bool:
    """'it was really enlightening', 'which is so much fun': a judgement of what was just said,
    with nothing rare in it ("it was a workshop on Kafka" is not one)."""
    return bool(_EVALUATING.match(piece.strip())) and worth(piece) < EVALUATION_WORTH


# --- kinds -----------------------------------------------------------------------------------

_ATTITUDE_VERBS = frozenset(
    """can could will would should might may must cannot wants hopes wishes needs feels thinks believes knows loves
    likes enjoys agrees wonders appreciates cherishes misses prefers felt thought believed hoped wished agreed bet
    guess guesses""".split()
)
_LINKING = frozenset("staying stayed stays remaining remained keeping kept".split())  # "is staying hopeful"
_COPULAS = frozenset("is was are were am".split())
_AWAY = frozenset("back home away off".split())
_STANCE_FORMS = frozenset(
    """going feeling thinking hoping wishing wanting trying loving enjoying excited thrilled stoked inspired
    interested tired worried scared amazed impressed blessed""".split()
)
_STANCES = frozenset(
    """up able ready keen sure determined passionate hopeful optimistic eager motivated confident nervous afraid
    anxious gonna""".split()
) | _STANCE_FORMS
_PARTICIPLES = frozenset("been gotten known seen done taken given grown begun written drawn won broken chosen".split())
_ADVERBS = frozenset(
    "just also finally really still always never recently already even now actually officially currently totally "
    "definitely so very pretty super not no longer".split()
)


def is_stance(word: str) -> bool:
    """A word of feeling, praise or stance ("great", "grateful", "excited", "sure")."""
    low = word.lower()
    return low in _STANCES or low in VAGUE or low in PHATIC


def kind_of(predicate: str) -> str:
    """"event", "attitude" or "state" for a third-person predicate (see the module docstring)."""
    words = [w.strip(",.;:!?\"'").lower() for w in predicate.split()]
    words = [w for w in words if w and w not in _ADVERBS]
    if not words:
        return "state"
    verb, nxt = words[0], (words[1] if len(words) > 1 else "")
    if verb in _ATTITUDE_VERBS:
        return "attitude"
    if activities(predicate):  # "is off to go fishing", "goes sailing": something done
        return "event"
    if (verb in _LINKING or verb in _COPULAS and nxt in _LINKING) and any(is_stance(w) for w in words[1:4]):
        return "attitude"  # "is staying hopeful", "stays positive": a stance kept, not something done
    if verb in _COPULAS and nxt == "trying" and words[2:3] == ["to"]:  # an effort under way, as a goal is:
        linking = words[3:4] in (["be"], ["stay"], ["keep"], ["remain"], ["feel"])  # "trying to stay upbeat"
        return "attitude" if linking or any(is_stance(w) for w in words[3:6]) else "event"
    if verb in _COPULAS:  # "is taking a class", "was hit by": under way or done; "is grateful": a stance
        if nxt.endswith(("ing", "ed")) and nxt not in _STANCE_FORMS or nxt in IRREGULAR_PAST or nxt == "to":
            return "event"
        if TIME_ONLY.match(" ".join(words[1:])):
            return "state"  # "is next Saturday": when it is, no stance
        if nxt in _AWAY:
            return "event"  # "is back from Japan", "is off to Lisbon": a coming or going
        return "attitude" if is_stance(nxt) else "state"
    if verb in ("has", "had", "have"):
        done = nxt.endswith("ed") or nxt in IRREGULAR_PAST or nxt in _PARTICIPLES or verb == "had" and nxt == "to"
        return "event" if done else "state"
    return "event" if verb.endswith("ed") or verb in IRREGULAR_PAST else "state"


# --- novelty ---------------------------------------------------------------------------------


# What ends a plan or a state ("not going to Berlin anymore", "the trip got cancelled"): news
# however little it adds in words, and what supersedes the fact it ends (extraction._decide).
ENDED = re.compile(r"\b(?:any ?more|no longer|any longer|cancell?ed|called off|(?:is|are|was|were) off)\b"
                   r"|\b(?:not|cannot) (?:be )?(?:come|coming|go|going|make it|making it|happen|happening|visit|visiting|"
                   r"fly|flying|travel|travell?ing)\b[^.,;]*?\bafter all\b", re.I)  # "Lucia can't come after all"


def novel(claims: list, known_texts: Iterable[str], speakers: Iterable[str] = (),
          said_on: Mapping[str, str] | None = None) -> list:
    """The claims, less the plain clauses ("event" claims) that add under their NEED to what the
    known texts and the batch's earlier claims say (see the module docstring). The speakers'
    names count as known: every fact about them names them. An ending (ENDED) is always news, and
    so is a plan's day: a claim that happens after the day its line was said (`said_on`, line id
    to local day) is news by its date ("My friend Rui is coming on Saturday": Rui is known by then)."""
    said_on = said_on or {}
    speakers = tuple(s for s in speakers if s)
    known: set[str] = set()
    texts = list(known_texts)
    for text in texts:
        known |= stems_of(text)
    out = []
    for claim in claims:
        if claim.attribute == "event" and not ENDED.search(claim.text):
            words = len(DATE_NOTE.sub("", claim.text).split())
            need = NEED.get(claim.kind or "state", NEED["state"]) + PER_WORD * words
            added = new_worth(claim.text, known, speakers)
            ahead = bool(claim.source_ids) and start_of(claim.happened) > said_on.get(claim.source_ids[0], "~")
            dated = (added > 0 or ahead) and bool(claim.happened) and not any(claim.happened in text for text in texts)
            if added + NUMBER_WEIGHT * dated < need:
                continue  # (an event's own date said for the first time is news: "We land in Tokyo on April 4")
        known |= stems_of(claim.text)
        texts.append(claim.text)
        out.append(claim)
    return out

