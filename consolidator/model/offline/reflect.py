"""The offline model's reflections: an extractive list of what a subject's related facts say.

`reflect(request)` takes one subject's facts (the offline pass grouped them by subject and
embedding, from two sessions or more) and writes one line that names the subject and lists an
item per fact, each cut from that fact's own words: the subject, a leading "said:", a photo's
caption and the clause after the first comma or dash are left out; the fact's date stays beside
its item, and an item over ten words is cut to end on a content word. Items that add no content
word to the ones before are skipped; at most `max_items`, those with the most content words
first, kept in the facts' order. The line is headed by the topic at least half of the facts
were given (the request's `topic`: "pets", "work"), else by the words the items share most (in two
items or more; not a verb's past form, "went", "shared"), so it reads as what the facts have in common:

    "Ana - rowing: joined a rowing club (2024-03-02); bought a rowing machine ..."

Pure: the same request gives the same reply; nothing is invented, so every content word of an
item is in the fact it cites (bench/recall_reflect.py measures this on both backends).
"""

from __future__ import annotations

import re
from collections import Counter

from consolidator.model.offline.text import content_stems, normalise, past_form, stem
from consolidator.model.offline.words import MONTHS, STOPWORDS, WEEKDAYS
from consolidator.model.schemas import KnownFact, ReflectReply, ReflectRequest

_DATE = re.compile(r"\s*\((?P<date>(?:week of |since )?(?:\d{4}(?:-\d{2}){0,2}|[A-Z][a-z]+ \d{4}))\)")
_PHOTO = re.compile(r"\s*\(photo: [^)]*\)")
_SAID = re.compile(r"^(?:said|says|wrote)\s*:\s*", re.I)
_CUT = re.compile(r"\s+-\s+|[,;:]\s+|\s+(?:which|because|so that|but)\s+", re.I)
_LEAD = re.compile(r"^(?:also|even|just|finally|really|always)\s+", re.I)
MAX_ITEM_WORDS = 10
# Where a cut item may not end either: prepositions STOPWORDS leaves as words of weight, which say
# nothing once the phrase after them is cut ("a sunset over"). Particles that end a phrasal verb
# ("grew up", "worked out") are not among them.
_DANGLING = frozenset("""over under above below across through near behind beside between around along against
toward towards during without within upon like than via per""".split())
_NOT_LAST = STOPWORDS | _DANGLING
THEME_WORDS = 3
_CALENDAR = frozenset(stem(w) for w in (*MONTHS, *WEEKDAYS))


def reflect(request: ReflectRequest) -> ReflectReply:
    """One extractive line over the request's facts (module docstring); empty when fewer than two
    facts give an item."""
    items = [(f, item) for f in request.facts if (item := item_of(f.text, request.subject))]
    chosen = _choose(items, request.max_items)
    if len(chosen) < 2:
        return ReflectReply()
    # lists: ties go to the first said, in any process; a date is no theme ("June 14", "(June 2025)")
    stems = [[s for s in content_stems(normalise(_DATE.sub("", text))) if s not in _CALENDAR] for _, text in chosen]
    shared = Counter(s for group in stems for s in group)
    words: dict[str, str] = {}  # a stem's word: its last form said, one that is no past form first ("hiking")
    for w in (w for _, text in chosen for w in re.findall(r"[A-Za-z][A-Za-z'-]+", text)):
        for s in content_stems(normalise(w)):
            if s not in words or past_form(words[s]) or not past_form(w):
                words[s] = w
    own = set(content_stems(normalise(request.subject)))
    topic = " ".join(request.topic.split())
    theme = [topic] if topic else [
        words[s] for s, n in shared.most_common() if n >= 2 and s in words and s not in own
        and not words[s].lower().startswith(request.subject.lower()) and not past_form(words[s])][:THEME_WORDS]
    head = f"{request.subject} - {', '.join(theme)}" if theme else request.subject
    return ReflectReply(text=f"{head}: {'; '.join(text for _, text in chosen)}.",
                        rests_on=[f.id for f, _ in chosen])


def item_of(text: str, subject: str) -> str:
    """The words of one fact that say what it adds about `subject`, with its date ('' when none)."""
    body = _PHOTO.sub("", text.strip().rstrip("."))
    dates = [m.group("date") for m in _DATE.finditer(body)]
    body = _DATE.sub("", body).strip()
    if body.lower().startswith(subject.lower()):
        body = body[len(subject):].lstrip(" '").removeprefix("s ").strip()
    body = _LEAD.sub("", _SAID.sub("", body))
    body = _CUT.split(body, maxsplit=1)[0].strip(" .-")
    words = body.split()
    if not content_stems(normalise(body)):
        return ""
    if len(words) > MAX_ITEM_WORDS:  # a cut item ends on a content word, not "... encouraged students to"
        words = words[:MAX_ITEM_WORDS]
        while len(words) > 1 and words[-1].lower().strip(".,'\"") in _NOT_LAST:
            words.pop()
    body = " ".join(words)
    return f"{body} ({dates[-1]})" if dates else body


def _choose(items: list[tuple[KnownFact, str]], limit: int) -> list[tuple[KnownFact, str]]:
    """Up to `limit` items that each add a content word to the ones before, richest first, then
    put back in the facts' order."""
    ranked = sorted(range(len(items)), key=lambda i: (-len(content_stems(normalise(items[i][1]))), i))
    seen: set[str] = set()
    keep: list[int] = []
    for i in ranked:
        stems = set(content_stems(normalise(_DATE.sub("", items[i][1]))))
        if stems - seen and len(keep) < limit:
            keep.append(i)
            seen |= stems
    return [items[i] for i in sorted(keep)]
