"""A reply given as a fragment, read as the statement its question implies.

People answer a question with the part it asks for: "How long have you been living in Porto?" -
"About 5 years now."; "Which cuisine do you prefer?" - "Thai, or maybe Italian."; "Where are you
from?" - "Lisbon." The fragment states nothing the clause rules read, and the fact was lost;
an agent's log is full of such pairs (the agent asks, the user answers in a word). When the line
before a reply (the other speaker's or the agent's) ends with a question of one of the shapes
below, asked of "you", and the reply's first sentence is a fragment (a few words, no subject of
its own, no greeting or yes/no), the reply is read as the first-person statement the question
implies, which the ordinary parser then reads (parse.py), with all its rules:

    How long have you been V-ing X? / ...have you V-ed X?  + "5 years"  -> I have been V-ing X for 5 years
    What/Which (kind of) N do you like/love/prefer/enjoy/...? + "Thai"    -> I prefer Thai
    Where do you live/work/study?                              + "Lisbon" -> I live in Lisbon
    Where are you from?                                        + "Lisbon" -> I am from Lisbon
    What do you do (for work / for a living)?                  + "A nurse" -> I work as a nurse
    How old are you / is he / is your son?                     + "Five"    -> He is five years old
    When does he / do you / will your sister V (X)?            + "In August" -> He Vs (X) in August
    When is the derby / your exam?                             + "Saturday" -> The derby is on Saturday
    How much/many N do you V?                                  + "4 cups a day" -> I V 4 cups a day
    What's/What are your N? (not a name: named_in_reply)       + "About 120 euros" -> My N is about 120 euros

A statement about "you" asked to be confirmed ("Pip is your dog, right?", "You're vegetarian,
correct?", "Do you still work at Acme?", "Are you vegetarian?") and answered with a yes is the
replier's statement ("Pip is my dog.", "I still work at Acme.": `confirmed_statement`). Anything else (a question of another shape, a reply that says something
itself) is left to the rules as it is.
"""

from __future__ import annotations

import re

from consolidator.model.offline.patterns import AGE_WORDS
from consolidator.model.offline.text import STOPWORDS, normalise, third_person
from consolidator.model.offline.words import MONTHS, NUMBER_WORDS, WEEKDAYS

MAX_FRAGMENT_WORDS = 8
_DURATION = re.compile(
    r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|few|couple of|several)"
    r"(?: or \w+)?\s+(?:years?|months?|weeks?|days?|decades?)\b|^since\b", re.I)
_NOT_A_FRAGMENT = re.compile(
    r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|it|it's|he|she|they|you|yes|yeah|yep|no|nope|nah|sure|"
    r"thanks|thank|haha|lol|wow|oh|hmm|well|maybe not|not really|good|great|nice|cool|ok|okay)\b", re.I)
# A verb or a person of its own: the reply says something itself ("Guitar's mostly my thing").
_SAYS_ITSELF = re.compile(r"^\w+['’]s\b|\b(?:it|that|there|here|what|he|she)['’]s\b|['’](?:re|m|ve|ll|d)\b|"
                          r"\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did|i|me|my|mine|we|us|our|you|"
                          r"your)\b", re.I)
_HEDGE = re.compile(r"^(?:mostly|mainly|probably|usually|generally|definitely|honestly|especially)\s+(?=\w)", re.I)
_PLACE_LEAD = re.compile(r"^(?:in|at|near|from)\s+", re.I)
_FROM = re.compile(r"^from\s+", re.I)
_FRAMES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"how long have you (?P<vp>been \w+ing\b[^?]*|(?:been|lived|worked|known|had|played|done|studied|"
                r"taught|run|owned|kept)\b[^?]*)\?$", re.I), "duration"),
    (re.compile(r"(?:what|which)(?: kind| type| sort)?(?: of)? (?P<n>[a-z]+(?: [a-z]+)?) do you (?P<v>like|love|prefer|"
                r"enjoy|play|eat|drink|read|watch|listen to|speak)(?: the)?(?: most| best)?\?$", re.I), "taste"),
    (re.compile(r"where do you (?P<v>live|work|study)(?: now| these days)?\?$", re.I), "where"),
    (re.compile(r"where are you (?:from|originally from)\?$", re.I), "from"),
    (re.compile(r"what do you do(?: for (?:work|a living))?\?$|what(?:'s| is) (?:the|your|your new) (?:role|job|position|"
                r"title)(?: again| there)?\?$", re.I), "work"),
    (re.compile(r"how old (?:are (?P<you>you)|is (?P<who>he|she|your [a-z]+(?: (?!now\b)[a-z]+)?))(?: now)?\?$", re.I), "age"),
    (re.compile(r"when (?:do|does|will) (?P<who>you|he|she|they|your [a-z]+) (?P<v>[a-z]+)(?P<rest>(?: [a-z]+){0,3})\?$",
                re.I), "when"),
    (re.compile(r"when(?: is|'s) (?P<x>(?:the|your|his|her|their|our) [a-z]+(?: [a-z]+)?)\?$", re.I), "when_is"),
    (re.compile(r"what(?:'s| (?P<be>is|are)) (?![^?]*\bnames?\b)(?P<x>your (?:[a-z]+'s )?[a-z]+(?: (?!again|now)[a-z]+)?)(?: again| now)?\?$", re.I), "your"),
    (re.compile(r"how (?:much|many) (?P<n>[a-z]+(?: [a-z]+)?) do you (?P<v>[a-z]+)(?P<rest>(?: (?!now\b)[a-z]+){0,2})"
                r"(?: now)?\?$", re.I), "amount"),
]
_NUMBER = rf"(?:(?:about|around|like|roughly|maybe|only|just|almost|nearly|over) )?(?:\d+(?:[.,]\d+)?|" \
          rf"{'|'.join(NUMBER_WORDS)}|a few|a couple)"
_AMOUNT = re.compile(rf"{_NUMBER}\b.*", re.I)  # "4 cups a day": the amount with its own unit
_AMOUNT_ONLY = re.compile(_NUMBER, re.I)  # "Two.": the question's noun is the unit
_WEEKDAY_FIRST = re.compile(rf"(?:{'|'.join(WEEKDAYS)})\b", re.I)
_NAMED_DAY_FIRST = re.compile(rf"(?:{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)})\b", re.I)  # keeps its capital
# A time given alone ("In August.", "Next Monday", "on the 3rd"): what a "when" asks for.
_WHEN = re.compile(rf"(?:(?:in|on|at|by|from|around|next|this|early|late|mid)\b.*|(?:tomorrow|tonight|today|soon)\b.*|"
                   rf"(?:{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)})\b.*|\d.*)", re.I)
_AGE = re.compile(rf"(?:just |almost |nearly )?(?P<n>\d{{1,3}}|{AGE_WORDS})(?: years? old| yrs)?(?: now)?", re.I)


def implied_statement(question: str, reply: str) -> str | None:
    """The first-person statement `reply` makes as the answer to `question` (module docstring),
    or None. `question`: the asking line's text; `reply`: the reply's first sentence."""
    asked = normalise(question).strip()
    answer = normalise(reply).strip().rstrip("!.").strip()
    if not asked.endswith("?") or not answer or answer.endswith("?") or len(answer.split()) > MAX_FRAGMENT_WORDS:
        return None
    if _NOT_A_FRAGMENT.match(answer) or _SAYS_ITSELF.search(answer):
        return None
    answer = _lower_lead(_HEDGE.sub("", answer))
    last = re.split(r"(?<=[.!?])\s+", asked)[-1]
    for pattern, shape in _FRAMES:
        if (m := pattern.search(last)) is None:
            continue
        if shape == "duration":
            if not _DURATION.search(answer):
                return None
            span = answer if re.match(r"(?i)(?:since|for)\b", answer) else f"for {answer}"
            vp = m.group("vp").strip()
            return f"I have {vp} {span}."
        if shape == "taste":
            return f"I {m.group('v').lower()} {answer}."
        if shape == "where":
            verb = m.group("v").lower()
            place = _PLACE_LEAD.sub("", answer)
            return f"I {verb} {'in' if verb == 'live' else 'at'} {place}."
        if shape == "from":
            return f"I am from {_FROM.sub('', answer)}."
        if shape == "age":
            if (age := _AGE.fullmatch(answer)) is None or age.group(0).lower().startswith(("almost", "nearly")):
                return None
            who = "I am" if m.group("you") else f"{re.sub(r'(?i)^your ', 'my ', m.group('who')).capitalize()} is"
            return f"{who} {age.group('n').lower()} years old."
        if shape == "amount":  # "How many kids do you have?" - "Two." -> I have two kids; "4 cups a day" has its unit
            if not _AMOUNT.fullmatch(answer):
                return None
            unit = f" {m.group('n').lower()}" if _AMOUNT_ONLY.fullmatch(answer) else ""
            return f"I {m.group('v').lower()}{m.group('rest')} {answer[:1].lower()}{answer[1:]}{unit}."
        if shape == "when_is":  # "When is the derby?" - "Saturday the 15th at 8pm." -> The derby is on ...
            if not _WHEN.fullmatch(answer):
                return None
            thing = re.sub(r"(?i)^your ", "my ", m.group("x"))
            lead = "on " if _WEEKDAY_FIRST.match(answer) else ""
            return f"{thing[:1].upper()}{thing[1:]} is {lead}{_time_inside(answer)}."
        if shape == "your":  # "What's your budget?" - "Around 120 euros." -> My budget is around 120 euros
            return f"My {m.group('x')[5:]} {(m.group('be') or 'is').lower()} {answer}."
        if shape == "when":
            if not _WHEN.fullmatch(answer):
                return None
            who = m.group("who").lower()
            subject = {"you": "I", "your": "my"}.get(who.split()[0], who)
            subject = f"{subject} {who.split()[1]}" if who.startswith("your ") else subject
            verb = m.group("v").lower()
            verb = verb if subject in ("I", "they") else third_person(verb)
            return f"{subject[:1].upper()}{subject[1:]} {verb}{m.group('rest')} {_time_inside(answer)}."
        return f"I work as {answer}."
    return None


# "Pip is your dog, right?" - "Yes!": a statement about "you", asked to be confirmed, and a yes.
_TAGGED = re.compile(r"^(?P<s>[^?]*\byour?\b[^?]*?),? (?:right|correct|yes|isn't it|aren't you|don't you|"
                     r"is that right|am i right)\?$", re.I)
_YES = re.compile(r"^(?:yes|yeah|yep|yup|correct|exactly|that's right|right|indeed)\b(?![,!.]? (?:not|no)\b)", re.I)
# "Do you still work at Acme?", "Are you vegetarian?", "Have you booked it?" - "Yes": the question's statement.
_ASKED = [(re.compile(r"^do you (?P<s>(?!(?:want|need|like|mind|think|know)\b)[^?]+)\?$", re.I), "I "),
          (re.compile(r"^are you (?P<s>[^?]+)\?$", re.I), "I am "),
          (re.compile(r"^have you (?P<s>[^?]+)\?$", re.I), "I have ")]
_YOU_AS_ME = [(re.compile(p, re.I), me) for p, me in ((r"\byou're\b", "I'm"), (r"\byou are\b", "I am"),
              (r"\byou were\b", "I was"), (r"\byour\b", "my"), (r"\byours\b", "mine"), (r"^you\b", "I"),
              (r"\byou\b", "me"), (r"\bany\b", "some"), (r"\banything\b", "something"),  # asked "any", said "some"
              (r"\banyone\b", "someone"))]


def confirmed_statement(question: str, reply: str) -> str | None:
    """The statement about "you" that `question` asked to confirm ("Pip is your dog, right?"), in
    the replier's words ("Pip is my dog."), when `reply` (its first sentence) opens with a yes."""
    last = re.split(r"(?<=[.!?])\s+", normalise(question).strip())[-1]
    if not _YES.match(normalise(reply).strip()):
        return None
    if m := _TAGGED.match(last):
        statement = m.group("s").strip()
    elif asked := next((f"{lead}{m.group('s')}" for pattern, lead in _ASKED if (m := pattern.match(last))), None):
        statement = asked.strip()
    else:
        return None
    for pattern, mine in _YOU_AS_ME:
        statement = pattern.sub(mine, statement)
    return f"{statement[:1].upper()}{statement[1:]}."


def _time_inside(answer: str) -> str:
    """A time given alone, as it reads inside a statement ("Next Monday" -> "next Monday")."""
    if _NAMED_DAY_FIRST.match(answer):
        return answer
    return answer[:1].lower() + answer[1:]


_LEADS = frozenset("about around almost nearly over roughly since just only maybe probably".split())


def _lower_lead(answer: str) -> str:
    """"About 5 years" -> "about 5 years" inside the statement; a name keeps its capital ("Thai")."""
    first, _, rest = answer.partition(" ")
    low = first.lower()
    return f"{low} {rest}".strip() if low in STOPWORDS or low in _LEADS else answer
