"""Text embeddings for fact dedup, nearest-neighbour lookup, clustering and summary redundancy.

`Embedder` is the port, with two offline implementations:

- `WordLlamaEmbedder` (the default, `default_embedder()`): wordllama's static token embeddings
  (256 dims, average-pooled), whose weights ship inside the wheel: meaning, not spelling
  ("I moved to Paris." / "Maya lives in France now." 0.45; paraphrased facts 0.83-1.0 while
  same-template facts with another value, "lives in Paris" / "lives in Lyon", stay at
  0.39-0.82; figures in DESIGN.md). Loaded once per process (0.6-0.8 s), then about 30 us a
  short text.
- `HashingEmbedder`, the fallback when wordllama cannot be imported or loaded: deterministic
  across processes and machines (a keyed-free blake2b, never Python's salted `hash()`),
  nothing to load, no state. It is lexical: it sees shared words and spellings, not meaning
  ("moved to Paris" is not close to "lives in France").

Rows stored by one embedder are meaningless to another (another dimension, another space):
the store hands a row of the wrong dimension back as zeros, and `fill_missing_rows` embeds
those facts' texts again in memory, so a model change never crashes nor silently disables
the duplicate checks.

Features, each hashed to a column with a sign taken from the same digest (signed hashing keeps
collisions from adding up in one direction):

- word unigrams, sublinear tf (1 + ln tf); stopwords weigh a quarter,
- word bigrams (word order, "uses vim" vs "vim uses"),
- character 3- to 5-grams of the space-joined words (spelling variants, plurals).

Each group is L2-normalised on its own and mixed with fixed weights, so a long text's many
character grams do not drown its words; then the row is L2-normalised. Punctuation and case are
dropped, so "Maya is vegetarian." and "maya is vegetarian" embed identically. A text without
any word characters embeds as the zero row (cosine 0 with everything, never a duplicate).

`cosine_top_k` is brute force: one matrix-vector product and an argpartition. Measured on a
shared 2-core box (numpy, float32, 384 dimensions, k = 10 or 100): 10,000 rows take about
0.3 ms a query, 100,000 rows about 8 ms (memory-bound: the matrix is 1.5 KB a row, 150 MB).
Brute force is right up to about 10^5 rows per scope, and for the offline pass's n queries up
to about 10^4 rows (n x 0.3 ms = 3 s); beyond that use an ANN index (HNSW) behind the same
signature. Hashing embedding is pure Python, about 0.15 ms a short text (10,000 in 1.5 s).
"""

from __future__ import annotations

import math
import re
import threading
from functools import lru_cache
from hashlib import blake2b
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import structlog

__all__ = ["Embedder", "HashingEmbedder", "WordLlamaEmbedder", "cosine_top_k", "default_embedder", "fill_missing_rows"]

log = structlog.get_logger()

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a an the is am are was were be been being of to in on at for from by with and or but "
    "it its this that these those as so than then there here i me my you your he him his she "
    "her they them their we us our do does did has have had not no".split()
)
# Share of the squared norm each feature group gets (the cosine of two texts is the
# weighted mean of the per-group cosines, up to hash collisions).
_GROUP_WEIGHTS = {"w": 0.45, "b": 0.20, "c": 0.35}
_CHAR_NGRAMS = (3, 4, 5)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit rows of a float32 matrix.

    `embed` returns shape (len(texts), dim); each row has L2 norm 1, or is all zeros when a
    text has nothing to embed. Equal texts give equal rows, in any process.
    """

    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


@lru_cache(maxsize=1 << 18)
def _slot(feature: str, dim: int) -> tuple[int, float]:
    digest = int.from_bytes(blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    return digest % dim, (1.0 if digest >> 63 else -1.0)


def _sublinear(counts: dict[str, float]) -> dict[str, float]:
    return {f: (1.0 + math.log(c)) if c >= 1.0 else c for f, c in counts.items()}


def _groups(text: str) -> dict[str, dict[str, float]]:
    words = _WORD.findall(text.lower())
    unigrams: dict[str, float] = {}
    for w in words:
        unigrams[w] = unigrams.get(w, 0.0) + 1.0
    uni = {f"w:{w}": (0.25 if w in _STOPWORDS else 1.0) * wt for w, wt in _sublinear(unigrams).items()}
    bigrams: dict[str, float] = {}
    for a, b in zip(words, words[1:]):
        key = f"b:{a} {b}"
        bigrams[key] = bigrams.get(key, 0.0) + 1.0
    chars: dict[str, float] = {}
    padded = f" {' '.join(words)} "
    if words:
        for n in _CHAR_NGRAMS:
            for i in range(len(padded) - n + 1):
                key = f"c:{padded[i:i + n]}"
                chars[key] = chars.get(key, 0.0) + 1.0
    return {"w": uni, "b": _sublinear(bigrams), "c": _sublinear(chars)}


class HashingEmbedder:
    """Deterministic hashed n-gram embedder (see the module docstring); no model, no download."""

    def __init__(self, dim: int = 384) -> None:
        if dim < 8:
            raise ValueError(f"dim must be at least 8, got {dim}")
        self.dim = dim

    def embed_one(self, text: str) -> np.ndarray:
        row = np.zeros(self.dim, dtype=np.float64)
        for group, features in _groups(text).items():
            if not features:
                continue
            norm = math.sqrt(sum(v * v for v in features.values()))
            scale = math.sqrt(_GROUP_WEIGHTS[group]) / norm
            for feature, value in features.items():
                col, sign = _slot(feature, self.dim)
                row[col] += sign * value * scale
        total = float(np.linalg.norm(row))
        if total > 0.0:
            row /= total
        return row.astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self.embed_one(text)
        return out


class WordLlamaEmbedder:
    """wordllama's static embeddings, loaded from the wheel only (never from the network).

    Rows are L2-normalised here; a text without any word character is the zero row, as with
    `HashingEmbedder`. A row does not depend on the other texts of the batch.
    """

    def __init__(self, model: Any | None = None) -> None:
        self._model = model if model is not None else _load_wordllama()
        self.dim = int(self._model.embed(["dimension probe"]).shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        raw = np.nan_to_num(np.asarray(self._pooled(list(texts)), dtype=np.float32))
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        out = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
        blank = [i for i, text in enumerate(texts) if not _ANY_WORD.search(text)]
        out[blank] = 0.0
        return out

    def _pooled(self, texts: list[str]) -> np.ndarray:
        """wordllama's `embed(texts, norm=False)` to the bit, each text tokenized on its own.

        The model's `embed` tokenizes a batch with `encode_batch`, which hands even eight short
        sentences to the tokenizer's thread pool: on two cores its threads cost more than the
        work (the summariser's repeat check embeds a few sentences at a time, thousands of times
        a year: 0.38 -> 0.19 ms a call of eight). `encode` runs in the calling thread; the
        rows are then padded, looked up and pooled exactly as the model does (in chunks of
        the same size), and a row does not depend on the padding: the padded tokens weigh zero.
        """
        model = self._model
        table = model.embedding
        out = np.empty((len(texts), table.shape[1]), dtype=np.float32)
        for start in range(0, len(texts), _CHUNK):
            encoded = [model.tokenizer.encode(text, add_special_tokens=False) for text in texts[start:start + _CHUNK]]
            width = max(len(enc.ids) for enc in encoded)
            ids = np.zeros((len(encoded), width), dtype=np.int32)
            mask = np.zeros((len(encoded), width), dtype=np.float32)
            for row, enc in enumerate(encoded):
                ids[row, :len(enc.ids)] = enc.ids
                mask[row, :len(enc.ids)] = enc.attention_mask
            np.clip(ids, 0, table.shape[0] - 1, out=ids)
            out[start:start + len(encoded)] = model.avg_pool(table[ids], mask)
        return out

    def word_sums(self, words: list[str], dim: int) -> tuple[np.ndarray, list[int]]:
        """Each word's token embeddings summed over its first `dim` columns (a Matryoshka prefix),
        and its token count: a text's embedding is the sum of its words' sums over their counts,
        which recall rebuilds from a stored word table without loading the tokenizer."""
        if not words:
            return np.zeros((0, dim), dtype=np.float32), []
        table = self._model.embedding
        encoded = self._model.tokenizer.encode_batch(list(words), add_special_tokens=False)
        sums = np.zeros((len(words), dim), dtype=np.float32)
        counts = []
        for i, enc in enumerate(encoded):
            ids = [t for t, keep in zip(enc.ids, enc.attention_mask) if keep]
            if ids:
                sums[i] = table[np.clip(ids, 0, table.shape[0] - 1), :dim].sum(axis=0)
            counts.append(len(ids))
        return sums, counts


_ANY_WORD = re.compile(r"\w")
_CHUNK = 64  # texts pooled at once, as wordllama's `embed` does (its batch_size)


def _load_wordllama() -> Any:
    """The model inside the installed wheel; raises (ImportError, OSError...) when it is not there."""
    import wordllama
    from wordllama import WordLlama

    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


_DEFAULT: Embedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> Embedder:
    """The process's embedder: wordllama when it loads, else the hashing one (logged once).

    Built on first use and shared (the summariser, the facts step and the offline pass all
    compare rows of one space).
    """
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            try:
                _DEFAULT = WordLlamaEmbedder()
            except Exception as exc:  # missing package, missing weights, a broken install
                log.warning("embeddings.fallback", embedder="hashing", error=f"{type(exc).__name__}: {exc}"[:300])
                _DEFAULT = HashingEmbedder()
        return _DEFAULT


def fill_missing_rows(matrix: np.ndarray, texts: list[str], embedder: Embedder) -> int:
    """Embed again, in place, the texts whose row is all zeros (stored by another embedder,
    of another dimension); returns how many rows were filled. A text without words stays zero."""
    if matrix.size == 0:
        return 0
    missing = np.flatnonzero(~matrix.any(axis=1))
    if missing.size:
        matrix[missing] = embedder.embed([texts[i] for i in missing.tolist()])
    return int(missing.size)


def cosine_top_k(query: np.ndarray, matrix: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k rows of `matrix` most similar to `query`, best first.

    `matrix` rows must be unit-normalised (as an `Embedder` returns them); `query` is
    normalised here (a zero query scores 0 everywhere). Returns (indices int64, scores
    float32), both of length min(k, len(matrix)); equal scores keep the lower index first,
    so the result is deterministic. Brute force, see the module docstring for its range.
    """
    if query.ndim != 1:
        raise ValueError(f"query must be one vector, got shape {query.shape}")
    n = 0 if matrix.size == 0 else matrix.shape[0]
    k = min(max(k, 0), n)
    if k == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[1] != query.shape[0]:
        raise ValueError(f"matrix shape {matrix.shape} does not fit query of dim {query.shape[0]}")
    q = query.astype(np.float32, copy=False)
    norm = float(np.linalg.norm(q))
    if norm > 0.0:
        q = q / norm
    scores = matrix.astype(np.float32, copy=False) @ q
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
        # Ties at the cut: argpartition picks arbitrarily among equal scores; widen to every
        # row scoring at least the k-th score so the lower index wins deterministically.
        kth = scores[part].min()
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(n)
    order = np.lexsort((candidates, -scores[candidates]))[:k]
    idx = candidates[order].astype(np.int64)
    return idx, scores[idx].astype(np.float32)
