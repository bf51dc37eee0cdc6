"""Fact extraction (OfflineModel.extract_facts) as ordered passes over one ExtractionDoc.

EXTRACTION_PASSES, in order: the batch's people lines read into claims (lineclaims.py, names
vetted by the batch and the neighbours' subjects); duplicate claims merged (one claim, every
line id); for single-valued attributes the batch's last word kept; a plan the batch itself calls
off later dropped (the ending says it, `_ends`); claims that add too little
to the neighbours shown and the batch's earlier claims dropped (worth.novel); an operation
decided for each against the neighbours (ADD, NOOP, UPDATE, DELETE; one UPDATE or DELETE per
target); the batch's writes kept within their share of what it read (factshare.py). Each pass
is `(doc, settings) -> doc` (passes.py); model.py's docstring says what the rules cover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache

from consolidator.domain import is_negated
from consolidator.model.offline.clauses import local_day
from consolidator.model.offline.factshare import within_share
from consolidator.model.offline.lineclaims import claims_of_lines
from consolidator.model.offline.restate import correction, stated
from consolidator.model.offline.names import known_subjects
from consolidator.model.offline.parse import parse_text
from consolidator.model.offline.passes import Pass, run_passes
from consolidator.model.offline.rules import Claim, Polarity, same_subject, spec_of, values_compatible
from consolidator.model.offline.text import STOPWORDS, content_stems, normalise, past_form, stem
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.offline.words import MONTHS, WEEKDAYS
from consolidator.model.offline.worth import ENDED, novel
from consolidator.model.offline.reldates import DATE_NOTE
from consolidator.model.schemas import FactCandidate, FactExtractionRequest, KnownFact

__all__ = ["EXTRACTION_PASSES", "ExtractionDoc", "extract_facts", "negated"]


@dataclass
class ExtractionDoc:
    """What the extraction passes share: the request, then the claims as each pass leaves them."""

    request: FactExtractionRequest
    claims: list[Claim] = field(default_factory=list)
    known: list[tuple[KnownFact, list[Claim]]] = field(default_factory=list)  # neighbours, best first, parsed
    facts: list[FactCandidate] = field(default_factory=list)


def read_claims(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """Every claim of the people's lines, names vetted by the batch and the neighbours' subjects."""
    known_names = known_subjects(f.text for f in doc.request.neighbours)
    claims = claims_of_lines(doc.request.messages, doc.request.timezone, known_names, doc.request.context)
    doc.claims = [c for c in claims if c.kind != "detail"]  # a contact's detail its sentence's fact holds
    return doc


def merge_duplicates(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """One claim per (subject, attribute, value, polarity), carrying every line id."""
    doc.claims = _merge_duplicates(doc.claims)
    return doc


def latest_per_attribute(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """A single-valued attribute's last word in the batch (_latest_per_single_attribute)."""
    doc.claims = _latest_per_single_attribute(doc.claims)
    return doc


def drop_ended(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """A plan the batch itself calls off later ("flying to Berlin in March" ... "not going to Berlin
    anymore") is not written: the ending is, and says it. Nor is a value it corrects later ("My
    budget is around 120" ... "the budget is 150, not 120"), nor a need it meets ("I need to renew
    the car insurance" ... "I renewed the car insurance")."""
    endings = [(j, c.subject, names) for j, c in enumerate(doc.claims) if (names := _ending_names(c))]
    fixes = [(j, fix) for j, c in enumerate(doc.claims) if (fix := correction(c.text))]
    doc.claims = [c for i, c in enumerate(doc.claims)
                  if not any(j > i and _ends(subject, names, c.text) for j, subject, names in endings)
                  and not any(j > i and _corrects(fix, c.text) for j, fix in fixes)
                  and not (_NEED.match(c.text) and any(fulfils(d, c.text) for d in doc.claims[i + 1:]))]
    return doc


def keep_novel(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """Claims that add enough to the neighbours and the batch's earlier claims (worth.novel); a
    correction is news however few its new words ("the budget is 150, not 120"), as an ending is,
    and so is a need met ("I sent Rui the new price list" after "... promised to send Rui ...")."""
    speakers = {(m.speaker or "").strip() for m in doc.request.messages if m.speaker}
    said_on = {m.id: local_day(m.at, doc.request.timezone) for m in doc.request.messages}
    kept = {id(c) for c in novel(doc.claims, [f.text for f in doc.request.neighbours], speakers, said_on)}
    needs = [f.text for f in doc.request.neighbours if _NEED.match(f.text)]
    doc.claims = [c for c in doc.claims if id(c) in kept or correction(c.text) or any(fulfils(c, n) for n in needs)]
    return doc


def decide_ops(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """Each claim as a fact candidate with its operation against the neighbours (best first):
    a target is updated or deleted once; a feeling, wish or intention ("will keep pushing")
    ranks attitude_discount below what happened, so unused it falls under facts.score_floor sooner."""
    doc.known = [(f, parse_text(f.text)) for f in sorted(doc.request.neighbours, key=lambda f: -f.similarity)]
    targeted: set[str] = set()
    for claim in doc.claims:
        claim = _ended_as_known(claim, doc.known)
        op, target = _decide(claim, doc.known)
        if op in ("UPDATE", "DELETE"):
            if target in targeted:
                op, target = "ADD", None
            else:
                targeted.add(target)
        spec = spec_of(claim.attribute)
        asserted = claim.polarity is Polarity.ASSERTED
        discount = settings.attitude_discount
        importance = max(1, spec.importance - discount) if claim.kind == "attitude" else spec.importance
        doc.facts.append(FactCandidate(
            text=claim.text, importance=importance, topic=spec.topic, op=op, target_id=target,
            source_ids=list(claim.source_ids), critical=spec.critical and asserted,
        ))
    return doc


def share_room(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
    """The batch's writes within fact_share of what it read (factshare.within_share)."""
    doc.facts = within_share(doc.facts, doc.request.messages, settings)
    return doc


EXTRACTION_PASSES: tuple[Pass, ...] = (
    read_claims, merge_duplicates, latest_per_attribute, drop_ended, keep_novel, decide_ops, share_room,
)


def extract_facts(request: FactExtractionRequest, settings: OfflineSettings = DEFAULTS,
                  passes: tuple[Pass, ...] = EXTRACTION_PASSES) -> list[FactCandidate]:
    """The fact candidates of `request`: `passes` run in order over one ExtractionDoc."""
    return run_passes(ExtractionDoc(request), settings, passes).facts


def _merge_duplicates(claims: list[Claim]) -> list[Claim]:
    merged: dict[tuple, Claim] = {}
    for c in claims:
        k = (c.subject.lower(), c.attribute, c.key, c.polarity)
        if k in merged:
            prev = merged[k]
            ids = prev.source_ids + tuple(i for i in c.source_ids if i not in prev.source_ids)
            merged[k] = replace(prev, source_ids=ids)
        else:
            merged[k] = c
    return list(merged.values())


def _latest_per_single_attribute(claims: list[Claim]) -> list[Claim]:
    """For single-valued attributes keep the batch's last word; it inherits the ids of earlier
    changes it completes ("I quit Acme. I work at Globex" -> one claim, both ids)."""
    names: list[str] = []  # one spelling per person: "Ana" and "Ana Lopez" share a slot
    slots = []
    for c in claims:
        name = next((n for n in names if same_subject(n, c.subject)), None)
        if name is None:
            names.append(name := c.subject)
        slots.append((name.lower(), c.attribute))
    last: dict[tuple[str, str], int] = {}
    for i, c in enumerate(claims):
        if spec_of(c.attribute).single:
            last[slots[i]] = i
    out: list[Claim] = []
    for i, c in enumerate(claims):
        slot = slots[i]
        final = claims[last[slot]] if slot in last else None
        ends_another = (final is not None and c.polarity is final.polarity is Polarity.ENDED
                        and c.value.lower() != final.value.lower())  # "I left Acme ... we broke up": two endings
        if slot not in last or last[slot] == i or ends_another:
            if slot in last and c.polarity is Polarity.ASSERTED:
                earlier = [e for j, e in enumerate(claims[:i]) if slots[j] == slot
                           and e.polarity is not Polarity.ASSERTED]
                ids = tuple(dict.fromkeys([s for e in earlier for s in e.source_ids] + list(c.source_ids)))
                c = replace(c, source_ids=ids)
            out.append(c)
    return out


@lru_cache(maxsize=1 << 12)
def _norm(text: str) -> tuple[str, ...]:
    """The content stems of a text (cached: each claim is compared with every neighbour)."""
    return tuple(content_stems(normalise(text)))


def _days_named(text: str) -> set[str]:
    """The stems of the weekday and month of each date `text` writes out ("2025-03-07": Friday, March)."""
    days = []
    for m in _ISO_DAY.finditer(text):
        try:
            day = date.fromisoformat(m.group())
        except ValueError:
            continue
        days += [WEEKDAYS[day.weekday()], MONTHS[day.month - 1]]
    return set(_norm(" ".join(days)))


_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@lru_cache(maxsize=1 << 12)
def negated(text: str) -> bool:
    return is_negated(normalise(text))


def _ended_as_known(claim: Claim, known: list[tuple[KnownFact, list[Claim]]]) -> Claim:
    """An ending whose value no known fact of its attribute holds, but one of another single-valued
    attribute of the same subject does, ends that one ("I left Acme" reads as a partner left; the
    known "Maya works at Acme" says it was the employer)."""
    if claim.polarity is not Polarity.ENDED or not claim.key:
        return claim
    same = [k for _, ks in known for k in ks if same_subject(k.subject, claim.subject) and k.polarity is Polarity.ASSERTED]
    if any(k.attribute == claim.attribute and values_compatible(claim.key, k.key) for k in same):
        return claim
    other = next((k.attribute for k in same if k.attribute != claim.attribute and spec_of(k.attribute).single
                  and set(k.key) == set(claim.key)), None)
    return replace(claim, attribute=other) if other else claim


def _decide(claim: Claim, known: list[tuple[KnownFact, list[Claim]]]) -> tuple[str, str | None]:
    """ADD, NOOP, UPDATE or DELETE of one claim against the neighbours (best first)."""
    text_key = _norm(claim.text)
    for fact, _ in known:
        if _norm(fact.text) == text_key and negated(fact.text) == negated(claim.text):
            return "NOOP", fact.id
    if claim.attribute == "event" and (met := next((f.id for f, _ in known if fulfils(claim, f.text)), None)):
        return "UPDATE", met  # a need met ends the need, though it says no new word
    matches = [(f, k) for f, ks in known for k in ks
               if k.attribute == claim.attribute and same_subject(k.subject, claim.subject)]
    mine = set(claim.key)
    for fact, k in matches:
        if k.polarity is claim.polarity and (mine <= set(k.key)) and (mine or not k.key):
            return "NOOP", fact.id
    if claim.polarity is not Polarity.ASSERTED:
        op = "DELETE" if claim.polarity is Polarity.DENIED else "UPDATE"
        for fact, k in matches:
            if k.polarity is Polarity.ASSERTED and values_compatible(claim.key, k.key):
                return op, fact.id
        for fact, ks in known:  # facts the rules cannot parse ("Maya plays tennis.")
            words = set(_norm(fact.text))
            if mine and mine <= words and claim.subject.lower().split()[0] in words and not negated(fact.text):
                return op, fact.id
        return (op, ended) if (ended := _ended_event(claim, known)) else ("ADD", None)
    if claim.attribute == "event":  # events add up: a fuller account of one day never erases another day's,
        ended = _ended_event(claim, known) or _corrected_fact(claim, known)  # but an ending or a correction ends one
        return ("UPDATE", ended) if ended else ("ADD", None)
    single = spec_of(claim.attribute).single
    for fact, k in matches:
        if k.polarity is not Polarity.ASSERTED and values_compatible(claim.key, k.key):
            return "UPDATE", fact.id  # true again
        if k.polarity is Polarity.ASSERTED and (single or set(k.key) < mine):
            return "UPDATE", fact.id  # new value, or more detail
    return "ADD", None


_PLAN = re.compile(r"(?:is|are) (?:\w+ing|going to|about to|due to)\b|will\b|plans? to\b|(?:has|have) (?:a|an) \w+ (?:on|at|in)\b")
_NAME_WORD = re.compile(r"(?<!^)(?<![.!?:] )\b[A-Z][a-z]+\b")


def _ended_event(claim: Claim, known: list[tuple[KnownFact, list[Claim]]]) -> str | None:
    """The known fact an ending ends (`_ends`), the closest first; None if none."""
    names = _ending_names(claim)
    return next((fact.id for fact, _ in known if _ends(claim.subject, names, fact.text)), None) if names else None


def _ending_names(claim: Claim) -> frozenset[str]:
    """The names an ending names besides its subject ("Maya is not going to Berlin anymore":
    Berlin), or with none its words of substance ("not going to the board meeting after all":
    board, meeting, as "~stems"); none if the claim ends no plan, or names nothing it ends ("I'm
    not going anymore"). A taste ended ("doesn't like Berlin anymore") ends none."""
    if claim.attribute not in ("event", "habit") or not ENDED.search(claim.text):
        return frozenset()
    names = frozenset(w for w in _NAME_WORD.findall(claim.text) if w.lower() not in STOPWORDS) - set(claim.subject.split())
    said = DATE_NOTE.sub("", claim.text[len(claim.subject):])
    return names or frozenset(f"~{w}" for w in content_stems(said) if w not in _ENDING_WORDS)


_ENDING_WORDS = frozenset(stem(w) for w in "go going come coming make it cannot can not after all anymore any more "
                          "longer cancelled canceled called off".split())


def _ends(subject: str, names: frozenset[str], text: str) -> bool:
    """Whether an ending of `subject` naming `names` ends what `text` says ("... is flying to Berlin
    ..."): a plan of the same subject (under way or ahead), not negated, naming every one of the
    names (or holding every one of its "~stems"); what happened ("Maya lived in Berlin") and a
    state ("works at Acme") are no plans."""
    if not (text.startswith(subject) and not negated(text) and _PLAN.match(text[len(subject):].strip())):
        return False
    stems = {n[1:] for n in names if n.startswith("~")}
    return {n for n in names if not n.startswith("~")} <= set(_NAME_WORD.findall(text)) and stems <= set(content_stems(text))


def _corrects(fix: tuple[frozenset[str], frozenset[str]], text: str) -> bool:
    """Whether `text` states the value `fix` replaces, of what it is about ("Maya's budget is
    around 120 euros"; "the budget is 150, not 120" states 150: an earlier correction is corrected)."""
    about, old = fix
    said = stated(text)
    words = set(_norm(said)) | _days_named(said)  # "(2025-03-07)" is a Friday: "not Friday" means it
    return old <= words and about <= words and not (negated(text) and said == text)


# "Maya needs to renew their car insurance ...": a need or a promise of the subject, and what it is
_NEED = re.compile(r"^(?P<s>.+?) (?:needs|need|has|have|had|must|promised|is going|are going|plans|wants) to "
                   r"(?P<v>[a-z]+) (?P<x>[^(]+)")


def fulfils(claim: Claim, text: str) -> bool:
    """Whether `claim`, a thing its subject did ("Maya renewed the car insurance"), meets the need
    or promise `text` states of them ("Maya needs to renew their car insurance before November
    30"): the same verb, done, and most of what it is done to; the need is met, so superseded."""
    m = _NEED.match(text)
    said = claim.text[len(claim.subject):].split()
    if not m or m.group("s") != claim.subject or not said or not past_form(said[0]) or negated(claim.text):
        return False
    wanted = set(content_stems(m.group("x"))) - _TIME_STEMS
    done = set(content_stems(" ".join(said[1:])))
    return stem(said[0]) == stem(m.group("v")) and bool(wanted) and len(wanted & done) * 2 >= len(wanted)


_TIME_STEMS = frozenset(stem(w) for w in ("before", "after", "by", "until", "today", "tomorrow", "tonight", "week",
                                          "month", "year", *MONTHS, *WEEKDAYS))


def _corrected_fact(claim: Claim, known: list[tuple[KnownFact, list[Claim]]]) -> str | None:
    """The known fact a correction corrects, the closest first; None if none."""
    fix = correction(claim.text)
    return next((fact.id for fact, _ in known if _corrects(fix, fact.text)), None) if fix else None
