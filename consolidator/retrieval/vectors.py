"""Static embeddings for recall, rebuilt from a word table so that a query needs no tokenizer.

wordllama's embedding of a text is the mean of its tokens' rows. Its tokenizer splits on spaces
first, so a text's token rows are the union of its words' token rows: the daemon stores, for
every word the index has seen, the sum of its token rows (the first `DIM` columns: the model is
trained Matryoshka-style, so a prefix is itself an embedding) and its token count, and an item's
or a query's vector is the sum of its words' sums over the sum of their counts, normalised. A
query word the index never saw adds nothing; it could not match any item's words either.

128 columns: wordllama's own table gives 22.5 on CQA DupStack at 128 against 24.2 at 256,
for half the index and half the arithmetic per query.
"""

from __future__ import annotations

import re

import numpy as np

DIM = 128
WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def words_of(text: str) -> list[str]:
    """The words of a text as the word table keys them (case kept: the tokenizer is cased)."""
    return WORD.findall(text)


def lookup_forms(word: str) -> tuple[str, ...]:
    """The keys tried for a query word: as typed, then lower-case and capitalised."""
    return tuple(dict.fromkeys((word, word.lower(), word.capitalize())))


def encode_sum(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float16).tobytes()


def decode(blob: bytes | None) -> np.ndarray | None:
    if not blob:
        return None
    row = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return row if row.shape[0] == DIM else None


def text_vector(words: list[str], table: dict[str, tuple[bytes, int]]) -> np.ndarray | None:
    """The unit vector of these words from their stored sums (None: no known word)."""
    total = np.zeros(DIM, dtype=np.float32)
    tokens = 0
    for word in words:
        entry = None
        for form in lookup_forms(word):
            entry = table.get(form)
            if entry is not None:
                break
        if entry is None:
            continue
        row = decode(entry[0])
        if row is None:
            continue
        total += row
        tokens += entry[1]
    if not tokens:
        return None
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else None
