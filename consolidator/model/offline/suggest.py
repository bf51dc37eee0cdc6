"""What one person suggests the other try: "Try a standing desk instead", "Have you considered
a kneeling stool?", "Maybe look into pilates classes".

Advice said to the other person is no statement about anyone ("Keep it up", "Stay positive":
clauses.is_advice), so no clause rule reads it; yet a concrete suggestion is what a later
question asks about ("What did Ana suggest Tomas try for his back?") and what the other person
often goes on to do. A sentence that is a suggestion to the person spoken to (an imperative of
trying or looking into something, or a question asking whether they have tried or considered
it) gives

    Ana suggested Tomas try a standing desk (2024-03-09).

when what is suggested has substance and worth enough for a statement kept in the speaker's
name (worth.MIN_WORTH_SAID); "Try to relax" and "Try it!" give nothing, nor does "Check out my
new bowl", which presents a photo (shown.py).
"""

from __future__ import annotations

import re

from consolidator.model.offline.clauses import MIN_SUBSTANCE, Speakers, rewrite, substance
from consolidator.model.offline.worth import MIN_WORTH_SAID, worth

_LEAD = r"^(?:(?:maybe|perhaps|so|and|also|oh|well|just|then)[,]?\s+)*(?:[A-Z][a-z]+,\s+)?"
_SUGGESTING = re.compile(
    _LEAD + r"(?:(?P<verb>try|consider|look into|think about)"
    r"|have you (?P<asked>tried|considered|looked into|thought about)"
    r"|you (?:should|could|might|can) (?P<modal>try|consider|look into|think about)"
    r"|(?:why not|how about you) (?P<why>try|consider|look into))\s+(?P<what>.+)",
    re.I,
)
_BASE = {"tried": "try", "considered": "consider", "looked into": "look into", "thought about": "think about"}
_POINTER = re.compile(r"^(?:it|this|that|these|those|them|him|her|me|us|to|any|anything|something)\b", re.I)  # "try it"


def suggestion(sentence: str, me: str, you: str | None) -> str | None:
    """"suggested <you> <verb> <what>" for a sentence in which `me` suggests something to `you`;
    None when it is no suggestion, has no one to address, or names nothing of substance."""
    if not you:
        return None
    m = _SUGGESTING.match(sentence.strip())
    if not m:
        return None
    asked = _BASE.get((m.group("asked") or "").lower())
    verb = (m.group("verb") or asked or m.group("modal") or m.group("why")).lower()
    what = m.group("what").strip(" \t.!?;:,")
    if _POINTER.match(what):
        return None
    said = rewrite(what, Speakers(me, you), False)
    names = (me, you)
    if not said or worth(said, names) < MIN_WORTH_SAID or substance(said, names) < MIN_SUBSTANCE:
        return None
    return f"suggested {you} {verb} {said}"
