"""The MCP server measured with the SDK's own client: latency per tool call over stdio, and many
clients logging at once.

    python bench/mcp_server.py [--calls 300] [--clients 4] [--messages 1000]

1. Latency: `consolidator mcp --scope bench` on stdio (a subprocess, as a desktop agent runs it);
   `--calls` log_message calls one after another (a sample conversation's lines), the log
   drained by the daemon (offline model), then `--calls` recall calls over varied queries. p50
   and p99 of the round trip per call, as the client sees it.
2. Concurrency: `--messages` log_message calls from `--clients` clients at once, every call sent
   twice (a retry with the same id), first over stdio (one server process per client, all on one
   SQLite file), then over streamable HTTP (one server, a client per task). The log must then
   hold each message exactly once: lost and doubled are counted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select  # noqa: E402

from consolidator.core.app import open_app  # noqa: E402
from consolidator.core.config import Settings  # noqa: E402
from consolidator.messages.sample import generate  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402
from consolidator.runtime.wiring import build_consolidator  # noqa: E402
from stores.engine import reading  # noqa: E402
from stores.schema.log import Message  # noqa: E402
from tests.support.mcp_kit import http_client, http_serving, stdio_client  # noqa: E402

QUERIES = ["Where does my sister live?", "what did we say about the trip", "When is the dentist appointment?",
           "who is Ana", "pottery", "what are my plans for the weekend", "my job", "birthday present ideas"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def show(name: str, seconds: list[float]) -> None:
    ms = [s * 1000 for s in seconds]
    print(f"{name:12s} n={len(ms):4d}  p50 {percentile(ms, 0.5):7.2f} ms  p99 {percentile(ms, 0.99):7.2f} ms  "
          f"mean {statistics.fmean(ms):7.2f} ms")


def latency(state: Path, calls: int) -> None:
    records = [r for r in generate(scope="bench", start=datetime(2025, 1, 6, tzinfo=timezone.utc), days=60, seed=1)][:calls]

    async def log() -> list[float]:
        times = []
        async with stdio_client(state, "--scope", "bench") as client:
            for r in records:
                args = {k: r[k] for k in ("role", "text", "at", "speaker", "session") if r.get(k) is not None}
                start = time.perf_counter()
                result = await client.call_tool("log_message", args)
                times.append(time.perf_counter() - start)
                assert not result.is_error, result.content
        return times

    show("log_message", anyio.run(log))
    app = open_app(Settings(state_dir=state))
    try:
        newest = max(datetime.fromisoformat(r["at"]) for r in records)
        build_consolidator(app).drain(newest + timedelta(days=1))
    finally:
        app.close()

    async def recall() -> list[float]:
        times = []
        async with stdio_client(state, "--scope", "bench") as client:
            for i in range(calls):
                start = time.perf_counter()
                result = await client.call_tool("recall", {"query": QUERIES[i % len(QUERIES)]})
                times.append(time.perf_counter() - start)
                assert not result.is_error, result.content
        return times

    show("recall", anyio.run(recall))


async def _log_all(client_of, clients: int, messages: int) -> None:
    per = messages // clients

    async def one(n: int) -> None:
        async with client_of() as client:
            for i in range(per):
                args = {"role": "user", "text": f"client {n} says message {i}", "id": f"c{n}-m{i}"}
                for _ in range(2):  # the retry must add nothing
                    result = await client.call_tool("log_message", args)
                    assert not result.is_error, result.content

    async with anyio.create_task_group() as group:
        for n in range(clients):
            group.start_soon(one, n)


def tally(state: Path, scope: str, expected: int) -> str:
    app = open_app(Settings(state_dir=state))
    try:
        with reading(app.engine) as session:
            texts = list(session.execute(select(Message.text).where(Message.scope == scope)).scalars())
    finally:
        app.close()
    lost, doubled = expected - len(set(texts)), len(texts) - len(set(texts))
    return f"{len(texts)} rows, {len(set(texts))} distinct of {expected}: lost {lost}, doubled {doubled}"


def concurrency(state: Path, clients: int, messages: int) -> None:
    start = time.perf_counter()
    anyio.run(_log_all, lambda: stdio_client(state, "--scope", "stdio"), clients, messages)
    print(f"stdio, {clients} server processes: {2 * messages} calls in {time.perf_counter() - start:.1f} s; "
          f"{tally(state, 'stdio', messages)}")
    app = open_app(Settings(state_dir=state))
    try:
        with http_serving(app, ("http",)) as url:
            start = time.perf_counter()
            anyio.run(_log_all, lambda: http_client(url), clients, messages)
            print(f"http, one server: {2 * messages} calls in {time.perf_counter() - start:.1f} s; "
                  f"{tally(state, 'http', messages)}")
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--messages", type=int, default=1000)
    args = parser.parse_args()
    logsetup.configure("warning")
    with tempfile.TemporaryDirectory() as tmp:
        latency(Path(tmp) / "latency", args.calls)
        concurrency(Path(tmp) / "concurrency", args.clients, args.messages)


if __name__ == "__main__":
    main()
