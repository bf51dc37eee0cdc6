"""A batch's people lines into claims: who each line speaks to, the day it was said, and the
name evidence the whole batch gives (parse.py reads each sentence). A reply that gives names
alone to the question for them just before it, the other speaker's or the agent's ("What are
their names?" - "Pip and Bruno!"), is read with the question's words (`named_in_reply`). A
she/he/they that opens a line may mean the person the speaker's line before last said something
of, when that line is recent and the line between names nobody else (`_carries`).

Kept apart from parse.py because it is the batch's view: the name book is read from every
line before any is parsed (a name introduced later in the batch still vets a subject), each
line is compacted as the summariser compacts it (text_compact, hedges kept), and the claims
of the last few batches are memoised so the facts and contacts parts of one batch call parse
its lines once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Iterable

from consolidator.domain import is_person_line
from consolidator.model.offline.clauses import event_date, local_day
from consolidator.model.offline.details import details_in
from consolidator.model.offline.mentions import kin_named
from consolidator.model.offline.names import NameBook
from consolidator.model.offline.parse import CLAUSE_BREAK, Context, parse_sentence
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.replies import confirmed_statement, implied_statement
from consolidator.model.offline.restate import correcting, meant, restate
from consolidator.model.offline.rules import TASTES, Claim, Polarity
from consolidator.model.offline.shown import caption_of, presented, with_shown
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.text import normalise, sentences
from consolidator.model.offline.words import MONTHS, NAME_STOPWORDS, PHATIC, WEEKDAYS
from consolidator.model.offline.worth import is_evaluation


def addressee(lines: list, i: int) -> str | None:
    """Who line i speaks to: the nearest other named person speaking in the batch (before, then after)."""
    me = (lines[i].speaker or "").strip()
    for j in [*range(i - 1, -1, -1), *range(i + 1, len(lines))]:
        other = (lines[j].speaker or "").strip()
        if other and other != me and is_person_line(lines[j]):
            return other
    return None


@dataclass(frozen=True)
class _Line:
    id: str
    at: datetime
    role: str
    speaker: str | None
    text: str
    shown: str | None = None  # the line's one photo, "photo: what it shows" (shown.caption_of)


def claims_of_lines(lines: list, zone: str = "UTC", known: Iterable[str] = (), context: list = ()) -> list[Claim]:
    """Every claim of the people's lines, in order, each carrying its line id.

    `zone` dates plain clauses on the local day; `known` names (contacts, subjects of stored
    facts) join the speakers as vetted names. `context`, the lines just before (a request's
    context lines), is read but gives no claim: its names vet, its speakers are addressees, and
    a first reply is read with the question it ends with. The last few batches' claims are
    memoised, so the facts and contacts parts of one batch call parse its lines once."""
    def view(line) -> _Line:
        return _Line(line.id, line.at, line.role, line.speaker, line.text, caption_of(line.attachments))

    before, people = (tuple(view(line) for line in group if is_person_line(line)) for group in (context, lines))
    names = frozenset(n.lower() for n in [*known, *((line.speaker or "") for line in (*before, *people))] if n.strip())
    # the line a person answers: the talking line just before theirs, the agent's too ("What's your dog's name?")
    talk = [line for line in (*context, *lines) if line.role in ("user", "assistant")]
    answers = {b.id: a for a, b in zip(talk, talk[1:])}
    asked = tuple(view(answers[p.id]) if p.id in answers else None for p in (*before, *people))
    return [_user_cased(c) for c in _claims(before + people, len(before), zone, names, asked)]


# An unnamed speaker is "The user" (parse.Context.me); inside a sentence, or as a value ("Ana is
# the user's sister", relation "the user's sister"), it is written as any common noun is.
_USER_INSIDE = re.compile(r"(?<=.)(?<![.!?:] )\bThe user\b")


def _user_cased(claim: Claim) -> Claim:
    if "The user" not in claim.text + claim.value + claim.detail:
        return claim
    low = (lambda s: s.replace("The user", "the user"))
    return replace(claim, text=_USER_INSIDE.sub("the user", claim.text), value=low(claim.value), detail=low(claim.detail))


_ORPHAN_CLITIC = re.compile(r"(?:^|[\s,;(])'(?:s|re|ve|ll|d|m)\b")
_SHOWN_THING = re.compile(r"(?:all )?(?:the|those|these) ", re.I)


def _praise_dropped(claims: list[Claim], reacting: bool) -> list[Claim]:
    """A sentence answering the other speaker's photo that loves "the ..." praises what was shown
    ("I love the colours and the light", "I love all the yellow leaves"): no taste of the speaker's
    comes from it. Tastes said to a photo with no pointer stay ("I love ginger snaps")."""
    if reacting and any(c.attribute in TASTES and _SHOWN_THING.match(c.value) for c in claims):
        return [c for c in claims if c.attribute not in TASTES]
    return claims


@lru_cache(maxsize=8)
def _claims(people: tuple[_Line, ...], lead: int, zone: str, known: frozenset[str],
            asked: tuple[_Line | None, ...]) -> tuple[Claim, ...]:
    """The claims of people[lead:] (the first `lead` lines are context); asked[i]: the line people[i] answers."""
    names = NameBook(sorted(known))
    for line in people:
        names.read(line.text)
    out: list[Claim] = []
    # a speaker -> (their latest line, the person, and the person or group of people, it said something of)
    prior: dict[str, tuple[int, str | None, str | None]] = {}
    for i, line in enumerate(people):
        if i < lead:  # context: its line may be what the next corrects ("I meant Friday"), never a claim
            prior[(line.speaker or "").strip() or "The user"] = (i, None, None)
            continue
        ctx = Context(me=(line.speaker or "").strip() or "The user", you=addressee(list(people), i), names=names,
                      day=local_day(line.at, zone))
        if (held := prior.get(ctx.me)) and (who := held[2] or held[1]) and _carries(people[held[0]], line, asked[i],
                                                                                    who, known):
            ctx.last, ctx.they = held[1:]  # "My sister Ana is visiting." - "Where will she stay?" - "With us. She's a nurse."
        elif held and _carries(people[held[0]], line, asked[i], ctx.me, known) and not (  # "I want to surprise Leo ..."
                asked[i] and set(_CAPITAL.findall(asked[i].text)) - {ctx.me, ctx.you}):  # - "Lovely!" - "He loves ...": Leo
            ctx.seen = _CAPITAL.findall(people[held[0]].text)  # (names.meant), if the line between names no one
        if _answers(asked[i], line) and (kin := _kin_asked(asked[i].text, ctx.me)):
            ctx.last = ctx.they = kin  # "How old is your son?" - "He's 7.": he is the son
        carried, first = (ctx.last, ctx.they), len(out)
        today = date.fromisoformat(ctx.day)
        reacting = i > 0 and people[i - 1].shown is not None and people[i - 1].speaker != line.speaker
        fixed = meant(line.text, people[held[0]].text) if held and line.at - people[held[0]].at <= CARRY else None
        said = _outcomes_joined(sentences(fixed or line.text))  # "Sorry, I meant Thursday": the line before, right
        said = [] if fixed is None and correcting(line.text) else said  # a correction placed nowhere says nothing
        last, then = len(said) - 1, None
        for k, (raw, origin) in enumerate(said):  # a rule's text keeps its words: its relative dates are written out
            compacted = compact(raw, hedges=False)  # no "Whoa," or "you know" in a fact (text_compact)
            sentence = restate(compacted)
            when_said = then if then and not _OWN_TIME.search(sentence) and not sentence.rstrip().endswith("?") else None
            sentence = f"{when_said}, {sentence}" if when_said else sentence  # "Last night was amazing! We ...": then
            then = verdict.group("t") if (verdict := _TIME_VERDICT.match(compacted)) else then
            # "this" points at the photo the sentence carries (shown.py): a line's photo follows its last sentence
            caption = ctx.shown = line.shown if k == last else None
            found = len(out)
            parsed = parse_sentence(sentence, ctx)
            if when_said:  # a time no rule dated stays out of the words ("Yesterday, Maya said: ...")
                opening = re.compile(rf"^{re.escape(when_said)},\s*", re.I)
                parsed = [replace(c, text=_capital(opening.sub("", c.text))) for c in parsed]
            if all(c.kind == "said" for c in parsed) and k == 0 and _answers(asked[i], line) and (  # "About 5
                    implied := implied_statement(asked[i].text, sentence)):  # years now." (replies.py), not "X said: ..."
                parsed = [replace(c, sentence=sentence) for c in parse_sentence(implied, ctx)] or parsed  # the reply's own
            if k == 0 and _answers(asked[i], line) and (confirmed := confirmed_statement(asked[i].text, sentence)):
                parsed += [replace(c, sentence=sentence) for c in parse_sentence(confirmed, ctx)]  # "Yes, but ..."
            for c in _praise_dropped(parsed, reacting):  # (plain clauses dated by event_date)
                if _ORPHAN_CLITIC.search(c.text):
                    continue  # "tomorrow's gonna be a blast" less its date word: "'s gonna be ...", no statement
                c = _acquired_on(c, sentence, ctx.day)
                c = replace(c, text=with_shown(_object_named(c.text, c.subject, ctx), caption))
                text = c.text if c.attribute == "event" else resolve_relative_dates(c.text, today, this_too=True)
                out.append(replace(c, source_ids=(line.id,), text=text))
            if k == 0 and _answers(asked[i], line) and (named := named_in_reply(asked[i], line, sentence, ctx.me)):
                out.append(Claim(ctx.me, "event", named, f"{ctx.me} said: {named} ({ctx.day}).", kind="said",
                                 sentence=sentence, source_ids=(line.id,)))
            out += [replace(d, sentence=sentence, source_ids=(line.id,)) for d in details_in(sentence, ctx.me, ctx.last)
                    if not any(c.attribute == d.attribute for c in out[found:])]  # "... in my home country, Sweden"
            # "Here's the finished bookshelf" + its photo, no claim of the sentence naming it: the photo is the fact
            if (shared := presented(sentence, caption)) and not any(caption in c.text for c in out[found:]):
                out.append(Claim(ctx.me, "event", shared, f"{ctx.me} {shared} ({ctx.day}).", kind="event",
                                 happened=ctx.day, sentence=sentence, source_ids=(line.id,)))
            origin = compacted if origin == raw else compact(origin, hedges=False)  # by which contacts find claims
            out[found:] = [replace(c, sentence=origin) for c in out[found:]]
        about = ((ctx.last, ctx.they) != carried or {c.subject for c in out[first:]} & {ctx.last, ctx.they}
                 or _THIRD_PERSON.search(line.text))  # "Her youngest is 4": still about her
        prior[ctx.me] = (i, ctx.last, ctx.they) if about else (i, None, None)  # a line of no one ends the carry
    return tuple(out)


# "Last night was amazing!", "Yesterday was crazy.": a time said of, when the line's next sentences happened
_TIME_VERDICT = re.compile(r"^(?P<t>yesterday(?: (?:morning|afternoon|evening|night))?|the day before yesterday|"
                           r"last (?:night|week|weekend|month|year|[a-z]+day)|(?:a|one|two|three|a few|\d+) "
                           r"(?:days?|weeks?) ago) (?:was|has been|had been)\b", re.I)  # a time before the line's
# ...unless a sentence says its own ("Today I rested"; "the warm summer breeze" says none)
_OWN_TIME = re.compile(rf"\b(?:(?:last|this|next|on|early|late|that) (?:{'|'.join(WEEKDAYS)}|week|weekend|month|year|"
                       rf"night|morning|afternoon|evening|summer|winter|spring|fall|autumn)|yesterday|today|tonight|"
                       rf"tomorrow|ago|{'|'.join(WEEKDAYS)}|(?-i:{'|'.join(m.capitalize() for m in MONTHS)})|\d{{4}})\b", re.I)


# "I promised to visit him in January": a him or her the speaker's own clause ends on, or puts
# before a preposition or a time (not "her mom": a possessive)
_OBJECT = re.compile(r"(?<=[a-z] )(?P<p>him|her)(?=[.,;!?]|\s\(|$|\s(?:in|on|at|to|for|with|about|from|by|next|this|"
                     r"last|tomorrow|today|tonight|again|soon|later|back|up|out|over|too|as well)\b)")


def _object_named(text: str, subject: str, ctx: Context) -> str:
    """The speaker's clause with its him or her as the person the line spoke of last, where the
    batch lets the pronoun mean them: a fact of "him" tells a planner nothing of whom."""
    if subject != ctx.me or not ctx.last or ctx.last == ctx.me or ctx.names is None or "'s " in ctx.last:
        return text
    m = _OBJECT.search(text)
    return f"{text[:m.start()]}{ctx.last}{text[m.end():]}" if m and ctx.names.agrees(ctx.last, m.group("p")) else text


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# "Turns out, it was gastritis": what the speaker found out about what the sentence before said.
_OUTCOME = re.compile(r"(?P<lead>(?:(?:and|but|so) )?(?:it )?turn(?:s|ed) out)(?:,? that)?,? "
                      r"(?P<rest>(?:(?:it|he|she|they|this|that|the|my|his|her|their|our) |to be ).*)", re.I)


# "I had a frustrating issue at the supermarket.", "Something weird happened at work today.": a
# sentence that ends on a thing it does not yet say, which the next one says...
_UNSAID = re.compile(r"(?:\b(?:an?|some|one|another) (?:[a-z]+ ){0,2}(?:issue|problem|trouble|incident|mishap|"
                     r"situation|news|surprise)|\bsomething(?: [a-z]+)? happened)"
                     r"(?: (?:at|with|in|on|from|today|yesterday|this morning)(?: [a-z]+){0,3})?[.!]*$", re.I)
# ...when the next one states it, with a thing for subject ("The self-checkout machines were all broken.")
_STATES_IT = re.compile(r"(?:The|My|Our|It|Its|They|Their|His|Her|This|That|A|An) [^?]*[.!]*$")


def _outcomes_joined(said: list[str]) -> list[tuple[str, str]]:
    """The sentences of a line, each that opens with "turns out" read as the end of the one before
    it ("... with a stomachache; turns out it was gastritis"): alone, its "it" names nothing. One
    that only judges ("It turned out to be delicious") stays apart; the comma after "turns out"
    goes, since ", it was X" would end the clause as an evaluation (worth.tidy). A sentence that
    ends on a thing unsaid ("I had an issue at the bank.") takes the next that says it, after a
    colon ("...: the card machine was down"): alone, the first says nothing and the second is
    too short to be news between two people. Each comes with the line's sentence it starts with."""
    out: list[tuple[str, str]] = []
    for sentence in said:
        m = _OUTCOME.match(sentence)
        if out and m and not is_evaluation(re.sub(r"^to be\b", "it was", m.group("rest").rstrip(" .!"))):
            out[-1] = (f"{out[-1][0].rstrip(' .!')}; {m.group('lead').lower()} {m.group('rest')}", out[-1][1])
        elif out and _UNSAID.search(out[-1][0]) and _STATES_IT.match(sentence):
            out[-1] = (f"{out[-1][0].rstrip(' .!')}: {sentence[0].lower()}{sentence[1:]}", out[-1][1])
        else:
            out.append((sentence, sentence))
    return out


CARRY = timedelta(minutes=30)
_THIRD_PERSON = re.compile(r"\b(?:she|he|her|him|his|hers|they|them|their)\b", re.I)  # a she/he/they at a line's start reads the speaker's line this recent
_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


def _carries(before: _Line, line: _Line, between: _Line | None, person: str, known: frozenset[str]) -> bool:
    """Whether a she/he/they of `line` may mean `person`, whom the speaker's line `before` last said
    something of: within CARRY, and the line between them (the other's) names nobody else known."""
    if not timedelta(0) <= line.at - before.at <= CARRY:
        return False
    if between is None or between.id == before.id:
        return True
    others = {w.lower() for w in _CAPITAL.findall(between.text)} & known
    speakers = {(s or "").strip().lower() for s in (line.speaker, between.speaker)}
    return not others - speakers - {person.split()[0].lower()}


# "What are their names?", "What's your dog's name?", "What is her name?": a question for names...
_NAMES_ASKED = re.compile(r"\bwhat(?:'s| is| are| were| was)\s+(?P<whose>your|his|her|their|its)\s+"
                          r"(?P<what>(?:[a-z]+(?:'s)?\s+){0,2})(?P<n>names?)(?:,? (?:by the way|btw|again|then))?\s*\?",
                          re.I)
# ...answered by names alone: "Pip and Bruno!", "Rex."
_ONLY_NAMES = re.compile(r"(?P<names>[A-Z][a-z]+(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)[A-Z][a-z]+)*)\s*[!.]*")


def _kin_asked(question: str, me: str) -> str | None:
    """The replier's relative a question asks about ("How is your dad doing?" -> "Maya's dad"), whom
    a he/she of the reply means; None if it asks of none."""
    last = (sentences(question) or [""])[-1]
    return kin_named(re.sub(r"\b[Yy]our\b", "my", last), me) if last.rstrip().endswith("?") else None


def _answers(asked: _Line | None, reply: _Line) -> bool:
    """Whether `reply` may answer `asked`: another party's line (another speaker, or the agent)."""
    def party(line: _Line) -> tuple[str, str]:
        return line.role, (line.speaker or "").strip()

    return asked is not None and party(asked) != party(reply)


def named_in_reply(asked: _Line, reply: _Line, first: str, me: str) -> str | None:
    """The names a reply's first sentence gives, alone, to the other speaker's (or the agent's)
    question for names, as a statement in the question's words ("What are their names?" + "Pip
    and Bruno!" -> "Their names are Pip and Bruno"; "What's your dog's name?" + "Rex." -> "Ana's
    dog's name is Rex", `me` being who replies): a chat answers a question with the names only,
    and they would be lost."""
    m = _NAMES_ASKED.search(normalise(asked.text))
    answer = _ONLY_NAMES.fullmatch(first.strip())
    if m is None or answer is None:
        return None
    given = re.findall(r"[A-Z][a-z]+", answer.group("names"))
    if any(n.lower() in NAME_STOPWORDS or n.lower() in PHATIC or n == (asked.speaker or "").strip() for n in given):
        return None  # "Thanks!", "Wow!", or the asker's own name: no names given
    whose = m.group("whose").lower()
    owner = f"{me}'s" if whose == "your" else whose
    plural = m.group("n").lower() == "names"
    said = f"{owner} {m.group('what')}{m.group('n').lower()} {'are' if plural else 'is'} {answer.group('names')}"
    return _capital(said)


def _acquired_on(claim: Claim, sentence: str, day: str) -> Claim:
    """A rule's event ("adopted a puppy named Max last week", "got married last week") dated as a
    plain event is: its template keeps no time words, so the day comes from the one relative date
    of the clause that names the animal or the state ("I adopted a cat, and next week I start a
    job" leaves the cat undated)."""
    pet = claim.attribute == "pet" and " has " not in claim.text
    wed = claim.attribute == "partner" and claim.polarity is Polarity.ASSERTED and " got " in claim.text
    if not (pet or wed) or not claim.value.strip() or not claim.text.endswith("."):
        return claim  # ("got divorced" ends a partner: no value to find the clause by)
    animal = re.compile(rf"\b{re.escape(claim.value.split()[0])}\b", re.I)
    clause = next((c for c in CLAUSE_BREAK.split(sentence) if animal.search(c)), "")
    dated = event_date("", clause, day)
    if not dated.resolved:
        return claim
    return replace(claim, text=f"{claim.text[:-1]} ({dated.day}).", happened=dated.day)
