"""An errand the agent offers ("Would you like me to remind you about the dentist?", "Shall I book
a table?") and the person accepts ("Yes please", "Sure, tomorrow"): the person's request, read with
you as me, that the task rules (tasks.py) then read as any other; a reminder offered with no errand
reminds of what the person last said they want done, or said.
"""

from __future__ import annotations

import re

from consolidator.domain import is_person_line
from consolidator.model.offline.names import states
from consolidator.model.offline.taskdue import DUE
from consolidator.model.offline.text import normalise, sentences
from consolidator.model.schemas import Line

# The agent offers an errand ("Would you like me to remind you about the dentist?", "Shall I book a
# table?") and the person accepts ("Yes please, on Wednesday evening"): the errand is theirs.
_OFFER = re.compile(r"\b(?:(?:would you like|do you want|want|shall|should) (?:me to|I)|(?:(?:maybe|perhaps|how about) )?"
                    r"I (?:could|can|might)) (?P<a>[^?]+)\?\s*$", re.I)
_ACCEPT = re.compile(r"^\s*(?:yes|yeah|yep|yup|sure|ok|okay|please|please do|go ahead|do it|sounds good|"
                     r"that would be (?:great|nice|helpful|lovely))\b(?![,!.]? (?:but|not|no|thanks)\b)", re.I)
_OPEN_ASK = re.compile(r"\b(?:anything|something|whatever|what|how)(?: else)?\s*$", re.I)
_AGENT_TO_USER = [(re.compile(r"\byou\b", re.I), "me"), (re.compile(r"\byour\b", re.I), "my"),
                  (re.compile(r"\byourself\b", re.I), "myself")]


def accepted_offer(asked: Line | None, first: str, earlier: str = "", covered: bool = False) -> str | None:
    """The agent's offered errand as the person's request ("Please remind me about the dentist on
    Wednesday"), when `first`, the person's first sentence, accepts it; else None. A reminder
    offered with no errand ("Should I remind you?") reminds of what the last sentence of `earlier`
    (the person's recent lines) wants done ("I want to cancel it": "remind me to cancel it") or else says ("Electricity
    is due on the 20th": "remind me about electricity is due"), else of what it offered ("remind
    you a few days before"), never of nothing ("Remind me"), nor of a task `earlier` opened (`covered`)."""
    if asked is None or is_person_line(asked) or asked.role != "assistant" or not _ACCEPT.match(first):
        return None
    offer = sentences(normalise(asked.text))[-1] if asked.text.strip() else ""
    m, reminder = _OFFER.search(offer), _REMINDER_OFFER.search(offer)
    if m is None and reminder is None or m is not None and _OPEN_ASK.search(offer[:m.start()]):
        return None  # "Anything I can take off your plate?" offers no errand: it asks for one
    action = m.group("a") if m else f"remind you{reminder.group('rest')}"  # "Want a reminder on Thursday?"
    for pattern, word in _AGENT_TO_USER:
        action = pattern.sub(word, action)
    if (bare := _BARE_REMINDER.match(action)) and covered:
        return None
    if bare:
        last = (sentences(earlier) or [""])[-1]  # the last sentence said before: what it wants done, or says
        wishes = [*_WISH.finditer(last)]
        errand = (f"to {wishes[-1].group('a')}" if wishes else
                  f"about {DUE.sub('', last).strip(' .!')}" if last and states(last) else "")
        action = f"remind me {errand}{action[bare.end():]}" if errand else action[bare.end():] and action
    due = DUE.search(first)
    return f"Please {action}{due.group(0) if due and not DUE.search(action) else ''}." if action else None


_REMINDER_OFFER = re.compile(r"\b(?:want|would you like|do you want|need|shall I set|should I set|want me to set|"
                             r"shall I add|should I add)(?: me to set)? an? (?:reminder|alarm)\b(?P<rest>[^?]*)\?\s*$", re.I)
_BARE_REMINDER = re.compile(r"remind me\b(?! (?:to|about|of|that)\b)", re.I)  # "Should I remind you (before the 15th)?"
_WISH = re.compile(r"\bI (?:really |still )?(?:want|need|have|would like|plan|mean|am going) to (?P<a>[^,.;!?]+)", re.I)


# The agent reports the errand it was just asked done ("Done, I booked a table for four ...", "I
# emailed your landlord about the heater.", "All set!"); not a promise ("I'll book it") nor a
# reminder set ("Done, I'll remind you on Sunday": the errand is still the person's).
_CARRIED_OUT = re.compile(r"^\s*(?:(?:ok(?:ay)?|sure|great|perfect|alright|all right)[,!.]?\s+)?(?:(?P<done>done|all set|"
                          r"all done|sorted)\b[,!.:\s-]*)?(?:(?:I(?: have|'ve)? )?(?:(?:just|already|now|gone ahead and) )*"
                          r"(?P<v>booked|sent|emailed|called|rang|texted|messaged|ordered|paid|scheduled|reserved|bought|"
                          r"renewed|submitted|cancelled|canceled|moved|rescheduled|changed|made|set up|signed up|forwarded|"
                          r"wrote|replied to|contacted|posted|mailed|filed|returned) (?P<p>[^.!?]+))?", re.I)
# ...said of the whole reply: a promise, a reminder or a list entry is no errand done, and neither is
# one that failed or waits ("I called the plumber but nobody picked up", "it needs your signature")
_NOT_DONE = re.compile(r"\b(?:remind|reminder|will|shall|going to|'ll|list|noted|but|could not|unable|unfortunately|"
                       r"nobody|no one|no answer|failed|needs? your|waiting)\b", re.I)


def carried_out(reply: Line | None) -> str | None:
    """What the agent's `reply` says it did of the errand just asked ("booked a table for four at
    Taberna do Largo", "" for a bare "Done!"), or None when it reports nothing done."""
    if reply is None or reply.role != "assistant" or not reply.text.strip():
        return None
    said = normalise(reply.text)
    m = _CARRIED_OUT.match(sentences(said)[0])
    if m is None or not (m.group("done") or m.group("v")) or _NOT_DONE.search(said):
        return None
    return f"{m.group('v')} {m.group('p')}" if m.group("v") else ""
