"""Domain rules that several parts apply, each stated once.

- Who said a line: a person (a user, or an assistant relaying a named speaker who is not the
  agent) or the agent/tooling. Facts, contacts and tasks are only ever taken from people.
- Negation words: a fact and its negation are never the same fact.
- Function words (`STOPWORDS`), month and weekday names, irregular verbs: one list each.
- Tokens per character: the one estimate every budget and cap uses (4 characters a token,
  rounded up), so a budget checked in one place holds in another.
- A contact's details as text: one sentence per detail, in key order, so a listed detail's
  "; "-separated items never run into the next detail (context.md, recall's contact card).

Pure functions of their arguments; the standard library only, so any layer may import this.
"""

from __future__ import annotations

import re
from typing import Protocol

AGENT_SPEAKERS = frozenset({"assistant", "agent"})
NEGATIONS = frozenset(
    "not no never none nothing cannot cant dont doesnt didnt isnt wasnt arent without stopped "
    "quit former formerly longer anymore".split()
)
CHARS_PER_TOKEN = 4
# Function words: never content, never a search term (the offline rules and recall share them).
STOPWORDS = frozenset(
    """a an the and or but if so of to in on at for from by with about as into onto than then
    there here this that these those it its is am are was were be been being do does did has
    have had having not no nor i me my mine myself you your yours he him his she her hers they
    them their theirs we us our ours who whom which what when where why how all any some each
    very really just also still now too quite rather can could will would shall should may might
    must let lets get got yes ok okay oh well please thanks thank hi hello hey""".split()
)
# English irregular verbs as (base, past, participle): the offline rules' past forms, recall's stems.
IRREGULAR_VERBS: tuple[tuple[str, str, str], ...] = tuple(tuple(row.split("/")) for row in """
    arise/arose/arisen awake/awoke/awoken beat/beat/beaten become/became/become begin/began/begun
    bend/bent/bent bet/bet/bet bid/bid/bid bite/bit/bitten bleed/bled/bled blow/blew/blown
    break/broke/broken breed/bred/bred bring/brought/brought build/built/built burn/burnt/burnt
    burst/burst/burst buy/bought/bought cast/cast/cast catch/caught/caught choose/chose/chosen
    cling/clung/clung come/came/come cost/cost/cost creep/crept/crept cut/cut/cut deal/dealt/dealt
    dig/dug/dug draw/drew/drawn dream/dreamt/dreamt drink/drank/drunk drive/drove/driven
    eat/ate/eaten fall/fell/fallen feed/fed/fed feel/felt/felt fight/fought/fought find/found/found
    flee/fled/fled fling/flung/flung fly/flew/flown forbid/forbade/forbidden
    forget/forgot/forgotten forgive/forgave/forgiven freeze/froze/frozen get/got/gotten
    give/gave/given go/went/gone grow/grew/grown hang/hung/hung hear/heard/heard hide/hid/hidden
    hit/hit/hit hold/held/held hurt/hurt/hurt keep/kept/kept kneel/knelt/knelt know/knew/known
    lead/led/led leap/leapt/leapt learn/learnt/learnt leave/left/left lend/lent/lent let/let/let
    lie/lay/lain light/lit/lit lose/lost/lost make/made/made mean/meant/meant meet/met/met
    pay/paid/paid put/put/put quit/quit/quit read/read/read ride/rode/ridden ring/rang/rung
    run/ran/run say/said/said see/saw/seen seek/sought/sought sell/sold/sold send/sent/sent
    set/set/set shake/shook/shaken shed/shed/shed shine/shone/shone shoot/shot/shot
    show/showed/shown shrink/shrank/shrunk shut/shut/shut sing/sang/sung sink/sank/sunk sit/sat/sat
    sleep/slept/slept slide/slid/slid speak/spoke/spoken spell/spelt/spelt spend/spent/spent
    spin/spun/spun split/split/split spoil/spoilt/spoilt spread/spread/spread spring/sprang/sprung
    stand/stood/stood steal/stole/stolen stick/stuck/stuck sting/stung/stung strike/struck/struck
    swear/swore/sworn sweep/swept/swept swim/swam/swum swing/swung/swung take/took/taken
    teach/taught/taught tear/tore/torn tell/told/told think/thought/thought throw/threw/thrown
    understand/understood/understood upset/upset/upset wake/woke/woken wear/wore/worn
    weep/wept/wept win/won/won write/wrote/written
""".split())
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WORD = re.compile(r"[a-z]+")


class Said(Protocol):
    role: str
    speaker: str | None


def is_person(role: str, speaker: str | None) -> bool:
    """A person said it: a user line, or an assistant line relaying a named non-agent speaker."""
    if role == "user":
        return True
    return role == "assistant" and bool(speaker) and speaker.strip().lower() not in AGENT_SPEAKERS


def is_person_line(line: Said) -> bool:
    """`is_person` of anything with a role and a speaker (a model Line, a message, a view)."""
    return is_person(line.role, line.speaker)


def is_negated(text: str) -> bool:
    """The text carries a negation word ("not", "never", "no longer", "quit", ...)."""
    return any(word in NEGATIONS for word in _WORD.findall(text.lower().replace("'", "").replace("\u2019", "")))


def detail_sentences(details: dict[str, str]) -> str:
    """{"likes": "sailing; jazz", "places": "Lisbon"} -> "likes: sailing; jazz. places: Lisbon."
    (empty details left out)."""
    return " ".join(f"{k}: {v.strip().rstrip('.')}." for k, v in sorted(details.items()) if v and v.strip())


def estimate_tokens(text: str) -> int:
    """Tokens a text costs: ceil(len / 4), at least 1 for a non-empty text."""
    return max(1, (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN) if text else 0


def chars_within(tokens: int) -> int:
    """The most characters whose estimate stays within `tokens`."""
    return max(0, tokens) * CHARS_PER_TOKEN
