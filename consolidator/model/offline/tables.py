"""The offline `split_table`: cluster a table's facts over the shipped embeddings, name each part.

k-means (k from the request: enough parts of at most `max_facts`), seeded deterministically
(farthest point from the centroid, then farthest from the seeds chosen), a fixed number of
rounds; parts under `min_facts` join their nearest part, and a part still over `max_facts` is
cut in two along its own k-means, so no part is over the limit. Each part is named by its most
distinctive words: frequent in the part, rare in the rest of the table (tf x idf over facts),
never a function word or a number. Same facts in, same tables out.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from consolidator.model.embeddings import default_embedder
from consolidator.model.offline.text import STOPWORDS, words
from consolidator.model.schemas import SplitTableReply, SplitTableRequest, TablePart

ROUNDS = 25


def split_table(request: SplitTableRequest) -> SplitTableReply:
    facts = request.facts
    if len(facts) < 2:
        return SplitTableReply(tables=[TablePart(name=request.table, description=request.description,
                                                 facts=[f.id for f in facts])])
    vectors = default_embedder().embed([f.text for f in facts]).astype(np.float64)
    parts = [p for p in _parts(vectors, request.parts, request.min_facts, request.max_facts) if p]
    texts = [f.text for f in facts]
    names = _names(texts, parts)
    return SplitTableReply(tables=[
        TablePart(name=name, description=f"Facts about {_listed(words_)}.", facts=[facts[i].id for i in part])
        for part, (name, words_) in zip(parts, names)
    ])


def _parts(vectors: np.ndarray, k: int, min_facts: int, max_facts: int) -> list[list[int]]:
    n = len(vectors)
    k = max(2, min(k, n))
    labels = kmeans(vectors, k)
    parts = [list(np.flatnonzero(labels == c)) for c in range(k)]
    parts = fold_small([p for p in parts if p], vectors, min_facts)
    out: list[list[int]] = []
    while parts:
        part = parts.pop()
        if len(part) > max_facts and len(part) >= 2:
            sub = kmeans(vectors[part], 2)
            halves = [[part[i] for i in np.flatnonzero(sub == c)] for c in (0, 1)]
            if all(halves):
                parts.extend(halves)
                continue
            parts.extend([part[: len(part) // 2], part[len(part) // 2:]])  # identical rows: cut in order
            continue
        out.append(sorted(int(i) for i in part))
    return sorted(out, key=lambda p: p[0])


def kmeans(vectors: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels of the rows: deterministic seeds, Lloyd's rounds on unit rows (cosine)."""
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    centre = unit.mean(axis=0)
    seeds = [int(np.argmin(unit @ centre))]
    while len(seeds) < k:
        nearest = np.max(unit @ unit[seeds].T, axis=1)
        nearest[seeds] = np.inf
        seeds.append(int(np.argmin(nearest)))
    centres = unit[seeds]
    labels = np.zeros(len(unit), dtype=int)
    for _ in range(ROUNDS):
        new = np.argmax(unit @ centres.T, axis=1)
        if _ and np.array_equal(new, labels):
            break
        labels = new
        for c in range(k):
            members = unit[labels == c]
            if len(members):
                centres[c] = members.mean(axis=0)
                centres[c] /= max(float(np.linalg.norm(centres[c])), 1e-12)
    return labels


def fold_small(parts: list[list[int]], vectors: np.ndarray, min_facts: int) -> list[list[int]]:
    """Parts under `min_facts` join the nearest other part (by centroid), smallest first."""
    parts = [list(p) for p in parts]
    while len(parts) > 1:
        small = min(range(len(parts)), key=lambda i: (len(parts[i]), parts[i][0]))
        if len(parts[small]) >= min_facts:
            break
        centres = np.stack([vectors[p].mean(axis=0) for p in parts])
        sims = centres @ centres[small]
        sims[small] = -np.inf
        target = int(np.argmax(sims))
        parts[target].extend(parts.pop(small))
    return parts


def _names(texts: list[str], parts: list[list[int]]) -> list[tuple[str, list[str]]]:
    """Each part's name (its two most distinctive words) and its five most distinctive words."""
    bags = [set(w for w in words(t) if _worthy(w)) for t in texts]
    df = Counter(w for bag in bags for w in bag)
    used: set[str] = set()
    out = []
    for part in parts:
        tf = Counter(w for i in part for w in bags[i])
        ranked = sorted(tf, key=lambda w: (-(tf[w] / len(part)) * math.log((1 + len(texts)) / df[w]), w))
        top = [w for w in ranked if tf[w] > 1][:5] or ranked[:5] or ["misc"]
        name = ", ".join(top[:2])
        while name in used:
            name = f"{name} ({len(used) + 1})"
        used.add(name)
        out.append((name, top))
    return out


def _worthy(word: str) -> bool:
    return len(word) > 2 and word not in STOPWORDS and not any(ch.isdigit() for ch in word)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
