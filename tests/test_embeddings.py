"""HashingEmbedder and cosine_top_k: deterministic lexical vectors and brute-force top-k."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from consolidator.model.embeddings import Embedder, HashingEmbedder, cosine_top_k

EMB = HashingEmbedder()


def _cos(a: str, b: str) -> float:
    v = EMB.embed([a, b])
    return float(v[0] @ v[1])


# --- shape and normalisation -----------------------------------------------------------


def test_embed_returns_unit_float32_rows_of_dim():
    """embed gives float32 (n, dim) with every non-empty row of L2 norm 1."""
    out = HashingEmbedder(dim=64).embed(["Maya is vegetarian.", "uses vim", "x"])
    assert out.shape == (3, 64) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("text", ["", "   ", "?!.", "—"])
def test_text_without_words_embeds_as_zero_row(text):
    """A text with nothing to embed is the zero row, so it is nobody's duplicate."""
    assert not EMB.embed([text]).any()


def test_empty_batch_gives_empty_matrix():
    """No texts, no rows, still dim columns."""
    assert EMB.embed([]).shape == (0, 384)


def test_hashing_embedder_satisfies_the_protocol():
    """HashingEmbedder is an Embedder (runtime-checkable protocol)."""
    assert isinstance(EMB, Embedder)


def test_tiny_dim_is_refused():
    """A dimension too small to hash into is a ValueError."""
    with pytest.raises(ValueError):
        HashingEmbedder(dim=4)


# --- determinism -----------------------------------------------------------------------


def test_same_text_same_vector_across_instances():
    """Two embedders of the same dim agree exactly."""
    assert np.array_equal(HashingEmbedder().embed(["Maya lives in Paris."]), EMB.embed(["Maya lives in Paris."]))


@pytest.mark.slow
@pytest.mark.subprocess
def test_vectors_do_not_depend_on_python_hash_seed():
    """The hash is stable across processes with different PYTHONHASHSEED (no salted hash())."""
    code = (
        "from consolidator.model.embeddings import HashingEmbedder;"
        "v = HashingEmbedder().embed(['Maya adopted a cat named Miso.'])[0];"
        "print(' '.join(f'{x:.6f}' for x in v[:16]))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={"PYTHONHASHSEED": seed}, cwd=Path(__file__).parents[1],
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1


# --- similarity properties the dedup relies on ------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        ("Maya is vegetarian.", "Maya is vegetarian.", 0.9999, 1.0001),  # identical
        ("Maya is vegetarian.", "Maya is vegetarian", 0.95, 1.0001),  # punctuation only
        ("Maya is vegetarian.", "MAYA IS VEGETARIAN", 0.95, 1.0001),  # case only
        ("uses vim", "uses emacs", -1.0, 0.8),  # different tool: must not dedup
        ("Maya lives in London.", "Maya lives in Paris.", -1.0, 0.9),  # different value
        ("Maya is 30", "Maya is 31", -1.0, 0.95),  # different number
        ("Maya adopted a cat named Miso.", "The quarterly report is due on Friday.", -1.0, 0.2),  # unrelated
    ],
)
def test_similarity_table(a, b, low, high):
    """Cosine of pairs falls in the band the write path's 0.95 dedup threshold expects."""
    assert low <= _cos(a, b) <= high


def test_seed_candidate_finds_its_neighbour_first():
    """'moved from London to Paris' ranks 'lives in London' first among the seed store."""
    store = [
        "Maya is vegetarian.",
        "Maya has a serious peanut allergy.",
        "Maya lives in London.",
        "Maya is training for the Berlin marathon in September.",
    ]
    idx, _ = cosine_top_k(EMB.embed(["Maya moved from London to Paris last month."])[0], EMB.embed(store), 2)
    assert idx[0] == 2


def test_word_order_matters_a_little():
    """Bigrams separate reordered texts without making them unrelated."""
    assert 0.5 < _cos("Tom called Ana", "Ana called Tom") < 0.99


# --- cosine_top_k ----------------------------------------------------------------------


def _unit_rows(n: int, d: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_top_k_matches_full_sort():
    """argpartition result equals a full argsort's top k, best first."""
    m = _unit_rows(2000, 32)
    q = m[7]
    idx, scores = cosine_top_k(q, m, 10)
    full = np.argsort(-(m @ q), kind="stable")[:10]
    assert idx.tolist() == full.tolist()
    assert idx[0] == 7 and abs(scores[0] - 1.0) < 1e-5
    assert np.all(np.diff(scores) <= 0)


def test_ties_keep_lower_index_first():
    """Equal scores are returned in index order, whatever argpartition picked."""
    m = np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (6, 1))
    idx, _ = cosine_top_k(np.array([1.0, 0.0], dtype=np.float32), m, 3)
    assert idx.tolist() == [0, 1, 2]


@pytest.mark.parametrize(("k", "expected"), [(0, 0), (-3, 0), (3, 3), (50, 5)])
def test_k_is_clamped_to_rows(k, expected):
    """k <= 0 gives nothing, k > n gives all n rows."""
    idx, scores = cosine_top_k(_unit_rows(1, 8)[0], _unit_rows(5, 8), k)
    assert len(idx) == len(scores) == expected


def test_empty_matrix_gives_empty_result():
    """No rows, no neighbours."""
    idx, scores = cosine_top_k(np.ones(8, dtype=np.float32), np.empty((0, 8), dtype=np.float32), 5)
    assert idx.size == 0 and scores.size == 0


def test_query_is_normalised():
    """A scaled query gives the same scores as the unit one."""
    m = _unit_rows(50, 16)
    _, s1 = cosine_top_k(m[3], m, 5)
    _, s2 = cosine_top_k(m[3] * 10.0, m, 5)
    assert np.allclose(s1, s2, atol=1e-5)


def test_mismatched_dims_raise():
    """A query of another dimension is a ValueError, not a silent broadcast."""
    with pytest.raises(ValueError):
        cosine_top_k(np.ones(4, dtype=np.float32), _unit_rows(3, 8), 2)
