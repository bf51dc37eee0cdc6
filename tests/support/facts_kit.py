"""The facts tests' story and harness: Maya's store and seed batch, saying lines, reading facts
back, recording and scripted models, a facts-only consolidator, the `maya` fixture, and facts
stored directly at chosen angles for the offline pass."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from consolidator.facts.step import FactsStep
from consolidator.model.embeddings import HashingEmbedder
from consolidator.model.offline import OfflineModel
from consolidator.model.offline.names import topic_texts
from consolidator.model.schemas import FactExtractionReply
from consolidator.runtime.tick import Consolidator
from stores.engine import reading, transaction
from stores.schema.memory import Fact
from stores.facts import all_facts, current_facts, new_fact_id, norm_hash, touch
from stores.messages import NewMessage, append_messages

UTC = timezone.utc
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
MAYA_STORE = [
    "Maya is vegetarian.",
    "Maya has a serious peanut allergy.",
    "Maya lives in London.",
    "Maya is training for the Berlin marathon in September.",
]
SEED_BATCH = [
    "Maya is vegetarian.",
    "Maya moved from London to Paris last month.",
    "Maya adopted a cat named Miso.",
    "Maya injured her knee and is no longer training for the marathon.",
]


# --- helpers --------------------------------------------------------------------------------------


def say(app, scope: str, at: datetime, texts: list[str], role: str = "user", speaker: str | None = "Maya") -> None:
    messages = [NewMessage(scope, at + timedelta(seconds=i), role, t, speaker=speaker) for i, t in enumerate(texts)]
    append_messages(app.engine, messages, at)


def facts_of(app, scope: str = "maya", current: bool = True) -> list[Fact]:
    with reading(app.engine) as session:
        return current_facts(session, scope) if current else all_facts(session, scope)


def texts(facts: list[Fact]) -> list[str]:
    return sorted(f.text for f in facts)


def later(at: datetime) -> datetime:
    """A time after `at` by which the batch holding `at` has been flushed (flush_idle 30m)."""
    return at + timedelta(hours=1)


def unit(*head: float, dim: int = 384) -> np.ndarray:
    """A unit vector of `dim` floats starting with `head` (the rest zero)."""
    vec = np.zeros(dim, dtype=np.float32)
    vec[: len(head)] = head
    return vec / np.linalg.norm(vec)


class TableEmbedder:
    """Chosen vectors for chosen texts (exact similarities in tests), hashed n-grams for the rest.

    A chosen text is also answered in its topic form (names left out, as the tables embed a
    fact: facts.tables.topic_vectors), so a test gives "Maya runs" its vector once."""

    def __init__(self, table: dict[str, np.ndarray], dim: int = 384) -> None:
        self.table, self.dim, self.fallback = table, dim, HashingEmbedder(dim)

    def embed(self, items: list[str]) -> np.ndarray:
        out = self.fallback.embed(items)
        topics = {topic: vec for text, vec in self.table.items() for topic in topic_texts([text])}
        for i, text in enumerate(items):
            vec = self.table.get(text, topics.get(text))
            if vec is not None:
                out[i] = vec
        return out


class RecordingModel:
    """The offline model, recording every fact request it received."""

    def __init__(self, inner=None) -> None:
        self.inner = inner or OfflineModel()
        self.name = "recording"
        self.requests = []

    def extract_facts(self, request):
        self.requests.append(request)
        return self.inner.extract_facts(request)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class ScriptedModel(RecordingModel):
    """Answers extract_facts with `reply(request)`: a model that says what the test wants."""

    def __init__(self, reply) -> None:
        super().__init__()
        self.reply = reply

    def extract_facts(self, request):
        self.requests.append(request)
        return FactExtractionReply(facts=self.reply(request))


class FailingThenWorking(RecordingModel):
    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    def extract_facts(self, request):
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("model down")
        return super().extract_facts(request)


def machine(app, model=None, extra_steps=()):
    model = model or RecordingModel()
    return Consolidator(app, [FactsStep(app, model), *extra_steps]), model


@pytest.fixture
def maya(app):
    """Maya's four stored facts, written through the step from one batch."""
    consolidator, _ = machine(app)
    say(app, "maya", T0, MAYA_STORE)
    consolidator.drain(later(T0))
    assert texts(facts_of(app)) == sorted(MAYA_STORE)
    return app


# --- facts stored directly, at chosen angles (the offline pass) -------------------------------

NOW = T0 + timedelta(days=10)


def put(app, text: str, vec: np.ndarray, scope: str = "maya", importance: int = 5, strength: float = 1.0,
        last_used: datetime = NOW, pinned: bool = False) -> str:
    """Store one current fact directly (as the write path would leave it)."""
    fid = new_fact_id()
    with transaction(app.engine) as session:
        session.add(Fact(
            id=fid, scope=scope, text=text, norm_hash=norm_hash(text), embedding=vec.astype(np.float32).tobytes(),
            importance=importance, strength=strength, last_used=last_used, created_at=last_used,
            updated_at=last_used, valid_from=last_used, sources=[f"m-{fid}"], source_roles=["user"], pinned=pinned,
        ))
        touch(session, scope, importance)
    return fid


def angle(degrees: float) -> np.ndarray:
    r = math.radians(degrees)
    return unit(math.cos(r), math.sin(r))
