"""WordLlamaEmbedder (meaning from weights inside the wheel), its hashing fallback, and facts stored by another embedder."""

from __future__ import annotations

import sys
from datetime import timedelta

import numpy as np
import pytest
from structlog.testing import capture_logs

from consolidator.facts.sleep import SleepStage
from consolidator.facts.step import FactsStep
from consolidator.model import embeddings
from consolidator.model.embeddings import Embedder, HashingEmbedder, WordLlamaEmbedder, default_embedder, fill_missing_rows
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import FactCandidate
from consolidator.runtime.tick import Consolidator
from tests.support.facts_kit import T0, ScriptedModel, facts_of, later, put, say

WORDLLAMA = pytest.importorskip("wordllama")


@pytest.fixture(scope="module")
def wl() -> WordLlamaEmbedder:
    return WordLlamaEmbedder()


def cos(embedder: Embedder, a: str, b: str) -> float:
    v = embedder.embed([a, b])
    return float(v[0] @ v[1])


# --- the embedder ---------------------------------------------------------------------------------


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(wl):
    """Meaning, not spelling: a move to Paris is nearer to living in France than to pasta."""
    assert cos(wl, "I moved to Paris.", "Maya lives in France now.") > cos(wl, "I moved to Paris.", "I love cooking pasta.") + 0.2


def test_paraphrased_facts_clear_the_near_duplicate_threshold_and_other_values_do_not(wl, settings):
    """The calibrated threshold separates rewordings from the same template with another value."""
    threshold = settings.facts.near_duplicate
    assert cos(wl, "Caroline went to a LGBTQ support group.", "Caroline attended an LGBTQ support group.") >= threshold
    assert cos(wl, "Maya lives in Paris.", "Maya lives in Lyon.") < threshold
    assert cos(wl, "Maya uses vim.", "Maya uses emacs.") < threshold


def test_rows_are_unit_float32_and_blank_texts_are_zero(wl):
    """Shape (n, dim), unit rows, and the zero row for a text without words (as the protocol says)."""
    out = wl.embed(["Maya is vegetarian.", "", "?!"])
    assert out.shape == (3, wl.dim) and out.dtype == np.float32 and isinstance(wl, Embedder)
    assert np.isclose(np.linalg.norm(out[0]), 1.0, atol=1e-5) and not out[1:].any()
    assert wl.embed([]).shape == (0, wl.dim)


def test_a_row_does_not_depend_on_its_batch(wl):
    """The same text gives the same row alone or among longer texts."""
    alone = wl.embed(["Maya lives in Paris."])[0]
    together = wl.embed(["A much longer sentence about a trip to Lisbon and the weather there.", "Maya lives in Paris."])[1]
    assert np.array_equal(alone, together)


def test_rows_are_wordllamas_own_to_the_bit(wl):
    """Each text tokenized on its own (no thread pool), then padded and pooled as the model does:
    the same rows as the model's batch `embed`, across its chunk size, with empty, long and
    non-ASCII texts among them."""
    texts = [f"Sentence {n}: Maya {'walked' if n % 2 else 'drove'} to the market on day {n}." for n in range(70)]
    texts[3:6] = ["", "Zoë's café — naïve 日本語 🎉", "word " * 400]
    expected = np.asarray(wl._model.embed(texts, norm=False), dtype=np.float32)
    assert np.array_equal(wl._pooled(texts), expected)
    assert np.array_equal(wl._pooled(texts[:1]), expected[:1])


# --- the default and its fallback ---------------------------------------------------------------------


def test_default_is_wordllama_when_it_loads(monkeypatch):
    """The process's embedder is wordllama, built once and shared."""
    monkeypatch.setattr(embeddings, "_DEFAULT", None)
    first = default_embedder()
    assert isinstance(first, WordLlamaEmbedder) and default_embedder() is first


def test_fallback_to_hashing_when_wordllama_cannot_be_imported(monkeypatch):
    """An import failure gives the hashing embedder, logged once however often it is asked for."""
    monkeypatch.setattr(embeddings, "_DEFAULT", None)
    monkeypatch.setitem(sys.modules, "wordllama", None)  # `import wordllama` raises ImportError
    with capture_logs() as logs:
        got = [default_embedder(), default_embedder()]
    assert all(isinstance(e, HashingEmbedder) for e in got) and got[0] is got[1]
    assert [e["event"] for e in logs if e["event"] == "embeddings.fallback"] == ["embeddings.fallback"]


# --- facts stored by another embedder --------------------------------------------------------------------


def test_fill_missing_rows_embeds_only_the_zero_rows(wl):
    """Rows read back as zeros (another dimension) are embedded again; others are left alone."""
    matrix = np.zeros((2, wl.dim), dtype=np.float32)
    matrix[0] = wl.embed(["Tom likes hiking."])[0]
    before = matrix[0].copy()
    assert fill_missing_rows(matrix, ["Tom likes hiking.", "Maya lives in Paris."], wl) == 1
    assert np.array_equal(matrix[0], before) and np.allclose(matrix[1], wl.embed(["Maya lives in Paris."])[0])


def test_a_paraphrase_of_a_fact_stored_by_the_hashing_embedder_still_strengthens_it(app, wl):
    """An old 384-dim row does not crash the 256-dim step: its text is re-embedded and the near twin found."""
    old = put(app, "Caroline went to a LGBTQ support group.", HashingEmbedder().embed(["Caroline went to a LGBTQ support group."])[0])
    twin = "Caroline attended an LGBTQ support group."
    step = FactsStep(app, ScriptedModel(lambda r: [
        FactCandidate(text=twin, importance=3, source_ids=[r.messages[0].id])]), wl)
    say(app, "maya", T0, ["I attended an LGBTQ support group."], speaker="Caroline")
    Consolidator(app, [step]).drain(later(T0))
    current = {f.id: f for f in facts_of(app)}
    assert list(current) == [old] and current[old].strength == 2.0


def test_the_offline_pass_merges_across_old_and_new_rows(app, wl):
    """Sleep over a 384-dim row and a 256-dim row of the same fact: no crash, one fact left."""
    text = "Maya plays the violin."
    put(app, text, HashingEmbedder().embed([text])[0], last_used=T0)
    put(app, "Maya plays violin.", wl.embed(["Maya plays violin."])[0], last_used=T0)
    stage = SleepStage(app, OfflineModel(), wl)
    report = stage.run_scope("maya", T0 + timedelta(days=1))
    assert report.merged == 1 and len(facts_of(app)) == 1
