"""Sentences into claims: subjects, segments, and the plain clauses no rule covers.

A sentence (less its bracketed asides) is cut into segments at conjunctions ("and", "but",
"because", "'cause"...), commas, semicolons, colons and spaced dashes; each segment is an optional
subject and a predicate. Subjects: I and we (the speaker), "my family and I" (the speaker, with
company in the text), "my sister Ana" / "my dog Rex" / "my sister" / "my hand-painted bowl" (owned
by the speaker), a group of people ("my kids", "the kids": mentions.py), a name that the batch's
evidence vets (names.py), she/he (the last person said of, or named in the sentence: names.meant;
never one the batch says it cannot mean, "my sister Ana" is no "he"), they (that person, or a group
named since). A segment with no subject inherits the previous one; one that is only a time ("Last
Friday,") is carried to the next clause; a piece that starts nothing new is glued back to its
segment, unless it and what follows only judge it ("- it was so much fun"). A first segment that
drops its "I" ("Took a trip to Rome") has the speaker as subject. The predicate goes to the
attribute rules (rules.py); when none applies it is kept whole as a dated plain clause (clauses.py;
a past event with no date takes one an earlier clause of its sentence resolved), if it has
substance, counting what its photo shows when the fact will name it ("I made this!": shown.py).
Questions give no plain clauses. A sentence that gives no claim but suggests the other person try
something gives that suggestion (suggest.py).

The same parser reads stored facts (`parse_text`): there no batch evidence exists, capitals are
trusted, and a fact's trailing "(YYYY-MM-DD)" is not part of its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from consolidator.model.offline.clauses import (
    MIN_SUBSTANCE, PERSON_VERBS, Speakers, clip, dropped_i, event_date, first_verb, is_advice, is_rule, judges_it,
    rewrite, strip_asides, substance, unframed,
)
from consolidator.model.offline.mentions import (
    FAVOURITE, GONE, MY, group_named, is_kin, kin_named, leading_group, named_in, of_mine, paired, pairs_with, pet_got,
    said_enough, unapposed, unnamed, with_relations,
)
from consolidator.model.offline.names import NameBook, agrees_with_singular, calls
from consolidator.model.offline.reldates import day_ahead
from consolidator.model.offline.rules import Claim, parse_predicate
from consolidator.model.offline.shown import with_shown
from consolidator.model.offline.suggest import suggestion
from consolidator.model.offline.worth import ENDED, MIN_WORTH, NAME_WEIGHT, is_evaluation, is_stance, kind_of, tidy, worth
from consolidator.model.offline.text import (
    NAME_STOPWORDS, SPECIES, STOPWORDS, TIME_ONLY, TIME_PHRASE, TITLES, normalise, sentences, untagged,
)
from consolidator.model.offline.words import KIN

_CAP = re.compile(r"([A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?)\b(?!')")
_POSSESSED = re.compile(
    rf"(?:(?P<my>[Mm]y|[Oo]ur)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|[Tt]he user)'s) (?P<rel>(?i:{KIN}|{SPECIES}))\b(?!')\s*"
)
_SPECIES = re.compile(rf"(?:{SPECIES})$", re.I)
_PEOPLES = frozenset({"home", "origin", "job", "employer", "age"})  # what only a person (or a pet) has
_SEP = re.compile(r"(\s*[;:]\s*|\s+[-\u2013\u2014]+\s+|\s*,?\s+(?:and|but|while|whereas|although|though|because|"
                  r"'cause|cuz|since(?! (?:I|he|she|they|we|you) (?:was|were)\b)|so)\s+|\s*,\s+)")  # "since she was 6"
CLAUSE_BREAK = _SEP  # where a sentence is cut into clauses (lineclaims dates a pet by its own clause)
_I = re.compile(r"[Ii]\b(?!')\s*")
_WE = re.compile(r"[Ww]e(?: all| both| two)?\b(?!')\s*")
# A label before what it heads: "Quick one: my flight is ...", "Update: not going to Berlin".
_LABEL = re.compile(r"^(?:sorry,? )?(?:quick (?:one|update|question|note)|update|big news|good news|bad news|news|fyi|"
                    r"reminder|heads up|note|ps|btw|correction)(?: (?:on|about) [^:]{1,40})?\s*[:\-]+\s*(?=\w)", re.I)
_TITLE = re.compile(rf"(?:{TITLES})\.? (?=[A-Z])")
_NAMED_OWNER = re.compile(r"([A-Z][a-z]+)'s ")
_THEIRS = re.compile(r"(?:[Hh]is|[Hh]er) ")
_THE_USER = re.compile(r"[Tt]he user\b\s*")
_PRONOUN = re.compile(r"(?:[Ss]he|[Hh]e|[Tt]hey)\b\s*")
_HIM = re.compile(r"\bhim\b(?!self)")  # an object no subject pronoun of its clause can mean
_IT = re.compile(r"(?:it|it's|this|that|that's|there|there's|here|here's|her|his)\b", re.I)  # no thing "they" could mean
# "Last month I got hurt"; not a time that is the subject ("Tomorrow is my last day at Acme")
_TIME_LEAD = re.compile(rf"(?P<t>{TIME_PHRASE})(?:,\s*|\s+)(?=\S)(?!(?:is|was|will be)\b)", re.I)
# A request to the listener after a statement: what follows asks, it states nothing.
_PLEASE = re.compile(r"(?:please|wish me|let me know|keep me posted|tell me|cross your fingers|fingers crossed)\b", re.I)
_EXAMPLE = re.compile(r"(?:like|such as|including|especially)\b", re.I)  # ", like my bowl": an example
_NO_VERB = re.compile(r"(?:on|at|in|for|with|from|by|after|before|during|until)\b", re.I)  # "Rui on Saturday at 8"
_ASKING = frozenset("how what why when where who which whose do does did is are was were can could would will shall should have has".split())
_PLURAL_VERBS = frozenset("are were have had do did will would can could should may might must never always just really also still".split())
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|then|now(?! that\b)|oh|ah|aw+|well|anyway|anyways|btw|by the way|fyi|actually|plus|wow|yeah|yes|yep|haha|hmm|ok|okay|omg|lol|"
    r"sure|right|true|totally|exactly|absolutely|definitely|honestly|indeed|agreed|great|cool|awesome|nice)(?:[, !]+|$))+",
    re.I,
)
# "I guess, post-accident recovery": a hedge set off by its comma says nothing of the speaker
_PARENTHETICAL = re.compile(r"(?:guess|think|suppose|mean|bet|reckon|believe|know|hope|swear|admit)\s*,", re.I)
_GLUED_DASH = re.compile(r"(?<![\w-])([a-z][\w']*)-\s+(?!(?:and|or|to)\b)(?=\w)")  # "good- we": a dash against its word
_NAME_GOES_ON = re.compile(r"\([^)]*\)[\s.!?]*$|(?:de|do|da|dos|das|di|del|della|der|van|von|du|le|la) [A-Z]")
_BARE_NAME = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?")  # a segment that is only a name: addressed, when a person's
def take_name(text: str, names: NameBook | None = None, initial: bool = True) -> tuple[str, str] | None:
    """A leading name of one or two capitalised words, and the rest of the text.

    With a batch's `names`, only a name its evidence vets (names.py); without, any capital
    that is not a stopword (stored fact texts, whose subjects were vetted when written)."""
    titled = _TITLE.match(text)  # "Dr. Costa": the title vouches for the name, and is no part of it
    text = text[titled.end():] if titled else text
    m = _CAP.match(text)
    if not m or m.group(1).lower() in NAME_STOPWORDS:
        return None
    name, rest = m.group(1), text[m.end():]
    m2 = re.match(r" " + _CAP.pattern, rest)
    if m2 and m2.group(1).lower() not in NAME_STOPWORDS:
        name, rest = f"{name} {m2.group(1)}", rest[m2.end():]
    rest = rest.lstrip()
    if _NAME_GOES_ON.match(rest):
        return None  # "Cantinho do Avillez", "Bruno (backend)": a name going on, or glossed; no clause
    of_people = names is not None and not titled and (first_verb(rest) in PERSON_VERBS or bool(parse_predicate("x", rest, False)))
    if names is not None and not titled and not names.is_named(name, initial, (rest.split() or [""])[0], of_people):
        return None  # of_people: an attribute rule applies ("works at Acme") or a people verb follows ("called")
    return name, rest


@dataclass
class Context:
    me: str  # who "I" is: the speaker, or "The user"
    last: str | None = None  # the last person named, for she/he/they
    they: str | None = None  # ...or the last group of people, if named since (mentions.py), for they
    you: str | None = None  # who "you" is: the nearest other person speaking, if any
    names: NameBook | None = None  # the batch's name evidence (None: trust capitals)
    day: str | None = None  # the local day the line was said on, for plain clauses
    shown: str | None = None  # what the sentence's one photo shows ("photo: a cup ..."), for its pointer
    pet: str | None = None  # the species of the last pet the line got without a name, for "her name is ..."
    dated: str | None = None  # the date an earlier clause of the sentence resolved, for a past event after it
    seen: list[str] = field(default_factory=list)  # the capitalised words of the line's sentences before

    def agrees(self, who: str, pronoun: str) -> bool:  # names.NameBook.agrees: "my sister Ana" is no "he"
        return self.names is None or self.names.agrees(who, pronoun)

    @property
    def told(self) -> bool:
        """The line tells the agent (no other person speaks): a standing rule is a wish ("Please never ...")."""
        return self.you is None and self.names is not None


@dataclass(frozen=True)
class Subject:
    name: str
    first_person: bool = False
    person: bool = True
    display: str = ""  # how a plain clause names it, when not just `name` ("Ana and their family")


def _owned_thing(seg: str, ctx: Context) -> tuple[Subject, str, list[Claim]] | None:
    """'my hand-painted bowl reminds me ...' -> ("<me>'s hand-painted bowl", 'reminds me ...'); "his
    birthday is ..." of the last person named ("my nephew Tiago, his birthday is ..."), or one named."""
    m = MY.match(seg)
    owner = ctx.me
    if not m and ctx.last and (m := _THEIRS.match(seg)) and ctx.agrees(ctx.last, m.group()):  # "his" is no Ana's
        owner = ctx.last
    if not m and (named := _NAMED_OWNER.match(seg)) and (ctx.names is None or ctx.names.is_person(named.group(1))):
        m, owner = named, named.group(1)  # "Rui's birthday is March 3"
    if not m:
        return None
    words = seg[m.end():].split(" ")
    for n in range(1, min(4, len(words) - 1) + 1):
        head, nxt = words[:n], words[n]
        if not re.fullmatch(r"[a-z][\w'-]*", head[-1]):
            return None
        if head[-1] in STOPWORDS:
            continue
        low = nxt.lower()
        plural = head[-1].endswith("s") and (low in _PLURAL_VERBS or (low.isalpha() and low not in STOPWORDS))
        if agrees_with_singular(nxt) or plural:
            return Subject(f"{owner}'s {' '.join(head)}", person=False), " ".join(words[n:]), []
    return None


def _subject(seg: str, ctx: Context, initial: bool = False) -> tuple[Subject, str, list[Claim]] | None:
    if m := _I.match(seg):
        return Subject(ctx.me, first_person=True), seg[m.end():], []
    if m := _WE.match(seg):
        return Subject(ctx.me, first_person=True), seg[m.end():], []
    if pair := paired(seg, ctx.me, lambda name: ctx.names is None or ctx.names.is_named(name, initial, "is")):
        name, display, rest = pair  # "Ana and I went ...", "Rui and his wife split up"
        return Subject(name, first_person=name == ctx.me, display=display), rest, []
    seg = of_mine(seg)  # "a friend of mine gave me ..." is "my friend gave me ..."
    if m := _POSSESSED.match(seg):
        owner = ctx.me if m.group("my") else m.group("own")
        owner = "The user" if owner.lower() == "the user" else owner
        rel, rest = m.group("rel").lower(), seg[m.end():]
        named = take_name(rest, None)  # "my sister Ana": the relation word vouches for the name
        name, rest = named if named else (None, rest)
        if _SPECIES.match(rel):
            text = f"{owner} has a {rel}{f' named {name}' if name else ''}."
            pet = Claim(owner, "pet", f"{rel} {name or ''}".strip(), text, detail=f"{name} ({rel})" if name else rel)
            return Subject(name or f"{owner}'s {rel}", person=False), rest, [pet]
        if not name:
            return Subject(f"{owner}'s {rel}", person=False), rest, []
        relation = Claim(name, "relation", f"{owner}'s {rel}", f"{name} is {owner}'s {rel}.")
        if rest.startswith("and ") and (pair := paired(f"{name} {rest}", ctx.me, lambda n: n == name)):
            return Subject(pair[0], display=pair[1]), pair[2], [relation]  # "my brother Tiago and his wife split up"
        return Subject(name), rest, [relation]
    if group := leading_group(seg, ctx.me):  # "The kids loved it", "My parents live in Porto"
        return _someone(group[0], ctx), group[1], []
    if owned := _owned_thing(seg, ctx):
        return owned
    if m := _THE_USER.match(seg):
        return Subject("The user"), seg[m.end():], []
    if (named := take_name(seg, ctx.names, initial)) and not named[1].startswith(","):
        return Subject(named[0]), named[1], []  # "Ana, it's tough": a name addressed, not a subject
    if (m := _PRONOUN.match(seg)) and (who := ctx.they if seg[0] in "Tt" else ctx.last) and ctx.agrees(who, m.group()):
        if seg[0] in "HhTt" and _HIM.search(seg, m.end()) and not unnamed(who):
            return None  # "My dad is in hospital. They're keeping him ...": whoever they are, not him
        return _someone(who, ctx), seg[m.end():], []
    return None


def _someone_else(seg: str, ctx: Context) -> bool:
    """Whether `seg` names a person other than the speakers and the one a she/he would mean."""
    known = {n.split()[0] for n in (ctx.me, ctx.you, ctx.last) if n}
    return any(w not in known and w.lower() not in NAME_STOPWORDS and not _IT.match(w) and ctx.names.vouches_for(w)
               for w in _CAP.findall(seg))


def _someone(who: str, ctx: Context) -> Subject:
    """A person, or a group in the speaker's name unless it is theirs ("Ana said: the kids")."""
    if not unnamed(who):
        return Subject(who)
    return Subject(who, person=False, display="" if who.startswith(f"{ctx.me}'s ") else f"{ctx.me} said: {who.capitalize()}")


def _segments(sentence: str, ctx: Context) -> list[str]:
    """Cut at conjunctions and commas; a piece that starts no new statement is glued back."""
    said = _LABEL.sub("", _GLUED_DASH.sub(r"\1 - ", normalise(sentence)))  # "Quick one: my flight is ..."
    pieces = _SEP.split(unapposed(said).rstrip(" .!?"))
    segs: list[str] = []
    glued: list[str] = []  # the pieces glued to the current segment, from an "it was ..." on
    for i in range(0, len(pieces), 2):
        seg = unframed(_LEAD.sub("", pieces[i]))
        subj = _subject(seg, ctx, not segs)
        theirs = _THEIRS.match(seg) and _owned_thing(seg, replace(ctx, last=ctx.last or "someone"))  # "his bday is"
        stated = bool(subj and (pred := subj[1].strip()) and not TIME_ONLY.fullmatch(pred)  # not "Braga last May",
                      and not _NO_VERB.match(pred))  # nor "Dinner with Ana and Rui on Saturday": a name, no verb
        rule = is_rule(seg, ctx.told)  # "..., never book me anything before 10"
        starts = bool(FAVOURITE.match(seg) or GONE.match(seg) or _PRONOUN.match(seg) or theirs or stated or rule
                      or parse_predicate("x", seg, False) or (not segs and TIME_ONLY.fullmatch(seg)))
        last_item = glued and pieces[i - 1].strip(" ,") in ("and", "or") and not (stated or theirs or _PRONOUN.match(seg))
        starts = starts and not (segs and _EXAMPLE.match(seg)) and not last_item  # "ski, eat out, and enjoy the views"
        alone = bool(ctx.names and _BARE_NAME.fullmatch(seg.strip()) and (ctx.names.is_person(seg) or calls(seg, ctx.you)))
        if segs and i == len(pieces) - 1 and alone and pieces[i - 1].strip() == ",":
            break  # "I'm here for you, Mari": a name addressed at the end ("with Tomas and Mari" is company)
        if not segs and i < len(pieces) - 1 and alone and pieces[i + 1].strip() == ",":
            continue  # "Mari, that sign looks serious": a name addressed at the start is no subject
        if segs and _PLEASE.match(seg) and not rule:
            break  # "I can't eat gluten, so please no pasta", "..., wish me luck": what follows asks, states nothing
        if len(segs) == 1 and not glued and pieces[i - 1].strip() == "and" and pairs_with(segs[0], seg):
            segs[0] = f"{segs[0]} and {seg}"  # "Ana and I went ...", "me and Rui got engaged": one subject
            continue
        if segs and not starts:
            glued += [pieces[i - 1], pieces[i]]
            continue
        segs[-1:] = [_glue(segs[-1], glued)] if segs else []
        segs.append(seg)
        glued = []
    segs[-1:] = [_glue(segs[-1], glued)] if segs else []
    return segs


def _glue(seg: str, glued: list[str]) -> str:
    """The segment with the pieces that continue it ("..., reading, or playing the violin"), less
    a trailing evaluation and what continues it ("- it was so much fun and relaxing")."""
    for k in range(1, len(glued), 2):
        if is_evaluation(" ".join(glued[k::2])):
            glued = glued[:k - 1]
            break
    return _LEAD.sub("", seg + "".join(glued))


def _clause(subject: Subject, predicate: str, ctx: Context, when: str = "") -> Claim | None:
    """A plain clause as a dated third-person claim, or None without substance (clauses.py).

    `when`: a time phrase said before the subject ("Last Friday, I went ..."), kept in front."""
    pred = strip_asides(predicate).strip(" \t.!?;:,")
    if not pred or (subject.first_person and _PARENTHETICAL.match(pred)):
        return None
    said = rewrite(pred, Speakers(ctx.me, ctx.you), subject.first_person and not subject.display)  # "Ana and I are"
    thing = "" if subject.person else subject.name.split("'s ", 1)[-1]  # "my dentist appointment": its words say
    names = tuple(n for n in (ctx.me, ctx.you, "" if thing else subject.name) if n)
    said = tidy(said) if said else None
    # "I made this!" and its photo: the fact will name what the photo shows (shown.py), so it counts
    shows = with_shown(f"{subject.name} {said}", ctx.shown)[len(subject.name) + 1:] if said else ""
    ahead = bool(said) and (day_ahead(said, ctx.day) or bool(ENDED.search(said)))  # a plan's day, or its end, as a name
    if not said or substance(f"{thing} {shows}", names) + 2 * ahead < MIN_SUBSTANCE or (
            worth(f"{subject.name} {shows}", names[:2]) + NAME_WEIGHT * ahead < MIN_WORTH):
        return None
    dated = event_date(when, clip(said), ctx.day, subject.name)
    if not dated.resolved and ctx.dated and kind_of(dated.said) == "event":  # "an accident last Tuesday, he fell"
        dated = replace(dated, day=ctx.dated, resolved=True)
    ctx.dated = dated.day if dated.resolved else ctx.dated
    said, when = dated.said, dated.when
    if " said: " in subject.display:  # "Ana said: The kids made this": no quotation, so the photo is named here
        said = with_shown(f"{subject.name} {said}", ctx.shown)[len(subject.name) + 1:]
    day = f" ({dated.day})" if dated.day else ""
    person = subject.person and (subject.first_person or ctx.names is None or ctx.names.is_person(subject.name)
                                 or first_verb(pred) in PERSON_VERBS)
    text = f"{subject.display or subject.name} {said}{day}."
    if when:
        text = f"{when[:1].upper()}{when[1:]}, {text}"
    return Claim(subject.name, "event", f"{said} {when}".rstrip(), text, person=person, kind=kind_of(said),
                 happened=dated.day if dated.resolved else dated.held)


def _said(seg: str, ctx: Context, when: str) -> Claim | None:
    """A clause with no person for subject ("It stands for freedom", "A friend made it for my
    birthday"): what the speaker said, in their name ("Ana said: a friend made it for Ana's birthday")."""
    pred = strip_asides(f"{when} {seg}" if when else seg).strip(" \t.!?;:,-")
    told = ctx.told
    if (pred.split() or [""])[0].lower() in _ASKING and not pred.lower().startswith("do not ") or is_advice(pred, told):
        return None  # a question, whatever its punctuation ("How does art help you ..."), or advice
    rule = is_rule(pred, told)  # told to the agent: "your answers" are the assistant's, a wish news as an event is
    said = rewrite(pred, Speakers(ctx.me, "the assistant" if rule else ctx.you), False)
    names = tuple(n for n in (ctx.me, ctx.you) if n)
    said = tidy(said) if said else None
    if not said or not said_enough(said, names, rule, told, ctx.names, day_ahead(said, ctx.day)):
        return None
    dated = event_date("", clip(said), ctx.day)
    said, happened = dated.said, dated.day if dated.resolved else dated.held  # "is on Friday": the day it is held
    day = f" ({dated.day})" if dated.day else ""
    if said.startswith(f"{ctx.me}'s "):  # "my studio is ..." -> "Tomas's studio is ...": already about the speaker
        return Claim(ctx.me, "event", said, f"{said}{day}.", kind="said", happened=happened)
    kind = "rule" if rule else "attitude" if (judged := judges_it(said)) and is_stance(judged) else "said"  # "It was great"
    return Claim(ctx.me, "event", said, f"{ctx.me} said: {said[:1].upper()}{said[1:]}{day}.", kind=kind,
                 happened=happened)


def parse_sentence(sentence: str, ctx: Context) -> list[Claim]:
    """Claims of one sentence; updates ctx.last with the last person something was said of."""
    claims: list[Claim] = []
    current, ctx.dated = None, None  # the subject and the date a clause carries to the next, in this sentence
    statement = untagged(sentence)  # "Olive trees mean peace, right?" says something
    question = strip_asides(statement).rstrip().endswith("?")  # "... that necklace? [shares a photo]" asks
    when = ""  # a leading time phrase ("Last Friday,"), carried to the next clause
    segments = _segments(strip_asides(statement), ctx)
    for i, seg in enumerate(segments):
        if (p := re.match(r"(?:[Ss]he|[Hh]e|[Hh]is|[Hh]er)\b", seg)) and ctx.names is not None:  # names.meant
            said_of = [c.subject for c in claims if c.person and c.subject not in (ctx.me, ctx.you)]
            named = _CAP.findall(" ".join(segments[:i]))  # "I met Ana at the gym, she's a nurse": Ana
            ctx.last = ctx.names.meant(p.group(), (ctx.me, ctx.you), said_of, named, ctx.last, ctx.seen) or ctx.last
        found = named_in(seg, ctx.me, ctx.last, ctx.pet, ctx.names)
        if found:
            claims += found
            if found[-1].attribute == "relation":  # "My sister is named Ana and she lives in Lyon"
                ctx.last = ctx.they = found[-1].subject
            continue
        if TIME_ONLY.fullmatch(seg.strip(" ,")):
            when = seg.strip(" ,")
            continue
        if current is None and (m := _TIME_LEAD.match(seg)):
            when, seg = m.group("t"), seg[m.end():]
        subj = _subject(seg, ctx, initial=i == 0 or bool(when))
        if not subj and current is None and i == 0 and ctx.names is not None and not question and (pred := dropped_i(seg)):
            subj = Subject(ctx.me, first_person=True), pred, []
        if subj:
            current, predicate, extra = subj
        elif current is not None and not _THEIRS.match(seg) and not _PRONOUN.match(seg) and not is_rule(seg, ctx.told):
            # "her mom answered", "she swallowed ..." with no one to mean, and a standing wish ("I hate mornings,
            # never book me ..."): no clause of the last subject
            predicate, extra = seg, []
        else:
            if not question and ctx.names is not None and (quote := _said(seg, ctx, when)):
                claims.append(quote)
            if len(seg.split()) > 2 and not _IT.match(seg):  # "Flowers bring joy. They represent growth",
                ctx.they = group_named(seg, ctx.me)  # but "Look what the kids made! They ..."
            if ctx.names is not None and _someone_else(seg, ctx):  # "It was Rui Tavares, he is ...": not
                ctx.last = ctx.they = None  # whom the line before spoke of (and no guess at who else)
            if kin := kin_named(seg, ctx.me):  # "What's a good gift for my sister? She loves ..."
                ctx.last = ctx.they = kin
            when = ""
            continue
        group = unnamed(current.name)  # the rules' templates speak of a named one: a group's clause is plain
        said = [] if group else parse_predicate(current.name, predicate, current.first_person, ctx.me)
        named_pet = any(c.attribute == "pet" and c.detail.startswith(f"{current.name} (") for c in extra)  # "my cat Nilo"
        if not (current.person or named_pet or _SPECIES.search(current.name) or is_kin(current.name)):  # a thing has no
            said = [c for c in said if c.attribute not in _PEOPLES]  # home or job: "my appointment moved to Friday"
        if not said and not question:
            plain = _clause(current, predicate, ctx, when)
            said = [plain] if plain else []
        when = ""
        if not current.person:
            said = [replace(c, person=False) for c in said]
        if (said or extra) and (current.person or named_pet) and not current.first_person and current.name != "The user":
            ctx.last = ctx.they = current.name
        if kin := kin_named(seg, ctx.me):  # "my mom's birthday is on the 22nd. She's turning 70"
            ctx.last = ctx.they = kin
        ctx.they = group_named(seg, ctx.me) or ctx.they  # "I took the kids to the zoo": they, next
        claims += extra + said
        ctx.pet = next((c.value for c in extra + said if c.attribute == "pet" and "(" not in c.detail), pet_got(seg) or ctx.pet)
    claims, named = with_relations(claims, strip_asides(statement), ctx.me, ctx.you, ctx.last)
    ctx.seen += _CAP.findall(statement)
    ctx.last, ctx.they = (named, named) if named else (ctx.last, ctx.they)
    tip = suggestion(strip_asides(statement), ctx.me, ctx.you) if not claims and ctx.names is not None else None
    if tip and ctx.day:
        claims.append(Claim(ctx.me, "event", tip, f"{ctx.me} {tip} ({ctx.day}).", kind="said", happened=ctx.day))
    return [replace(c, person=c.person and "'s " not in c.subject, sentence=sentence) for c in claims]  # not "Ana's dog"


def parse_text(text: str, me: str = "The user") -> list[Claim]:
    """All claims of a text (a message or a stored fact), sentence by sentence."""
    ctx = Context(me=me)
    out: list[Claim] = []
    for s in sentences(text):
        out += parse_sentence(s, ctx)
    return out
