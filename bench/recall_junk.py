"""Junk heuristics of the recall bench: facts about nobody, contacts that are not people, tasks
with no action, summaries above the day rung made of greetings.

Heuristics, not truths; they are the same for every backend, so rates compare across runs.

Named thing. A word names a person or a thing when it is a known person (a speaker, or a
contact that passes the contact rule), or when it is capitalised and, in THIS conversation's
transcript, appears capitalised mid-sentence more often than in lower case ("Thanks,
Caroline!" vs "that sounds great"). A capitalised word the transcript never shows mid-sentence
or in lower case counts as a name only if it is rare in English (wordfreq zipf < 3.0 for its
lower-case form); so sentence openers and interjections ("Sounds", "Wow", "Unconditional")
are not names. Pronouns and other stop words never are.

- Fact junk: the fact's subject, its leading run of capitalised words (its first word if that
  is lower case), holds no named word ("Sounds likes your event", "I love it", "it was fun"),
  nor does the subject after a fronted phrase of at most five words and a comma ("Last
  month, Melanie ..." is not junk; "Well, sounds like ..." is).
- Contact junk: the name is not a speaker and none of its words is a named word.
- Task junk: no verb-like word where an action goes: the first word (imperative, "Call the
  bank"), the word after "to" or a modal ("need to call", "will send"), or the word after a
  leading named subject ("Maya calls ..."). Verb-like: a common English verb (the list below)
  in any simple inflection (-s, -es, -ed, -ing, -ies), or a word ending -ize/-ise/-ify.
- Summary junk (rungs above the day: what re-selection from the days must not end with):
  half or more of its sentences are greetings or bare reactions, i.e. have no number and no
  word rarer than zipf PHATIC_ZIPF apart from the speakers' names ("Hey Mel!", "Wow, that's so
  cool!", "Thanks, Caroline!"). Session headers ("2023-05-08 13:56") and "Speaker:" labels
  are not sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from wordfreq import zipf_frequency

from bench.recall_match import STOP_WORDS

RARE_ZIPF = 3.0
PHATIC_ZIPF = 5.0  # "hey", "thanks", "wow", "great", "cool", "good" are at least this common
_HEADER = re.compile(r"^\s*\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?\s*$")
_LABEL = re.compile(r"^\s*[^:\n]{1,40}:\s+")  # "Caroline: " opening a line
_TIMED_LABEL = re.compile(r"(?:\d{4}-\d{2}-\d{2} )?\b\d{2}:\d{2} [A-Z][^:\n]{0,39}:\s+")  # "13:56 Caroline: " anywhere
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+|\n+")
MODALS = frozenset("to will would should must need needs going gotta have has can could shall might may "
                   "want wants plan plans try tries remember don't dont".split())
VERBS = frozenset("""
accept add adopt agree aim allow answer apply arrange ask attend avoid bake be become begin believe book
borrow bring build burn buy call cancel care carry catch celebrate change charge chat check choose clean
clear climb close collect come compare complete confirm connect consider contact continue cook copy count
cover create cut dance deal decide deliver design develop do donate draw dress drink drive drop earn eat
email enjoy enter explore express feed feel fetch fight figure fill find finish fix fly focus follow forget
forgive get give go grab grow hang have help hike hire hold host hug improve invite join jog keep kick knit
know launch learn leave lend let lift like listen live look lose love make manage meet mend message move
need note offer open order organise organize pack paint pass pay pick plan plant play post practice
practise prepare print promise protect publish pull push put raise reach read rebuild record recover reflect
register relax remember remind remove renew rent repair reply report research reserve rest return review ride
run save say schedule search see sell send set settle share shop show sign sing sit skate ski sleep speak
spend start stay stop study submit support swim take talk teach tell text thank think train travel try turn
update upload use visit volunteer wait walk wash watch water wear win work write
ate bought brought built came did done drew drove eaten fed felt found gave given gone got held kept knew
known left lent made met paid ran read said sang sat saw seen sent shown sold spent spoke stood swam taken
taught thought told took went won wore written wrote
""".split())


class CaseStats:
    """How a conversation writes each word: capitalised mid-sentence vs in lower case."""

    def __init__(self, texts: Iterable[str]):
        self.mid_capital: Counter[str] = Counter()
        self.lower: Counter[str] = Counter()
        for text in texts:
            for sentence in _SENTENCE_END.split(text):
                for k, word in enumerate(_WORD.findall(sentence)):
                    key = _base(word).lower()
                    if word[0].islower():
                        self.lower[key] += 1
                    elif k > 0:
                        self.mid_capital[key] += 1


def _base(word: str) -> str:
    """The word without a possessive ("Caroline's" -> "Caroline") or trailing hyphen."""
    word = word.replace("\u2019", "'").strip("'-")
    return word[:-2] if word.lower().endswith("'s") else word


def is_named(word: str, stats: CaseStats, people: set[str]) -> bool:
    """Is this word (as written) a person or a named thing? See the module docstring."""
    word = _base(word)
    key = word.lower()
    if key in people:
        return True
    if not word[:1].isupper() or key in STOP_WORDS or key in ("i", "im", "ive", "id", "ill"):
        return False
    mid, low = stats.mid_capital[key], stats.lower[key]
    if mid or low:
        return mid > low
    return zipf_frequency(key, "en") < RARE_ZIPF


_FRONTED = re.compile(r"^\s*(?:[^\s,]+\s+){0,4}[^\s,]+,\s+(.+)$", re.S)


def subject_words(text: str) -> list[str]:
    """The leading run of capitalised words, or the first word when it is lower case."""
    words = _WORD.findall(text)
    run = []
    for word in words:
        if not word[:1].isupper():
            break
        run.append(word)
    return run or words[:1]


def fact_is_junk(text: str, stats: CaseStats, people: set[str]) -> bool:
    """No named word in the subject. When the sentence opens with a fronted phrase of at most
    five words and a comma ("Last month, Melanie got hurt"), the words after it are the
    subject too."""
    if any(is_named(w, stats, people) for w in subject_words(text)):
        return False
    fronted = _FRONTED.match(text)
    return not (fronted and any(is_named(w, stats, people) for w in subject_words(fronted.group(1))))


def contact_is_junk(name: str, stats: CaseStats, speakers: set[str]) -> bool:
    if name.strip().lower() in speakers:
        return False
    return not any(is_named(w, stats, speakers) for w in _WORD.findall(name))


def is_verb_like(word: str) -> bool:
    w = _base(word).lower()
    if w.endswith(("ize", "ise", "ify", "ized", "ised", "ified", "izing", "ising", "ifying")):
        return True
    forms = {w, w[:-1], w[:-2], w[:-3], w[:-3] + "e", w[:-1] + "e" if w.endswith("ed") else w}
    if w.endswith("ies") or w.endswith("ied"):
        forms.add(w[:-3] + "y")
    if len(w) > 5 and w.endswith("ing") and w[-4] == w[-5]:
        forms.add(w[:-4])  # "running" -> "run"
    if len(w) > 4 and w.endswith("ed") and w[-3] == w[-4]:
        forms.add(w[:-3])  # "stopped" -> "stop"
    return any(f in VERBS for f in forms if f)


def task_is_junk(title: str, stats: CaseStats, people: set[str]) -> bool:
    words = _WORD.findall(title)
    if not words:
        return True
    slots = [0]
    slots += [k + 1 for k, w in enumerate(words[:-1]) if w.lower() in MODALS]
    if is_named(words[0], stats, people):
        slots.append(1)
    return not any(is_verb_like(words[k]) for k in slots if k < len(words))


def summary_sentences(text: str) -> list[str]:
    """The sentences of a summary, without session headers and "Speaker:" labels."""
    out = []
    for line in text.splitlines():
        if _HEADER.match(line):
            continue
        line = _LABEL.sub("", _TIMED_LABEL.sub(" ", line), count=1)
        out += [s for s in _SENTENCE_END.split(line) if _WORD.search(s)]
    return out


def is_phatic_sentence(sentence: str, speakers: set[str]) -> bool:
    """No number, and no word rarer than PHATIC_ZIPF but the speakers' names."""
    if any(c.isdigit() for c in sentence):
        return False
    words = [w.lower().strip("'\u2019-") for w in _WORD.findall(sentence)]
    return all(w in speakers or zipf_frequency(w, "en") >= PHATIC_ZIPF for w in words if w)


def summary_is_junk(text: str, speakers: set[str]) -> bool:
    """Half or more of the summary's sentences are greetings or bare reactions."""
    found = summary_sentences(text)
    return bool(found) and 2 * sum(is_phatic_sentence(s, speakers) for s in found) >= len(found)
