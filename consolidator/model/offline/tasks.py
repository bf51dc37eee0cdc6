"""Task rules for the offline backend: open, done and cancelled, with plain due dates.

Opens on: "remind me to X", "remind me about X" (as a request: at the start, not "these photos
remind me of home"), "I need/have/must/have got to X" (not in "what I have to do"; "Need to X" and
"I lost my wallet, need to X" too), "don't forget to X", "don't let me forget (about) X" (X a thing,
as with "remind me about"), "todo: X", "add X to my list" (on a shopping list, "Buy X"),
"can/could/would/will you X", "I want/need/would like you to X", "please X", an errand verb with a
due date ("Call the plumber tomorrow"), promises "I will/should/am going to X" that carry a due
date or a plain errand verb (call, send, book...), what a relative or someone one answers to asks
("my boss wants me to X", as a promise is) and a thing they want by a day ("my manager wants the
report by Friday": "The report for my manager"), "remember to X", "I'd better X". X must be an
action: a leading verb and an object of substance (an "it" is what a clause before named, in the
line or the speaker's line before: "renew it" after "My passport expires in March", else the
last thing of its number named, "pay it" after "I got a parking ticket"; a "his" or "her" the
relative named before, of its gender: "buy his uniform" after "My son Leo ...") or a due date
("That day." and "Family love" are not tasks).
Requests to someone (can you, please, don't forget, add, an errand told, I want you to) open a
task only when no other person is in the conversation: between two people they are advice or
favours, not the speaker's errands. An errand the agent offers opens when the person's reply
accepts it (taskoffers.py). Closes (done) on: "done: X", "X is done/finished/sent/booked", "I (have)
finished/sent/booked/paid/called/... X" (not in questions), and on the agent's report, right after
an errand asked of it, that it carried it out ("Done, I booked ...": taskoffers.py). Cancels on: "cancel the reminder to X",
a sentence starting "cancel/scrap/forget (about) X", "never mind (about) X", "no need to X", "I no
longer need to X", "don't bother with X". Done and cancel only touch a task they match: one of the
request's open tasks, or one opened earlier in the same batch (then both changes are sent: the
task is kept as done or cancelled, with when it was opened and closed).
Reschedules on a task moved to another day ("move the plumber call to Wednesday", taskdue.py) and
on a correction of the line that opened it ("Actually, make that Tuesday", restate.meant).

Matching is by content-word overlap (stems): at least one shared word that is not the
title's leading verb, covering half of the shorter side; when both start with different known
task verbs ("call mom" vs "buy flowers for mom") they never match.

Due dates (what day a request names, in the scope's zone): taskdue.py.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from consolidator.domain import is_person_line
from consolidator.model.attachments import ATTACHMENT_FORM
from consolidator.model.offline.clauses import local_time, substance
from consolidator.model.offline.lineclaims import CARRY, addressee
from consolidator.model.offline.mentions import unapposed
from consolidator.model.offline.referents import people_named, resolved
from consolidator.model.offline.restate import meant, stated
from consolidator.model.offline.taskdue import DUE, MONTH_NAMES, due_date, moved_to
from consolidator.model.offline.taskoffers import accepted_offer, carried_out
from consolidator.model.offline.text import STOPWORDS, WEEKDAYS, content_stems, normalise, sentences, stem
from consolidator.model.offline.words import KIN
from consolidator.model.schemas import KnownTask, Line, TaskChange


_REQUEST = re.compile(r"\b(?:can|could|would|will) you(?: please)? (?P<a>.+)", re.I)
# "remind me" as a request: at the start, after one interjection ("Hey,") or "can you"/"please";
# "these photos remind me of home" is no request.
_ASK = r"^\s*(?:[A-Za-z]+,\s*)?(?:(?:please|pls|and|so|also|oh|ok|okay) )*(?:(?:can|could|would|will) you (?:please )?)?"
_WHEN = rf"(?: (?:tomorrow|today|tonight|(?:on|next|this|by) [a-z]+|in [a-z0-9]+ (?:days?|weeks?)|(?:on )?{MONTH_NAMES} \d{{1,2}}))?"
# "remind me every Monday to water the plants": how often stays in the title ("Water the plants every Monday")
_EVERY = rf"(?: (?P<every>every (?:other )?(?:day|morning|evening|night|week|weekend|month|year|{'|'.join(WEEKDAYS)})s?))?"
_REMIND = [
    re.compile(rf"{_ASK}remind me{_EVERY}{_WHEN} (?:to|that I (?:need|have) to) (?P<a>.+)", re.I),
    re.compile(rf"{_ASK}remind me{_EVERY}{_WHEN} (?:about|of) (?P<a>.+)", re.I),
]
_FORGET = re.compile(r"\b(?:do not (?:let me )?forget|^\s*(?:(?:please|pls|and|also|oh) )*remember) to (?P<a>.+)", re.I)
_WANT_YOU = re.compile(r"\bI (?:want|need|would like) you to (?P<a>.+)")
_PLEASE = re.compile(r"^\s*please (?P<a>.+)", re.I)
# "I'll send it tomorrow": a promise, opened only with a due date or a plain errand (_TASK_VERBS).
_PROMISE = re.compile(r"\bI (?:will|shall|should|am going to|am gonna) (?:(?:definitely|really|also|just|probably|surely) )?"
                      r"(?P<a>.+)")  # "I should call mom this weekend": a promise to oneself
_OPENER = r"^\s*(?:(?:oh|ah|and|also|so|ok|okay|btw|please|pls)[,!.]?\s+)*"
# "Need to renew my passport": the I dropped, as notes to oneself are written.
_NEED = re.compile(rf"{_OPENER}(?:(?:need|have|got) to|gotta(?: to)?) (?P<a>.+)", re.I)
# "I lost my wallet, need to cancel my cards": the I of the clause before, dropped
_NEED_TOO = re.compile(r"\bI\b[^,]*,\s+(?:so\s+)?(?:need|have|gotta) to (?P<a>.+)")
# "Don't let me forget mom's birthday on the 22nd": a thing to remember, like "remind me about".
_FORGET_THING = re.compile(rf"{_OPENER}do not (?:let me )?forget (?:about )?(?!(?:to|that|I|we)\b)(?P<a>.+)", re.I)
_ADD_TO_LIST = re.compile(r"(?:add|put) ['\"‘“]?(?P<x>[^'\"’”]+?)['\"’”]? (?:to|on) (?:my|the) (?P<kind>[a-z]+ )?"
                          r"(?:list|to-?do(?: list)?|todos|tasks|reminders)\b", re.I)
_ADD = re.compile(rf"{_OPENER}(?P<a>{_ADD_TO_LIST.pattern})", re.I)  # "Add milk to my shopping list."
_SHOPPING = frozenset("shopping grocery groceries".split())  # what goes on such a list is bought
_TASK_VERB_WORDS = (
    "call ring phone email text message send buy order book pay renew fix clean pick return submit cancel "
    "schedule write draft visit prepare check print sign file post mail update review reply contact plan "
    "organise organize feed walk water meet bring take make finish get do read"
).split()
_TASK_VERBS = frozenset(stem(w) for w in _TASK_VERB_WORDS)
# Verbs of a plain errand: a promise without a date must use one ("I'll call Ana", not "I'll make it").
_ERRAND_WORDS = [w for w in _TASK_VERB_WORDS if w not in "do get make take read bring plan check meet cancel".split()]
_ERRANDS = frozenset(stem(w) for w in _ERRAND_WORDS)
# "Call the plumber tomorrow morning": an errand told to the agent, opened only with its due date.
_IMPERATIVE = re.compile(rf"{_OPENER}(?P<a>(?:{'|'.join(_ERRAND_WORDS)}) .+)", re.I)
# Someone the person answers to wants a thing by a day ("My manager wants the quarterly report by
# Friday"): the thing is the person's to deliver, its title the thing and whose it is.
_MY_PERSON = rf"\b(?:[Mm]y|[Oo]ur) (?P<who>(?i:{KIN}))"  # "my boss", "our landlord", "my son"
_OWED = re.compile(rf"{_MY_PERSON}(?: [A-Z][a-z]+)? (?:wants|needs|expects|is expecting|"
                   r"is waiting for|asked (?:me )?for) (?P<x>(?:the|my|our|a|an|some|his|her|their) [^,;.!?]+)")
_ASKED_OF_ME = re.compile(rf"{_MY_PERSON}(?: [A-Z][a-z]+)? (?:wants|needs|expects|asked|told) me to (?P<a>.+)")
_ASKABLE = frozenset([*_REMIND, _REQUEST])  # the open patterns that may come as a question
_OF_AGENT = frozenset([_WANT_YOU, _REQUEST, _PLEASE])  # errands the agent itself may carry out ("Call Rita on
# Sunday", an errand with its day, may be a note to oneself, which a "Done!" only acknowledges)
# Requests to someone else: when that someone is another person rather than the agent, they are
# advice or favours between people ("don't forget to take breaks"), not the speaker's errands.
_TO_ADDRESSEE = frozenset([_FORGET, _WANT_YOU, _REQUEST, _PLEASE, _FORGET_THING, _ADD, _IMPERATIVE])
_OPEN = [
    *_REMIND,
    re.compile(r"\bI (?:(?:really|still|also|just) )?(?:need|have|have got) to (?:remember to )?(?P<a>.+)"),
    re.compile(r"\bI (?:must|gotta|(?:had )?better) (?:remember to )?(?P<a>.+)"),  # "I had better renew it" ("not ...": no errand)
    _NEED,
    _NEED_TOO,
    _FORGET,
    _FORGET_THING,
    _ADD,
    re.compile(r"^\s*(?:todo|to-do|to do|task)\s*:\s*(?P<a>.+)", re.I),
    _WANT_YOU,
    _REQUEST,
    _PLEASE,
    _PROMISE,
    _IMPERATIVE,
    _ASKED_OF_ME,  # "My boss wants me to finish the deck by Friday"
]
# First words of "can you ..." / "I have to ..." that are not errands.
_NOT_TASKS = frozenset(
    """believe imagine see hear explain describe summarize summarise recommend suggest
    clarify answer think guess say read admit agree confess go leave run know understand
    help be repeat translate define compare share keep miss love like enjoy try wait feel
    remember forget stay look""".split()
)
# A relative clause ("what I have to do") is not a commitment.
_RELATIVE_BEFORE = re.compile(r"\b(?:what|which|that|whatever|everything|all|something|anything|things|stuff|one)\s*$", re.I)
_VERBS_IN_STOPWORDS = frozenset("do get let have make go be take".split())
_DONE_VERBS = (
    r"finished|did|done|completed|sent|booked|paid|called|rang|emailed|bought|submitted|fixed|renewed|ordered|"
    r"scheduled|returned|wrote|made|posted|mailed|filed|cleaned|signed|texted|messaged|visited|picked up|"
    r"handed in|replied to|answered|wrapped up|took care of|sorted out|dealt with"
)
_DONE = [
    re.compile(r"^\s*(?:done|finished|completed)\s*[:\-]\s*(?P<p>.+)", re.I),
    re.compile(
        r"^(?P<p>.+?) (?:is|are|has been|have been) (?:now |finally |all )?"
        r"(?P<v>done|finished|complete|completed|sorted|taken care of|sent|booked|paid|submitted|cancelled)\b",
        re.I,
    ),
    re.compile(rf"\bI (?:have )?(?:(?:just|already|finally|now) )*(?P<v>{_DONE_VERBS}) (?P<p>.+)"),
    re.compile(rf"^\s*(?:(?:just|already|finally) )*(?P<v>{_DONE_VERBS}) (?P<p>.+)", re.I),
]
_GENERIC_DONE = frozenset("finished did done completed complete sorted wrapped took dealt".split())
_CANCEL_REMINDER = re.compile(
    r"\b(?:cancel|scrap|drop|delete|remove) (?:the |my |that )?(?:task|reminder|todo|to-do)(?: (?:to|about|for))? (?P<p>.+)",
    re.I,
)
_CANCEL = [
    re.compile(r"^\s*(?:(?:oh|ah|and|also|actually|ok|okay|so|well|hey|btw)[,!.]?\s+)*(?:please )?"
               r"(?:cancel|scrap|forget about|forget) (?P<p>.+)", re.I),  # "Oh, cancel the plumber"
    re.compile(r"\bnever ?mind(?: about)? (?P<p>.+)", re.I),
    re.compile(r"\bno need to (?P<p>.+)", re.I),
    re.compile(r"\bI (?:do not|no longer) (?:need|have) to (?P<p>.+)", re.I),
    re.compile(r"\bdo not (?:bother|worry about)(?: with)? (?P<p>.+)", re.I),
]
_ASIDE = re.compile(rf"\s*(?:\[[^\]]*\]?|{ATTACHMENT_FORM})")  # "[laughs]", "(photo: ...)": not speech
_CUT = re.compile(r"\s*(?:[,;(].*|\b(?:because|so that|since|if|when|as soon as|once|after I|before I)\b.*"
                  r"|\b(?:before|by|until) then\b.*|\b(?:later|soon|at some point|sometime)\s*[.!?]*)$", re.I)
_OBLIGED = re.compile(r"^(?:have to|need to|got to|must|(?:set|note|add|create|make|save) (?:a|an|me a) (?:reminder|note|alarm)"
                      r" (?:to|for|about))\s+", re.I)  # "(I'll) note a reminder to book the tasting": book the tasting
_POLITE = re.compile(r"\b(?:please|for me|thanks|thank you|any ?more|any longer|myself)\b", re.I)  # "tell Ana myself"


_QUALIFIES = re.compile(r" (?:dinner|lunch|breakfast|brunch|drinks|night|party|meeting|class|game|show)\b", re.I)



def title_of(action: str) -> str:
    """'book a table at Luigi's for tomorrow, please?' -> "Book a table at Luigi's"; a due day that
    qualifies a noun keeps the noun's preposition ("a Thai place for Friday dinner" -> "... for dinner")."""
    if m := _ADD_TO_LIST.match(action.strip()):  # "add 'print photos' to my list": its items, commas and all
        bought = (m.group("kind") or "").strip().lower() in _SHOPPING
        text = f"{'buy ' if bought else ''}{m.group('x')}"
    else:
        text = _OBLIGED.sub("", _CUT.sub("", action.strip()))  # "I'll have to skip ...": the errand is "skip ..."
    text = DUE.sub(lambda m: " for " if _QUALIFIES.match(m.string, m.end()) and m.group(0).split()[0] == "for"
                    else "", text)
    text = _POLITE.sub("", text)
    text = " ".join(text.split()).strip(" .!?:;,-\"'")
    return text[:1].upper() + text[1:]


def _key(title: str) -> tuple[str, ...]:
    return tuple(content_stems(title))


def _matches(phrase: str, title: str) -> float:
    """How well a done/cancel phrase names a task title (0 = not at all)."""
    p, t = _key(phrase), _key(title)
    if not p or not t:
        return 0.0
    if p[0] in _TASK_VERBS and t[0] in _TASK_VERBS and p[0] != t[0]:
        return 0.0
    objects = set(t[1:] if t[0] in _TASK_VERBS and len(t) > 1 else t)
    shared = set(p) & set(t)
    if not (shared & objects):
        return 0.0
    cover = len(shared) / min(len(set(p)), len(set(t)))
    return cover if cover >= 0.5 else 0.0


class _Book:
    """The tasks known during one batch: the request's open tasks, then the batch's own."""

    def __init__(self, open_tasks: list[KnownTask]) -> None:
        self.tasks: list[tuple[str | None, str]] = [(t.id, t.title) for t in open_tasks]
        self.changes: list[TaskChange | None] = []
        self.new_index: dict[int, int] = {}  # index in tasks -> index in changes (opened here)
        self.asked: dict[str, list[str]] = {}  # a line's id -> the titles it asked the agent to do

    def opened_from(self, line_id: str) -> bool:
        return any(c is not None and c.op == "open" and line_id in c.source_ids for c in self.changes)

    def find(self, title: str) -> int | None:
        """The index of the task `title` names (its words, or four in five of them), None if none."""
        key = set(_key(title))
        for i, (_, t) in enumerate(self.tasks):
            other = set(_key(t))
            if key == other or (key and len(key & other) / len(key | other) >= 0.8):
                return i
        return None

    def has(self, title: str) -> bool:
        return self.find(title) is not None

    def move(self, phrase: str, due: date, source_id: str) -> bool:
        """The task `phrase` names best ("it": the one this batch opened last) is due on `due` now;
        False if it names none. An errand asked of the agent is then asked again by this line."""
        scores = [_matches(phrase, t) for _, t in self.tasks]
        if phrase.lower() in ("it", "that", "this") and self.new_index:
            scores = [float(i == max(self.new_index)) for i in range(len(self.tasks))]
        if not scores or max(scores) == 0.0:
            return False
        i = scores.index(max(scores))
        self._due(i, due, source_id)
        if any(self.tasks[i][1] in titles for titles in self.asked.values()):
            self.asked.setdefault(source_id, []).append(self.tasks[i][1])  # "Move it to Thursday" - "Done."
        return True

    def _due(self, i: int, due: date, source_id: str) -> None:
        if i in self.new_index:  # opened in this batch: opened due then
            change = self.changes[self.new_index[i]]
            self.changes[self.new_index[i]] = change.model_copy(
                update={"due": due, "source_ids": [*change.source_ids, source_id]})
        else:
            task_id, title = self.tasks[i]
            self.changes.append(TaskChange(op="rescheduled", title=title, task_id=task_id, due=due,
                                           source_ids=[source_id]))

    def close(self, op: str, phrase: str, source_id: str, asked_in: str | None = None) -> bool:
        """Closes the task `phrase` names best; `asked_in`: the line that asked it, cited too."""
        scores = [_matches(phrase, t) for _, t in self.tasks]
        if not scores or max(scores) == 0.0:
            return False
        i = scores.index(max(scores))
        task_id, title = self.tasks.pop(i)  # opened in this batch too: closed by its title (its history kept)
        self.new_index.pop(i, None)
        self.changes.append(TaskChange(op=op, title=title, task_id=task_id,
                                       source_ids=[asked_in, source_id] if asked_in else [source_id]))
        self.new_index = {k - (k > i): v for k, v in self.new_index.items()}
        return True

    def open(self, title: str, due: date | None, source_id: str, fixes: bool = False, offer: bool = False) -> None:
        """Opens `title` unless it is known; the task, when `fixes` (the line before said right),
        is due on `due` now; an `offer` accepted, unless the accepting line asked for it in its own
        words ("Want me to remind you to chase him?" - "Yes, remind me to call him")."""
        if offer and any(_matches(title, t) or _matches(t, title) for i, (_, t) in enumerate(self.tasks)
                         if i in self.new_index and source_id in self.changes[self.new_index[i]].source_ids):
            return
        if fixes and due is not None and (i := self.find(title)) is not None:
            return self._due(i, due, source_id)
        if not title or self.has(title):
            return
        self.new_index[len(self.tasks)] = len(self.changes)
        self.tasks.append((None, title))
        self.changes.append(TaskChange(op="open", title=title, due=due, source_ids=[source_id]))


def _done_phrase(m: re.Match[str]) -> str:
    verb = (m.groupdict().get("v") or "").lower()
    phrase = m.group("p")
    if verb and verb.split()[0] not in _GENERIC_DONE:
        phrase = f"{stem(verb.split()[0])} {phrase}"
    return phrase


def _has_action(action: str, title: str, due: date | None, promise: bool) -> bool:
    """A task needs a verb phrase: a leading verb, then an object of substance or a due date.

    A promise ("I'll ...") or what one is asked to do also needs a due date or a plain errand verb:
    "I'll keep that in mind", "I will be there", "my doctor wants me to cut down on caffeine" are no tasks."""
    words = re.findall(r"[a-z']+", action.lower())
    if not words or not title:
        return False
    verb = words[0]
    if verb in ("never", "not", "always") or words[:2] == ["do", "not"]:
        return False  # "Please don't schedule anything on Fridays", "always reply in Portuguese": standing rules
    if verb in _NOT_TASKS or (verb in STOPWORDS and verb not in _VERBS_IN_STOPWORDS) or verb.endswith("ly"):
        return False
    if verb in ("give", "show", "tell") and words[1:2] in (["me"], ["us"], ["you"]):
        return False  # "can you tell me ...", "give me an example": asked of the listener; "tell Ana" is an errand
    if promise and due is None and stem(verb) not in _ERRANDS:
        return False
    return substance(" ".join(title.split()[1:])) > 0 or due is not None


def _sentence_changes(book: _Book, sentence: str, line: Line, today: datetime, peer: bool, before: str = "",
                      fixes: bool = False, offer: bool = False) -> None:
    """`today`: the line's local time; `peer`: the line speaks to another person, not the agent;
    `before`: what the speaker said before (their recent lines, this line's sentences before), whose
    thing or person an "it" or "her" of the errand may mean (referents.py); `fixes`: the sentence
    corrects the speaker's line before (a task it opened is due when it says now); `offer`: the
    agent's errand the line accepted (`_Book.open`)."""
    s = unapposed(normalise(_ASIDE.sub("", sentence)))  # "Rui, my boss, wants ...": "my boss Rui wants ..."
    question = s.rstrip().endswith("?")
    if (m := _CANCEL_REMINDER.search(s)) and book.close("cancelled", m.group("p"), line.id):
        return
    if not question:
        for pattern in _DONE:
            if (m := pattern.search(s)) and book.close("done", _done_phrase(m), line.id):
                return
    for pattern in _CANCEL:
        if (m := pattern.search(s)) and book.close("cancelled", m.group("p"), line.id):
            return
    if (not question or _REQUEST.search(s)) and (moved := moved_to(s, today)) and (
            book.move(resolved(f"move {moved[0]}", before)[5:], moved[1], line.id)  # "move it": what was named
            or moved[0].lower() in ("it", "that") and book.move("it", moved[1], line.id)):  # else the task just opened
        return  # "Move the plumber call to Wednesday", "Can you push the dentist to Friday?"
    if not question and (m := _OWED.search(s)) and (due := due_date(m.group("x"), today)[0]) is not None:
        book.open(title_of(f"{m.group('x')} for my {m.group('who').lower()}"), due, line.id)
        return
    for pattern in _OPEN:
        m = pattern.search(s)
        if not m or (question and pattern not in _ASKABLE) or (peer and pattern in _TO_ADDRESSEE):
            continue
        if _RELATIVE_BEFORE.search(s[:m.start()]):
            continue
        action = m.group("a")
        earlier = f"{before} {s[:m.start('a')]}"  # what an "it", "her" or "his" of the errand may mean
        action = resolved(action, earlier)
        due, _ = due_date(s, today)
        if pattern is _IMPERATIVE and due is None:
            continue
        every = m.groupdict().get("every")
        title = f"{title_of(action)} {every}" if every and every.lower() not in action.lower() else title_of(action)
        if not _has_action(action, title, due, pattern in (_PROMISE, _ASKED_OF_ME)) and pattern not in (*_REMIND, _FORGET_THING):
            continue
        book.open(title, due, line.id, fixes, offer)
        if pattern in _OF_AGENT and book.has(title):
            book.asked.setdefault(line.id, []).append(title)
        return


EARLIER_LINES = 5  # of the speaker's lines before a line (within lineclaims.CARRY), those its "it" or "her" may mean


def task_changes(lines: list[Line], open_tasks: list[KnownTask], zone: str = "UTC",
                 context: list[Line] = ()) -> list[TaskChange]:
    """Opened, done, cancelled and rescheduled tasks said in people's `lines` (in order), and the
    errands the agent offered that a person accepted; relative due dates count from each line's
    local day in `zone`. The `context` lines (the batch before's last) are read, never acted on:
    what an "it" means, the line a correction corrects."""
    book = _Book(open_tasks)
    lines = [*context, *lines]
    people = [line for line in lines if is_person_line(line)]
    before = {b.id: a for a, b in zip(lines, lines[1:])}
    after = {a.id: b for a, b in zip(lines, lines[1:])}
    read_only = {line.id for line in context}
    for i, line in enumerate(people):
        if line.id in read_only:
            continue
        today = local_time(line.at, zone)
        peer = addressee(people, i) is not None
        said = sentences(line.text)
        mine = [p.text for p in people[max(0, i - EARLIER_LINES):i] if p.speaker == line.speaker and line.at - p.at <= CARRY]
        earlier = normalise(" ".join(mine))  # what the speaker said just before: whom a "her" of the line may mean
        covered = i > 0 and book.opened_from(people[i - 1].id)  # "Want a reminder?" of a task just opened: that task
        offered = accepted_offer(before.get(line.id), said[0] if said else "", earlier, covered)
        fixed = meant(line.text, mine[-1]) if mine else None  # "Actually, make that Tuesday": the line before, right
        said = sentences(stated(fixed)) if fixed else said
        asked = before.get(line.id)  # "Want me to remind Bruno?" - "No, I'll tell him myself": Bruno
        asked = people_named(asked.text) if asked is not None and not is_person_line(asked) else ""
        for k, sentence in enumerate(said):  # what was said before: the speaker's line before, and this one's
            _sentence_changes(book, sentence, line, today, peer,  # the line's few sentences before (a paste is long)
                              normalise(" ".join([earlier, asked, *said[max(0, k - EARLIER_LINES):k]])),
                              bool(fixed))
        if offered is not None:  # after the line's own: "Yes, remind me to call him" is theirs, not both
            _sentence_changes(book, offered, line, today, peer, earlier, offer=True)
        reply = after.get(line.id)  # "Please book a table ..." - "Done, I booked a table for four ...": done
        if (did := carried_out(reply)) is not None:
            for title in book.asked.pop(line.id, []):
                if (not did or _matches(did, title)) and book.has(title):  # still open: closed by no one else
                    book.close("done", title, reply.id, asked_in=line.id)
    return [c for c in book.changes if c is not None]
