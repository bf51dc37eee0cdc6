"""Cost benchmark: model calls and tokens of a LoCoMo drain through the real SDK, beside Mem0's design.

    python bench/cost.py [--mode live|bulk|both] [--per-step] [--batch-api] [--path ../shared/data/locomo-dev/locomo-dev.json]
    python bench/cost.py --provider openai [--base-url URL --model NAME] [--context-tokens N] [--quirks]

The three LoCoMo development conversations (bench/locomo.py: one scope per conversation, one
interaction per session) go through the real `AnthropicModel` (anthropic SDK) against
FakeAnthropic, a local HTTP server answering every tool as OfflineModel would
(tests/support/model_responder.py), with the default config: both ladders, facts, contacts, tasks and
the offline pass. Token counts are the fake's estimates (request bytes / 4; the stable
system+tool prefix is reported as a prompt-cache read after its first use).

Modes: "live" logs each session as it happens and ticks the daemon 31 minutes and 3 hours after
it ends (the batch flushes on idle, the interaction completes, the offline pass finds the scope
idle), as a running daemon would; "bulk" imports everything and drains once (batches of 50 then
span sessions). Both end with a drain 30 days after the last session, so weeks and 4-week
windows close.

Printed: calls and tokens per 1,000 messages and per interaction, by store (facts, contacts,
tasks, sleep; "batch: facts+contacts+tasks" is the one call per batch that the three steps
share when model.combine_batch_steps is on, the default; --per-step turns it off) and by
ladder rung, the largest input of any call, and the ledger checked against the server's own
counters. Beside it, the Mem0-style write path of seed 001: one extraction call
per session plus one decision call per candidate fact (candidates counted by OfflineModel's
extraction of each session alone), sized as the seed sizes them (extraction 1,500 tokens in /
150 out, decision 550 in / 40 out) and priced with the same prices; and the ratio.
Target: at most 3 calls per interaction with both ladders and all three stores.

--batch-api (model.batch_api): every call goes through the fake's Message Batches endpoints and
is billed at the batch price (half); at each drain time the daemon keeps ticking, every
2 minutes (`batch_poll` is 1), until a tick finds nothing to do and no batch or queued request
is left, as a running daemon would. The ledger is checked against the fake's counters as in direct mode.

--provider openai: the OpenAI-compatible backend (openai SDK). Without --base-url it talks to
FakeOpenAI (tests/support/fake_openai.py) answering as OfflineModel would, with a window of
--context-tokens (default 8,192) that refuses longer requests as vLLM does; --quirks turns on
every quirk of a local server (response_format ignored, fenced JSON after a sentence, tools
refused, 5% of replies cut at max_tokens, 5% 429 and 5% 500), and the fake's counters are
printed (over-window requests must be 0). With --base-url URL --model NAME it measures a real
server (a local model: Ollama's http://127.0.0.1:11434/v1), the same tables, no counters.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

import structlog
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_PATH, Conversation, load_locomo  # noqa: E402
from consolidator.model.attachments import decode  # noqa: E402
from consolidator.core.app import open_app  # noqa: E402
from consolidator.core.config import Settings  # noqa: E402
from consolidator.model.offline.model import OfflineModel  # noqa: E402
from consolidator.model.schemas import FactExtractionRequest, Line  # noqa: E402
from consolidator.model.settings import DEFAULT_MODEL, DEFAULT_PRICES  # noqa: E402
from consolidator.runtime.wiring import build_consolidator  # noqa: E402
from stores.engine import reading  # noqa: E402
from stores.messages import append_messages  # noqa: E402
from stores.schema.model import ModelCall  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.support.model_responder import OfflineResponder  # noqa: E402

KEY = "sk-ant-bench-local-only"
STORE_OF = {
    "extract_facts": "store facts", "update_contacts": "store contacts", "update_tasks": "store tasks",
    "consolidate_batch": "batch: facts+contacts+tasks", "judge_cluster": "store sleep",
    "split_table": "store sleep",
    "reflect": "store sleep: reflect",
}
FACT_GROUPS = ("store facts", "batch: facts+contacts+tasks")  # calls that extract facts
# Seed 001's sizing of the Mem0-style write path (tokens per call).
MEM0_EXTRACTION = (1500, 150)
MEM0_DECISION = (550, 40)


def drain_locomo(conversations: list[Conversation], mode: str, state_dir: Path, url: str,
                 combine: bool = True, batch_api: bool = False, model: dict | None = None,
                 inspect=None) -> list[ModelCall]:
    model = model or {"provider": "anthropic", "batch_api": batch_api, "batch_poll": "1m"}
    settings = Settings(state_dir=state_dir, model={**model, "base_url": url, "combine_batch_steps": combine})
    app = open_app(settings)
    built = build_consolidator(app)

    class Ticking:
        """With batches, a drain time is followed by ticks every 2 minutes until a tick finds nothing
        to do and no batch or request is open (work deferred for its batch is then applied)."""

        def drain(self, now):
            busy = built.drain(now).busy
            for k in range(1, 2000 if batch_api else 0):
                if not busy and not _open_batch_work(app):
                    break
                busy = built.drain(now + timedelta(minutes=2 * k)).busy

    consolidator = Ticking()
    sessions = sorted((s for c in conversations for s in c.sessions), key=lambda s: s.at)
    last = max(s.messages[-1].at for s in sessions)
    if mode == "live":
        for session in sessions:
            end = session.messages[-1].at
            append_messages(app.engine, list(session.messages), end)
            consolidator.drain(end + timedelta(minutes=31))
            consolidator.drain(end + timedelta(hours=3))
    else:
        append_messages(app.engine, [m for s in sessions for m in s.messages], last)
    consolidator.drain(last + timedelta(days=30))
    built.steps[0].model.close()
    with reading(app.engine) as session:
        calls = list(session.execute(select(ModelCall)).scalars())
    if inspect is not None:
        inspect(app)
    app.close()
    return calls


def _open_batch_work(app) -> bool:
    from stores.batch_requests import pending

    batches, queued = pending(app.engine)
    return bool(batches or queued)


def mem0_baseline(conversations: list[Conversation]) -> tuple[int, int]:
    """(extraction calls, candidate facts): one extraction per session, candidates from OfflineModel."""
    model = OfflineModel()
    sessions = candidates = 0
    for conv in conversations:
        for s in conv.sessions:
            lines = [Line(id=m.id, at=m.at, role=m.role, speaker=m.speaker, text=m.text, attachments=decode(m.attachments))
                     for m in s.messages]
            reply = model.extract_facts(FactExtractionRequest(scope=conv.scope, messages=lines, neighbours=[]))
            sessions += 1
            candidates += len(reply.facts)
    return sessions, candidates


def _in(c: ModelCall) -> int:
    return c.input_tokens + c.cache_read_tokens + c.cache_write_tokens


def report(mode: str, calls: list[ModelCall], messages: int, interactions: int, fake: FakeAnthropic | None,
           wall_s: float) -> dict[str, float]:
    answered = [c for c in calls if c.outcome != "error"]
    groups: dict[str, list[ModelCall]] = defaultdict(list)
    for c in answered:
        if c.operation == "summarize":
            ladder, rung = c.ref.split("/")[:2]
            groups[f"ladder {ladder}/{rung}"].append(c)
        else:
            groups[STORE_OF[c.operation]].append(c)
    per_k = 1000 / messages
    print(f"\n== {mode}: {messages} messages, {interactions} interactions, {len(answered)} model calls "
          f"({wall_s:.1f} s) ==")
    print(f"{'':<30}{'calls':>7}{'/1k msg':>9}{'/inter.':>9}{'in tok/inter.':>15}{'cached/inter.':>15}"
          f"{'out tok/inter.':>16}")
    for name in sorted(groups, key=lambda g: (g.startswith("ladder"), g)):
        rows = groups[name]
        print(f"{name:<30}{len(rows):>7}{len(rows) * per_k:>9.1f}{len(rows) / interactions:>9.2f}"
              f"{sum(c.input_tokens + c.cache_write_tokens for c in rows) / interactions:>15.0f}"
              f"{sum(c.cache_read_tokens for c in rows) / interactions:>15.0f}"
              f"{sum(c.output_tokens for c in rows) / interactions:>16.0f}")
    total_in = sum(c.input_tokens + c.cache_write_tokens for c in answered)
    total_cached = sum(c.cache_read_tokens for c in answered)
    total_out = sum(c.output_tokens for c in answered)
    cost = sum(c.cost_usd for c in answered)
    print(f"{'total':<30}{len(answered):>7}{len(answered) * per_k:>9.1f}{len(answered) / interactions:>9.2f}"
          f"{total_in / interactions:>15.0f}{total_cached / interactions:>15.0f}{total_out / interactions:>16.0f}")
    print(f"per 1,000 messages: {len(answered) * per_k:.1f} calls, {total_in * per_k:.0f} input "
          f"+ {total_cached * per_k:.0f} cached input, {total_out * per_k:.0f} output tokens, ${cost * per_k:.4f}")
    biggest = max(answered, key=_in)
    print(f"largest input of any call: {_in(biggest)} tokens ({biggest.operation} {biggest.ref})")
    if fake is not None:
        c = fake.counters
        same = (len(answered), sum(x.input_tokens for x in answered), total_out) == (c.answered, c.input_tokens,
                                                                                   c.output_tokens)
        print(f"ledger vs server: {len(answered)} / {c.answered} answered calls; tokens equal: {same}")
        if hasattr(c, "as_dict"):
            print("fake server: " + ", ".join(f"{k} {v}" for k, v in c.as_dict().items()
                                              if k not in ("input_tokens", "output_tokens")))
    invalid, errors = sum(x.outcome == "invalid" for x in calls), sum(x.outcome == "error" for x in calls)
    print(f"repairs (invalid replies asked again): {invalid}; requests without an answer: {errors}")
    return {"calls": len(answered) / interactions, "cost": cost / interactions,
            "facts_calls": sum(len(groups[g]) for g in FACT_GROUPS) / interactions}


def print_mem0(conversations: list[Conversation], interactions: int, ours: dict[str, float]) -> None:
    sessions, candidates = mem0_baseline(conversations)
    price = DEFAULT_PRICES[DEFAULT_MODEL]
    calls = sessions + candidates
    tokens_in = sessions * MEM0_EXTRACTION[0] + candidates * MEM0_DECISION[0]
    tokens_out = sessions * MEM0_EXTRACTION[1] + candidates * MEM0_DECISION[1]
    cost = (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6
    print("\n== Mem0-style baseline (seed 001), facts only, no ladder ==")
    print(f"{sessions} extraction calls + {candidates} decision calls (OfflineModel candidates) = {calls} calls: "
          f"{calls / interactions:.2f} per interaction, {tokens_in / interactions:.0f} in / "
          f"{tokens_out / interactions:.0f} out tokens per interaction, ${cost / interactions:.5f} per interaction")
    print(f"(seed 001 counts about 3 candidates per session, 4 calls per session: the rule-based OfflineModel "
          f"finds {candidates / sessions:.2f} in LoCoMo's chat, so this baseline is a lower bound)")
    print(f"ratio ours/Mem0: calls {ours['calls'] / (calls / interactions):.2f} (facts calls alone, a shared "
          f"batch call counted whole: "
          f"{ours['facts_calls'] / (calls / interactions):.2f}), cost {ours['cost'] / (cost / interactions):.2f}")
    verdict = "met" if ours["calls"] <= 3 else "NOT met"
    print(f"target <= 3 calls per interaction (both ladders, three stores, sleep): {ours['calls']:.2f} -> {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["live", "bulk", "both"], default="both")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--batch-api", action="store_true", help="send every call as Message Batches (half price)")
    parser.add_argument("--per-step", action="store_true",
                        help="one model call per batch step (model.combine_batch_steps = false), for comparison")
    parser.add_argument("--provider", choices=["anthropic", "openai"], default="anthropic")
    parser.add_argument("--base-url", default=None, help="openai: a real server (default: the local fake)")
    parser.add_argument("--model", default=None, help="openai: the model name the server serves")
    parser.add_argument("--context-tokens", type=int, default=None, help="openai: the server's window (8192)")
    parser.add_argument("--quirks", action="store_true", help="openai fake: every quirk of a local server on")
    args = parser.parse_args()
    if args.provider == "openai":
        return main_openai(args)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # one INFO line per HTTP request otherwise
    logging.getLogger("openai").setLevel(logging.WARNING)  # and one per SDK retry
    os.environ["ANTHROPIC_API_KEY"] = KEY  # the local fake's key; no request leaves 127.0.0.1
    conversations = load_locomo(args.path)
    messages = sum(len(c.messages) for c in conversations)
    interactions = sum(len(c.sessions) for c in conversations)
    last: dict[str, float] = {}
    live: dict[str, float] = {}
    for mode in (["live", "bulk"] if args.mode == "both" else [args.mode]):
        with tempfile.TemporaryDirectory() as tmp, FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
            started = time.perf_counter()
            calls = drain_locomo(conversations, mode, Path(tmp), fake.url, combine=not args.per_step,
                                 batch_api=args.batch_api)
            last = report(mode, calls, messages, interactions, fake, time.perf_counter() - started)
            if mode == "live":
                live = last
    print_mem0(conversations, interactions, live if args.mode != "bulk" else last)


def stored_outcome(app) -> None:
    """What the drain stored: batch steps done once each, held windows with a reason, and rows
    holding text from outside a reply's JSON (a fence, the fake's prose sentence, a raw object)."""
    from sqlalchemy import func

    from stores.schema.ladders import LadderHold, Summary
    from stores.schema.ledger import Batch, StepRun
    from stores.schema.memory import Contact, Fact, Task
    from tests.support.fake_openai import PROSE

    with reading(app.engine) as s:
        runs = list(s.execute(select(StepRun.batch_id, StepRun.step, StepRun.status)))
        batches = s.execute(select(func.count()).select_from(Batch)).scalar_one()
        holds = [r for (r,) in s.execute(select(LadderHold.reason))]
        texts = ([t for (t,) in s.execute(select(Summary.text))] + [t for (t,) in s.execute(select(Fact.text))]
                 + [c.name + c.biography + c.summary for c in s.execute(select(Contact)).scalars()]
                 + [t for (t,) in s.execute(select(Task.title))])
    done = sum(status == "done" for _, _, status in runs)
    once = len({(b, step) for b, step, _ in runs}) == len(runs)
    leaked = sum("```" in t or PROSE in t or t.lstrip().startswith("{") for t in texts)
    print(f"stored: {batches} batches, {done}/{len(runs)} batch steps done, each once: {once}; "
          f"{len(holds)} windows held ({sum(not r for r in holds)} without a reason); "
          f"{leaked} of {len(texts)} rows with text from outside the JSON")


def main_openai(args: argparse.Namespace) -> None:
    """The same drains through the OpenAI-compatible backend: the fake (with its quirks) or a real server."""
    from contextlib import nullcontext

    from tests.support.fake_openai import FakeOpenAI, Quirks

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    window = args.context_tokens or 8192
    if args.base_url and not args.model:
        raise SystemExit("--base-url needs --model (the name the server serves)")
    quirks = Quirks.every(window=window) if args.quirks else Quirks(window=window)
    model = {"provider": "openai", "default_model": args.model or "local-model", "context_tokens": window}
    conversations = load_locomo(args.path)
    messages = sum(len(c.messages) for c in conversations)
    interactions = sum(len(c.sessions) for c in conversations)
    print(f"provider openai at {args.base_url or 'the local fake'}; context_tokens {window}; "
          f"quirks {'all on' if args.quirks and not args.base_url else 'off'}")
    for mode in (["live", "bulk"] if args.mode == "both" else [args.mode]):
        fake_server = nullcontext() if args.base_url else FakeOpenAI(responder=OfflineResponder(), quirks=quirks)
        with tempfile.TemporaryDirectory() as tmp, fake_server as fake:
            started = time.perf_counter()
            calls = drain_locomo(conversations, mode, Path(tmp), args.base_url or fake.url,
                                 combine=not args.per_step, model=model, inspect=stored_outcome)
            report(mode, calls, messages, interactions, fake, time.perf_counter() - started)


if __name__ == "__main__":
    main()
