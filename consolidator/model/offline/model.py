"""OfflineModel: the deterministic, rule-based backend used when no API key is set.

Pure: the same request always gives the same reply, nothing is read from the clock, the
network or the environment (summaries use the embedder and word list installed with the
package: wordllama, else the hashing fallback). It never invents: summaries are sentences
copied from the inputs (summarise.py; relative dates get their absolute date beside them),
and every fact, contact detail and task is built from words of people's messages, joined by a
few fixed verbs ("lives in", "works at"). Only lines from people are read for facts, contacts
and tasks: role "user", and role "assistant" when it carries a `speaker` other than
"assistant"/"agent". Tool, action and system lines never produce anything but summary text.

What it covers. Facts: attribute rules (patterns.py) for where someone lives or moved, origin,
employer and job, partner, diet and avoided foods, allergies and medical conditions (critical),
injuries, pets, relatives ("my sister Ana"), training, learning, plans, goals, likes and
dislikes, favourites, age, and changes ("no longer", "quit", "split up", "got laid off"); the
single-valued ones (home, job, employer, partner, diet...) supersede the old value whatever
verb said it (verb classes, not set phrases). Every other clause of substance about a person
is kept as an event or experience, third person, dated with the local day it was said in the
scope's time zone ("Ana went to a choir rehearsal (2023-05-07)."); a clause with no
person for subject is kept as what the speaker said (parse.py, clauses.py), a concrete
suggestion to the other person as "Ana suggested Tomas try ..." (suggest.py). Such plain
clauses lose their intensifiers and trailing evaluations, and are kept only when they add
enough rare content to the neighbours shown and the batch's earlier claims: little for what
happened, more for a feeling or intention, more for a longer fact (worth.py). Subjects:
I/we (the speaker, else "The user"), you (the other person speaking), "my X" (the speaker's X;
"Mom", "Dad" as at home: "my mom"; "my older brother" is not "my younger brother"),
she/he/they (the last person named in the same message, or at a reply's start in the speaker's
line before), and names the batch's evidence vets (names.py): never a capitalised opener such as
"Sounds" or "Endless". A reply in a word to the other party's question (the agent's too)
is read in the question's words: names ("What's your dog's name?" - "Rex!"), and the statement a
few question shapes imply ("How long have you been married?" - "5 years", replies.py). Contacts are
people only (contacts.py), with the pastimes and places their clauses name. Tasks open on
requests, reminders and dated or errand promises that carry an action, close on "done"/"I sent
...", cancel on "cancel"/"never mind" (tasks.py).

Limits: English only; attribute values end at the first comma or conjunction ("works at Acme,
mostly nights" keeps Acme; "at Acme as a nurse" gives the employer and the job); sarcasm, hypotheticals ("if I moved to Paris")
and reported speech ("Tom said he moved" is read as Tom's claim) are taken at face value.
Coreference is limited to she/he/they within one message (or the speaker's line before) and
"you" to the nearest other person speaking; gender is never guessed ("my" becomes "their"). Op decisions compare parsed
(subject, attribute, value) triples, so two stored facts that the rules cannot parse are only
matched by identical content words. Dates are understood only in the plain forms of tasks.py.
"""

from __future__ import annotations

import re

from consolidator.domain import is_person_line
from consolidator.model import schemas
from consolidator.model.offline.contacts import contact_updates
from consolidator.model.offline.extraction import extract_facts, negated
from consolidator.model.offline.summarise import extractive_summary, fallback_days
from consolidator.model.offline.lineclaims import claims_of_lines
from consolidator.model.offline.parse import parse_text
from consolidator.model.offline.rules import same_subject, spec_of, values_compatible
from consolidator.model.offline.reflect import reflect
from consolidator.model.offline.tasks import task_changes
from consolidator.model.offline.tables import split_table
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.offline.text import content_stems, normalise

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


class OfflineModel:
    """Deterministic rule-based Model (see the module docstring for what it does and misses)."""

    name = "offline"

    def __init__(self, settings: OfflineSettings = DEFAULTS) -> None:
        self.settings = settings  # the weights (tuning.py): tests build their own, never patch modules

    # --- summaries -----------------------------------------------------------------------

    def summarize(self, request: schemas.SummarizeRequest) -> schemas.SummaryReply:
        """Extractive: the inputs' most telling sentences within the budget (summarise.py)."""
        days = fallback_days([i.label for i in request.inputs], request.window_label)
        text = extractive_summary([i.text for i in request.inputs], request.budget_tokens, days, self.settings)
        return schemas.SummaryReply(text=text)

    # --- facts ---------------------------------------------------------------------------

    def extract_facts(self, request: schemas.FactExtractionRequest) -> schemas.FactExtractionReply:
        """Claims of the people's lines, merged, novel, decided and within their share (extraction.py)."""
        return schemas.FactExtractionReply(facts=extract_facts(request, self.settings))

    # --- offline pass ----------------------------------------------------------------------

    def judge_cluster(self, request: schemas.ClusterRequest) -> schemas.ClusterReply:
        facts = request.facts
        if len(facts) < 2:
            return schemas.ClusterReply(merge=False, reason="fewer than two facts")
        for i, a in enumerate(facts):
            for b in facts[i + 1:]:
                reason = conflict(a.text, b.text)
                if reason:
                    return schemas.ClusterReply(merge=False, reason=f"{a.id} vs {b.id}: {reason}")
        best = max(facts, key=lambda f: (len(content_stems(normalise(f.text))), len(f.text)))
        best_words = set(content_stems(normalise(best.text)))
        for f in facts:
            extra = [w for w in content_stems(normalise(f.text)) if w not in best_words]
            if extra:
                return schemas.ClusterReply(merge=False, reason=f"{f.id} says more than {best.id}: {', '.join(extra)}")
        return schemas.ClusterReply(merge=True, text=best.text, reason=f"all agree with {best.id}")

    def split_table(self, request: schemas.SplitTableRequest) -> schemas.SplitTableReply:
        """k-means over the shipped embeddings, each part named by its most distinctive words (tables.py)."""
        return split_table(request)

    def reflect(self, request: schemas.ReflectRequest) -> schemas.ReflectReply:
        """An extractive list of what one subject's related facts say (offline/reflect.py)."""
        return reflect(request)

    # --- contacts and tasks ------------------------------------------------------------------

    def update_contacts(self, request: schemas.ContactsRequest) -> schemas.ContactsReply:
        people = [line for line in request.messages if is_person_line(line)]
        known = [name for k in request.known for name in (k.name, *k.aliases)]
        claims = claims_of_lines(request.messages, request.timezone, known, request.context)
        return schemas.ContactsReply(contacts=contact_updates(people, claims, request.known))

    def update_tasks(self, request: schemas.TasksRequest) -> schemas.TasksReply:
        return schemas.TasksReply(changes=task_changes(request.messages, request.open_tasks, request.timezone, request.context))

    # --- one batch, all three --------------------------------------------------------------

    def consolidate_batch(self, request: schemas.BatchRequest) -> schemas.BatchReply:
        """Exactly the three operations' replies to the request's parts."""
        return schemas.BatchReply(
            facts=self.extract_facts(request.facts_request()).facts,
            contacts=self.update_contacts(request.contacts_request()).contacts,
            tasks=self.update_tasks(request.tasks_request()).changes,
            summaries=[schemas.WindowSummary(ref=r.ref, text=self.summarize(r).text) for r in request.summaries],
        )


def conflict(a: str, b: str) -> str:
    """Why two fact texts cannot be one fact ('' when nothing conflicts)."""
    na, nb = normalise(a), normalise(b)
    if sorted(_NUMBER.findall(na)) != sorted(_NUMBER.findall(nb)):
        return "different numbers"
    if negated(na) != negated(nb):
        return "one negates the other"
    for ca in parse_text(na):
        for cb in parse_text(nb):
            if (ca.attribute == cb.attribute and same_subject(ca.subject, cb.subject)
                    and spec_of(ca.attribute).single and not values_compatible(ca.key, cb.key)):
                return f"different {ca.attribute}: {ca.value} / {cb.value}"
    return ""
