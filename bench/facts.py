"""Facts benchmark: the offline pass beside a bare numpy Gram pass, the write path, facts.json reads.

    python bench/facts.py [--facts 10000] [--dim 384] [--clusters 500] [--messages 3000]

1. Offline pass on N synthetic facts of d dimensions (random unit vectors, plus planted
   clusters of 2-4 near duplicates, cosine >= 0.95 to their centre, whose texts differ only in
   case and punctuation so the offline model agrees to merge them):
   - bare numpy: normalised matrix @ matrix.T, threshold, upper-triangle pairs (one Gram);
   - our clustering alone (`centroid_clusters`: blocked Gram + centroid check);
   - the whole pass (`SleepStage.run_scope`) on SQLite: load, cluster, model-judge, merge,
     decay, cap (keep_top), commit - with the default settings.
2. Write path: generated conversations (people's statements about homes, jobs, diets, pets,
   likes, with changes) through `FactsStep` and the runner with `OfflineModel`, batches of 50;
   facts written per second and messages per second.
3. Reading facts.json: raw bytes read vs read + json.loads, p50 over repeated reads.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
from sqlalchemy import func, select

from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator import read_context
from consolidator.snapshots.context import publish_context
from consolidator.facts.publish import publish_facts
from consolidator.facts.step import FactsStep
from consolidator.model.offline import OfflineModel
from consolidator.facts.sleep import SleepStage, centroid_clusters
from consolidator.runtime.tick import Consolidator
from stores.engine import reading, transaction
from stores.schema.memory import Fact
from stores.facts import count_current, new_fact_id, norm_hash, touch
from stores.messages import NewMessage, append_messages

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
SYLLABLES = "ka lo mi ren sa tor vel zu bri den fa gol hu jin".split()
PLACES = "London Paris Berlin Rome Madrid Oslo Lisbon Vienna Prague Dublin".split()
FIRMS = "Acme Globex Initech Umbrella Hooli Stark Wayne Tyrell".split()
FOODS = "sushi pizza tacos ramen curry pasta falafel dumplings".split()
PETS = "Miso Tofu Pixel Biscuit Mochi Pepper".split()


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def synthetic(n: int, dim: int, clusters: int, seed: int = 3) -> tuple[np.ndarray, list[str]]:
    """n unit rows (planted clusters first) and their texts."""
    rng = random.Random(seed)
    gen = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    texts: list[str] = []
    for c in range(clusters):
        centre = gen.standard_normal(dim)
        centre /= np.linalg.norm(centre)
        text = f"Maya likes {word(rng)} {word(rng)} {c}"
        for k in range(rng.randint(2, 4)):
            noise = gen.standard_normal(dim)
            noise -= (noise @ centre) * centre
            noise /= np.linalg.norm(noise)
            rows.append(centre * 0.985 + noise * np.sqrt(1 - 0.985 ** 2))  # cosine 0.985 to the centre
            texts.append([text + ".", text.lower(), text.upper() + "!", text + " !"][k])
    while len(rows) < n:
        v = gen.standard_normal(dim)
        rows.append(v / np.linalg.norm(v))
        texts.append(f"Maya noted {word(rng)} {word(rng)} {word(rng)} {len(rows)}")
    return np.asarray(rows[:n], dtype=np.float32), texts[:n]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result


def bench_pass(n: int, dim: int, clusters: int, root: Path) -> None:
    vectors, texts = synthetic(n, dim, clusters)
    planted = sum(1 for t in texts if not t.startswith("Maya noted"))
    threshold = 0.9

    def bare() -> int:
        m = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        gram = m @ m.T
        return int(np.count_nonzero(np.triu(gram >= threshold, 1)))

    bare_s, pairs = timed(bare)
    order = np.arange(n)
    ours_s, found = timed(centroid_clusters, vectors, np.ones(n), order, threshold)
    multi = [c for c in found if len(c) > 1]
    print(f"offline pass, {n} facts x {dim} dims, {planted} facts in {clusters} planted clusters")
    print(f"  bare numpy Gram (M @ M.T >= {threshold}, triu):  {bare_s * 1000:8.1f} ms  ({pairs} pairs)")
    print(f"  centroid_clusters (blocked Gram + centroid): {ours_s * 1000:8.1f} ms  ({len(multi)} clusters, "
          f"{sum(map(len, multi))} facts)")

    app = open_app(Settings(state_dir=root / "pass"))
    rng = random.Random(5)
    with transaction(app.engine) as session:
        for vec, text in zip(vectors, texts):
            used = NOW - timedelta(days=rng.uniform(0, 120))
            session.add(Fact(
                id=new_fact_id(), scope="bench", text=text, norm_hash=norm_hash(text), embedding=vec.tobytes(),
                importance=rng.randint(1, 10), strength=float(rng.randint(1, 3)), last_used=used, created_at=used,
                updated_at=used, valid_from=used, sources=[f"m{rng.randrange(10**9)}"], source_roles=["user"],
            ))
        touch(session, "bench", 0)
    stage = SleepStage(app, OfflineModel())
    pass_s, report = timed(stage.run_scope, "bench", NOW)
    with reading(app.engine) as session:
        left = count_current(session, "bench")
    print(f"  SleepStage.run_scope on SQLite (whole pass): {pass_s * 1000:8.1f} ms  ({report.clusters} clusters, "
          f"{report.merged} merged, {report.refused} refused, {report.dropped} dropped, {left} current left)")
    publish_facts(app, "bench", NOW)
    read_bench(app.settings.snapshot_dir / "bench" / "facts.json", "after the pass")
    publish_context(app, "bench", NOW)
    context_bench(app, "bench")
    app.close()


def context_bench(app, scope: str, repeats: int = 2_000) -> None:
    """read_context (the planner's call) beside a raw read of the same file."""
    path = app.settings.snapshot_dir / scope / "context.md"
    read_context(scope, app.settings)  # resolve the state dir once, as a long-lived planner would
    api, raw = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        read_context(scope, app.settings)
        api.append(time.perf_counter() - start)
        start = time.perf_counter()
        path.read_text(encoding="utf-8")
        raw.append(time.perf_counter() - start)
    p50, r50 = statistics.median(api), statistics.median(raw)
    print(f"  context.md {path.stat().st_size / 1024:.1f} KiB: read_context p50 {p50 * 1e6:6.1f} us, "
          f"raw read_text p50 {r50 * 1e6:6.1f} us, ratio {p50 / r50:.2f}x")


def conversation(rng: random.Random, speaker: str) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return f"I live in {rng.choice(PLACES)}."
    if kind == 1:
        return f"I moved from {rng.choice(PLACES)} to {rng.choice(PLACES)} last month."
    if kind == 2:
        return f"I work at {rng.choice(FIRMS)}."
    if kind == 3:
        return f"I love {rng.choice(FOODS)} and {word(rng)}."
    if kind == 4:
        return f"I adopted a cat named {rng.choice(PETS)}."
    if kind == 5:
        return rng.choice(["I am vegetarian.", "I am vegan.", "I'm allergic to peanuts.", "I am learning Spanish."])
    if kind == 6:
        return f"I'm training for the {rng.choice(PLACES)} marathon."
    if kind == 7:
        return f"I like {word(rng)} {word(rng)}."
    return "ok, thanks, see you tomorrow"


class CountingCandidates(OfflineModel):
    candidates = 0

    def extract_facts(self, request):
        reply = super().extract_facts(request)
        self.candidates += len(reply.facts)
        return reply


def bench_writes(messages: int, root: Path) -> None:
    app = open_app(Settings(state_dir=root / "writes"))
    rng = random.Random(11)
    scopes = [f"user-{i}" for i in range(4)]
    batch: list[NewMessage] = []
    for i in range(messages):
        scope = scopes[i % len(scopes)]
        at = NOW + timedelta(minutes=i)
        role = "user" if rng.random() < 0.7 else rng.choice(["assistant", "tool", "action"])
        text = conversation(rng, scope) if role == "user" else f"tool output {i}: Maya lives in {rng.choice(PLACES)}"
        batch.append(NewMessage(scope, at, role, text, speaker="Maya" if role == "user" else None))
    append_messages(app.engine, batch, NOW)
    model = CountingCandidates()
    step = FactsStep(app, model)
    consolidator = Consolidator(app, [step])
    drain_s, report = timed(consolidator.drain, NOW + timedelta(minutes=messages + 60))
    with reading(app.engine) as session:
        rows = session.execute(select(func.count()).select_from(Fact)).scalar_one()  # current and closed
        current = sum(count_current(session, s) for s in scopes)
    print(f"write path, {messages} messages in {report.batches} batches (4 scopes), OfflineModel, "
          f"{model.candidates} candidates")
    print(f"  {drain_s:6.2f} s: {rows / drain_s:6.0f} fact rows written/s ({rows} rows, {current} current), "
          f"{model.candidates / drain_s:6.0f} candidates/s, {messages / drain_s:6.0f} messages/s")
    publish_facts(app, scopes[0], NOW)
    read_bench(app.settings.snapshot_dir / scopes[0] / "facts.json", f"one scope ({current // 4} facts)")
    app.close()


def read_bench(path: Path, label: str, repeats: int = 200) -> None:
    raw, parsed = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        path.read_bytes()
        raw.append(time.perf_counter() - start)
        start = time.perf_counter()
        json.loads(path.read_bytes())
        parsed.append(time.perf_counter() - start)
    size = path.stat().st_size
    print(f"  facts.json {label}, {size / 1024:.0f} KiB: raw read p50 {statistics.median(raw) * 1e6:7.1f} us, "
          f"read + json.loads p50 {statistics.median(parsed) * 1e6:7.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=500)
    parser.add_argument("--messages", type=int, default=3_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench_pass(args.facts, args.dim, args.clusters, Path(tmp))
        bench_writes(args.messages, Path(tmp))


if __name__ == "__main__":
    main()
