"""Recall bench: how much of LoCoMo's answers survive into each memory the consolidator writes.

    python bench/recall.py [--path FILE] [--limit N] [--only conv-26] [--json] [--config FILE]
                           [--settle-days 8] [--keep DIR]
                           [--provider openai --base-url URL --model NAME [--context-tokens N]]

Each conversation of a LoCoMo-format file (default: the dev subset, shared/data/locomo-dev)
is imported with bench/locomo.py's loader into a fresh state dir and drained with the
configured provider through the normal settings and wiring: the offline model by default, the
Anthropic backend when ANTHROPIC_API_KEY is set (or as the config file says), so a user
measures the real model the same way (`--provider openai --base-url URL --model NAME`: a
local model on an OpenAI-compatible server, e.g. Ollama's http://127.0.0.1:11434/v1). The drain runs 8 days after the last message
(`--settle-days`), so the last day and week close. Then, for every question, per category:
the share whose answer's content words ALL appear in

  context   context.md;
  stores    the store snapshots (facts.json, contacts.json, tasks.json: their content
            strings, no ids/times/scores) and context.md together;
  day       the day summary (time ladder, rung "day") covering the evidence turn;
  count/1   the count/1 summary covering the evidence turn's interaction;
  week      the week summary covering it;
  transcript  the raw transcript (session dates + "HH:MM Speaker: text" lines): the ceiling.

A summary source is its label and text ("2023-05-08 (Mon)" + text: a reader knows which
day it reads). For a question with several evidence turns, the day/count/1/week source is the
union of the summaries covering any of them; an evidence id that names no logged message
(malformed ids are split on `[;\\s]+`) adds nothing. A turn is covered by a time summary
whose window holds its instant (windows are local days/weeks of the scope's time zone), by a
count summary whose interaction range holds its interaction.

Categories: 4 single-hop, 1 multi-hop, 2 temporal, 3 open-domain. Category 5 (adversarial:
the answer is that the conversation does not say) is skipped: content words cannot score it.

Matching rule (bench/recall_match.py, identical for every source, the ceiling included):
lower-case word tokens; possessive 's and apostrophes dropped; numbers by value ("08" = "8",
"7th" = "7", "two" = "2"); ISO dates also read as "8 may 2023"; month abbreviations
expanded; stop words (articles, prepositions, conjunctions, pronouns, auxiliaries; never
month names) removed from the answer; a light stemmer (plural -s/-es/-ies, -ed, -ing,
doubled consonant, final e, "ie" as "y") on both sides. "7 May 2023" needs 7, may and 2023.
An answer left with no content word is not scored (counted apart). An answer that counts from a
date ("The Friday before 15 July 2023", "The week before 9 June 2023") is also covered by a
source holding the day it names ("14 July 2023", "week of 29 May 2023"; bench/recall_dates.py):
a memory that resolved "last Friday" keeps the answer without its words. Caveat: a date-only answer
("8 May 2023") is covered by any source that carries that date - a day summary's label always
does, contacts' dated running summaries often do - so the temporal row says whether the date
is there, not whether it is tied to the event asked about.

Also printed: compression per rung (characters its summaries READ - raw lines for the base
rungs, the summaries below for the others - against characters they WROTE, non-empty windows),
of the stores and of context.md against the transcript's raw lines; junk rates (facts whose
subject is no person or named thing, contacts that are no person, tasks without an action,
summaries above the day rung of which half or more are greetings or bare reactions:
heuristics in bench/recall_junk.py); peak RSS and wall time per conversation and in total.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import resource
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_PATH, Conversation, load_locomo, said  # noqa: E402
from bench.recall_junk import CaseStats, contact_is_junk, fact_is_junk, summary_is_junk, task_is_junk  # noqa: E402
from bench.recall_dates import resolved_answers  # noqa: E402
from bench.recall_match import content_words, covers, vocabulary  # noqa: E402
from bench.recall_state import (  # noqa: E402
    ScopeState, Settings, bench_settings, drain_conversation, provider_of, raw_line, read_state,
)
from bench.recall_report import combine, conversation_json, render  # noqa: E402
from bench import recall_budget, recall_tables  # noqa: E402
from consolidator.model.base import Model  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402

CATEGORIES = {4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain"}
ADVERSARIAL = 5
SOURCES = ("context", "stores", "day", "count/1", "week", "transcript")
RUNG_OF = {"day": ("time", "day"), "count/1": ("count", "1"), "week": ("time", "week")}
BASE_RUNGS = frozenset({"day", "1"})  # the rungs that read raw lines; summary junk is judged above them
_EVIDENCE = re.compile(r"^D(\d+):(\d+)$")


@dataclass(frozen=True)
class Question:
    category: int
    question: str
    answer: str
    evidence: tuple[str, ...]  # dia ids, e.g. "D8:6"


def split_evidence(items: list[str]) -> tuple[str, ...]:
    """LoCoMo evidence ids, malformed lists ("D8:6; D9:17", "D9:1 D4:4") split on `[;\\s]+`."""
    out = []
    for item in items:
        for part in re.split(r"[;\s]+", str(item)):
            match = _EVIDENCE.match(part)
            if match:
                out.append(f"D{int(match.group(1))}:{int(match.group(2))}")
    return tuple(out)


def load_questions(path: Path) -> dict[str, list[Question]]:
    """Scored questions per sample_id (category 5 left out)."""
    out: dict[str, list[Question]] = {}
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        out[sample["sample_id"]] = [
            Question(int(q["category"]), q["question"], str(q.get("answer", "")), split_evidence(q.get("evidence", [])))
            for q in sample.get("qa", []) if int(q["category"]) != ADVERSARIAL
        ]
    return out


def adversarial_count(path: Path) -> dict[str, int]:
    return {s["sample_id"]: sum(int(q["category"]) == ADVERSARIAL for q in s.get("qa", []))
            for s in json.loads(Path(path).read_text(encoding="utf-8"))}


def transcript_text(conv: Conversation) -> str:
    """The ceiling: each session's date, then its raw lines."""
    parts = []
    for session in conv.sessions:
        parts.append(f"{session.name}: {session.at:%H:%M on %d %B %Y}")
        parts += [raw_line(m.at, m.speaker or m.role, said(m), session.at.tzinfo) for m in session.messages]
    return "\n".join(parts)


@dataclass
class Tally:
    """Questions and hits per category and source."""

    n: Counter = field(default_factory=Counter)
    hits: dict[int, Counter] = field(default_factory=dict)
    no_content_words: int = 0
    evidence_unresolved: int = 0  # questions none of whose evidence ids names a logged message

    def add(self, other: "Tally") -> None:
        self.n.update(other.n)
        for cat, counter in other.hits.items():
            self.hits.setdefault(cat, Counter()).update(counter)
        self.no_content_words += other.no_content_words
        self.evidence_unresolved += other.evidence_unresolved

    def share(self, cat: int | None, source: str) -> float:
        n = sum(self.n.values()) if cat is None else self.n[cat]
        hits = sum(c[source] for c in self.hits.values()) if cat is None else self.hits.get(cat, Counter())[source]
        return hits / n if n else 0.0

    def as_dict(self) -> dict[str, Any]:
        rows = {}
        for cat in [*CATEGORIES, None]:
            n = sum(self.n.values()) if cat is None else self.n[cat]
            hits = {s: (sum(c[s] for c in self.hits.values()) if cat is None else self.hits.get(cat, Counter())[s])
                    for s in SOURCES}
            rows["all" if cat is None else CATEGORIES[cat]] = {
                "category": cat, "n": n, "hits": hits, "share": {s: (hits[s] / n if n else 0.0) for s in SOURCES}}
        return {"categories": rows, "no_content_words": self.no_content_words,
                "evidence_unresolved": self.evidence_unresolved}


def answer_forms(answer: object) -> list[list[str]]:
    """The content words of the answer as said, then of each day it names by counting from a date
    ("The Friday before 15 July 2023" is also "14 July 2023"): a source holding any one covers it."""
    return [content_words(answer), *(content_words(a) for a in resolved_answers(str(answer)))]


def score(questions: list[Question], scope: str, state: ScopeState, transcript: str) -> Tally:
    """Which sources hold every content word of each question's answer."""
    tally = Tally()
    fixed = {"context": vocabulary(state.context), "stores": vocabulary(state.stores_text + "\n" + state.context),
             "transcript": vocabulary(transcript)}
    cache: dict[str, frozenset[str]] = {}
    for q in questions:
        forms = answer_forms(q.answer)
        words = forms[0]
        if not words:
            tally.no_content_words += 1
            continue
        turns = [state.messages[key] for d in q.evidence if (key := f"{scope}:{d}") in state.messages]
        if not turns:
            tally.evidence_unresolved += 1
        tally.n[q.category] += 1
        hits = tally.hits.setdefault(q.category, Counter())
        for source in SOURCES:
            if source in fixed:
                vocab = fixed[source]
            else:
                views = {v.id: v for v in state.summaries.get(RUNG_OF[source], []) for t in turns if v.covers(t)}
                for i, v in views.items():
                    if i not in cache:
                        cache[i] = vocabulary(f"{v.label}\n{v.text}")
                vocab = frozenset().union(*(cache[i] for i in views))
            hits[source] += any(covers(f, vocab) for f in forms)
    return tally


def compression(state: ScopeState) -> dict[str, dict[str, Any]]:
    """Characters read and written per rung (and the least compressed window's ratio), and by the
    stores and context.md against the raw lines."""
    out: dict[str, dict[str, Any]] = {}
    for (ladder, rung), views in state.summaries.items():
        read, least = 0, None  # least: the smallest single window's read/wrote (the target is per summary)
        for view in views:
            window = 0
            for source in view.sources:
                logged = state.messages.get(source)
                window += len(logged.line) if logged else len(state.summary_texts.get(source, ""))
            read += window
            if view.text:
                least = min(math.inf if least is None else least, window / len(view.text))
        out[f"{ladder}/{rung}"] = {"windows": len(views), "read": read, "wrote": sum(len(v.text) for v in views),
                                   "min_ratio": least}
    raw = sum(len(m.line) for m in state.log)
    out["stores"] = {"windows": 0, "read": raw, "wrote": len(state.stores_text)}
    out["context.md"] = {"windows": 0, "read": raw, "wrote": len(state.context)}
    return out


def junk(state: ScopeState, conv: Conversation) -> dict[str, dict[str, Any]]:
    """Junk counts (and a few examples) for facts, contacts, tasks and the summaries above the
    base rungs (day, count/1)."""
    stats = CaseStats(said(m) for m in conv.messages)
    speakers = {s.lower() for s in conv.speakers}
    contacts = state.items("contacts")
    bad_contacts = [c["name"] for c in contacts if contact_is_junk(c["name"], stats, speakers)]
    people = set(speakers)
    for c in contacts:
        if c["name"] not in bad_contacts:
            people |= {n.lower() for n in [c["name"], *c.get("aliases", [])]}
    facts = [f["text"] for f in state.items("facts")]
    tasks = [t["title"] for t in state.items("tasks")]
    above = [v.text for (ladder, rung), views in state.summaries.items() if rung not in BASE_RUNGS
             for v in views if v.text]
    names = {p for s in conv.speakers for p in s.lower().split()} | people
    groups = {"facts": (facts, [f for f in facts if fact_is_junk(f, stats, people)]),
              "contacts": ([c["name"] for c in contacts], bad_contacts),
              "tasks": (tasks, [t for t in tasks if task_is_junk(t, stats, people)]),
              "summaries": (above, [t for t in above if summary_is_junk(t, names)])}
    return {name: {"total": len(items), "junk": len(bad), "examples": bad[:5]} for name, (items, bad) in groups.items()}


def peak_rss_mb(reset: bool = False) -> float:
    """Peak RSS in MB: the process high-water mark (VmHWM, resettable on Linux), else getrusage's."""
    status = Path("/proc/self/status")
    if status.is_file():
        if reset:
            try:
                Path("/proc/self/clear_refs").write_text("5")
            except OSError:
                pass
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_conversation(conv: Conversation, questions: list[Question], settings: Settings, model: Model | None = None,
                     settle: timedelta = timedelta(days=8)) -> dict[str, Any]:
    """Drain one conversation into settings.state_dir and measure it."""
    started = time.perf_counter()
    peak_rss_mb(reset=True)
    drained = drain_conversation(conv, settings, model=model, settle=settle)
    t_read = time.perf_counter()
    state = read_state(settings, conv.scope)
    t_eval = time.perf_counter()
    tally = score(questions, conv.scope, state, transcript_text(conv))
    turns = [f"{m.at.astimezone(s.at.tzinfo):%Y-%m-%d %H:%M} {m.speaker or m.role}: {said(m)}"
             for s in conv.sessions for m in s.messages]
    budget = recall_budget.measure(conv.scope, questions, answer_forms, turns, state.context, transcript_text(conv),
                                   settings.state_dir, settings, drained.settled_at)
    result = {
        "scope": conv.scope, "messages": len(conv.messages), "sessions": len(conv.sessions),
        "tally": tally, "budget": budget, "compression": compression(state), "junk": junk(state, conv),
        "recall_index": {"updates": drained.index_updates, "update_s": drained.index_update_s},
        "tables": recall_tables.measure(state, settings.snapshot_dir / conv.scope,
                                        lambda st: score(questions, conv.scope, st, transcript_text(conv))),
        "model": {"calls": drained.model.calls, "errors": drained.model.errors, "cost_usd": drained.model.cost_usd,
                  "failed_steps_retried": drained.ticks_failed_steps},
    }
    done = time.perf_counter()
    result["timing"] = {"import_s": drained.import_s, "drain_s": drained.drain_s, "read_s": t_eval - t_read,
                        "eval_s": done - t_eval, "total_s": done - started}
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def find_data(path: Path | None) -> Path:
    """The given file, else the dev subset: where bench/locomo.py looks, else in a `shared/` above the repo."""
    if path is not None:
        return path
    if DEFAULT_PATH.is_file():
        return DEFAULT_PATH
    relative = Path("shared") / "data" / "locomo-dev" / "locomo-dev.json"
    for folder in Path(__file__).resolve().parents:
        if (folder / relative).is_file():
            return folder / relative
    return DEFAULT_PATH


def with_model(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """The settings with `[model]` keys replaced (validated as config.toml's would be)."""
    if not overrides:
        return settings
    model = type(settings.model).model_validate({**settings.model.model_dump(exclude_unset=True), **overrides})
    return settings.model_copy(update={"model": model})


def run(path: Path, limit: int | None = None, only: list[str] | None = None, config: Path | None = None,
        settle_days: float = 8.0, keep: Path | None = None, progress=None,
        model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole bench: every selected conversation drained in its own state dir, then the totals."""
    started = time.perf_counter()
    conversations = load_locomo(path)
    if only:
        conversations = [c for c in conversations if c.scope in only]
    conversations = conversations[:limit] if limit is not None else conversations
    questions = load_questions(path)
    skipped = adversarial_count(path)
    results, provider = [], None
    budgets = recall_budget.BudgetTally()
    for conv in conversations:
        with tempfile.TemporaryDirectory(prefix=f"recall-{conv.scope}-") as tmp:
            state_dir = keep / conv.scope if keep else Path(tmp)
            settings = with_model(bench_settings(state_dir, config), model or {})
            provider = provider_of(settings)
            r = run_conversation(conv, questions.get(conv.scope, []), settings, settle=timedelta(days=settle_days))
        results.append(r)
        budgets.add(r["budget"])
        if progress:
            t = r["timing"]
            progress(f"{conv.scope}: {r['messages']} messages, {sum(r['tally'].n.values())} questions; import "
                     f"{t['import_s']:.1f} s, drain {t['drain_s']:.1f} s, read {t['read_s']:.1f} s, "
                     f"eval {t['eval_s']:.1f} s; "
                     f"peak RSS {r['peak_rss_mb']:.0f} MB")
    return {
        "path": str(path), "provider": provider or "n/a", "settle_days": settle_days,
        "adversarial_skipped": sum(skipped.get(c.scope, 0) for c in conversations),
        "conversations": [conversation_json(r) for r in results],
        "tables": {"conversations": [r["tables"] for r in results],
                   "questions": dict(sum((r["tally"].n for r in results), Counter()))},
        "total": combine(results, Tally),
        "budget": budgets.as_dict(CATEGORIES),
        "recall_index": {"updates": sum(r["recall_index"]["updates"] for r in results),
                         "update_s": sum(r["recall_index"]["update_s"] for r in results)},
        "wall_s": time.perf_counter() - started,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--path", type=Path, default=None, help="LoCoMo-format JSON (default: the dev subset)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--only", action="append", default=None, help="only this sample_id (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--config", type=Path, default=None, help="config file (default: the usual lookup)")
    parser.add_argument("--settle-days", type=float, default=8.0, help="drain this long after the last message")
    parser.add_argument("--keep", type=Path, default=None, help="keep each state dir under KEEP/<sample_id>")
    parser.add_argument("--provider", choices=["offline", "anthropic", "openai"], default=None,
                        help="the backend (default: as the config says)")
    parser.add_argument("--base-url", default=None, help="the server's URL (openai: e.g. http://127.0.0.1:11434/v1)")
    parser.add_argument("--model", default=None, help="the model name (default_model)")
    parser.add_argument("--context-tokens", type=int, default=None, help="openai: the server's context window")
    args = parser.parse_args(argv)
    logsetup.configure("error")
    model = {key: value for key, value in (("provider", args.provider), ("base_url", args.base_url),
                                           ("default_model", args.model), ("context_tokens", args.context_tokens))
             if value is not None}
    path = find_data(args.path)
    if not path.is_file():
        parser.error(f"no such file: {path}")
    only = [s for item in args.only for s in item.split(",")] if args.only else None
    report = run(path, args.limit, only, args.config, args.settle_days, args.keep,
                 progress=lambda line: print(line, file=sys.stderr, flush=True), model=model)
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        idx = report["recall_index"]
        print(render(report))
        print("\n".join(recall_budget.render(report["budget"], CATEGORIES)))
        print("\n".join(recall_tables.render(report["tables"], CATEGORIES)))
        print(f"recall index updates: {idx['updates']} ticks, {idx['update_s']:.2f} s in all, "
              f"{1000 * idx['update_s'] / max(1, idx['updates']):.1f} ms a tick")


if __name__ == "__main__":
    main()
