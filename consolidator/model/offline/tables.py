"""The offline `split_table`: cluster a table's facts over the shipped embeddings, name each part.

k-means (k from the request: enough parts of at most `max_facts`), seeded deterministically
(farthest point from the centroid, then farthest from the seeds chosen), a fixed number of
rounds; parts under `min_facts` join their nearest part with room, and a part still over
`max_facts` (or a table k-means leaves whole) is cut into runs along its main direction of
spread, so there are at least two parts and none over the limit. Both read the facts with the
names of people and things left out (names.topic_texts). Each part is named by its most
distinctive words: frequent in the part, rare in the rest of the table (tf x idf over facts),
weighted towards rarer English words (wordfreq's Zipf scale), never a function word, one of
English's few hundred commonest words, a number or a verb's past form ("shared": what was done,
not what the part is about). Same facts in, same tables out.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from consolidator.model.embeddings import default_embedder
from consolidator.model.offline.names import topic_texts
from consolidator.model.offline.text import STOPWORDS, past_form, words
from consolidator.model.offline.words import EVERYDAY_ZIPF, zipf
from consolidator.model.schemas import SplitTableReply, SplitTableRequest, TablePart

ROUNDS = 25
FILL = 0.75  # a run cut in order aims at three quarters of max_facts


def split_table(request: SplitTableRequest) -> SplitTableReply:
    facts = request.facts
    if len(facts) < 2:
        return SplitTableReply(tables=[TablePart(name=request.table, description=request.description,
                                                 facts=[f.id for f in facts])])
    texts = topic_texts([f.text for f in facts])  # what the facts say, not whom they are about
    vectors = default_embedder().embed(texts).astype(np.float64)
    parts = [p for p in _parts(vectors, request.parts, request.min_facts, request.max_facts) if p]
    names = _names(texts, parts, request.table)
    return SplitTableReply(tables=[
        TablePart(name=name, description=f"Facts about {_listed(words_)}." if words_ else request.description,
                  facts=[facts[i].id for i in part])
        for part, (name, words_) in zip(parts, names)
    ])


def _parts(vectors: np.ndarray, k: int, min_facts: int, max_facts: int) -> list[list[int]]:
    n = len(vectors)
    labels = kmeans(vectors, max(2, min(k, n)))
    parts = fold_small([list(np.flatnonzero(labels == c)) for c in range(labels.max() + 1)], vectors, min_facts, max_facts)
    out: list[list[int]] = []
    for part in parts:
        out.extend(cut_in_order(part, vectors, min_facts, max_facts) if len(part) > max_facts else [part])
    if len(out) < 2:
        out = cut_in_order(out[0], vectors, min_facts, max_facts)
    return sorted((sorted(int(i) for i in p) for p in out), key=lambda p: p[0])


def cut_in_order(part: list[int], vectors: np.ndarray, min_facts: int, max_facts: int) -> list[list[int]]:
    """`part` cut into consecutive runs along its main direction of spread: at least two runs
    (when it has two rows), each of at most `max_facts` and, when the part allows, at least `min_facts`."""
    n = len(part)
    if n < 2:
        return [list(part)]
    rows = vectors[part] - vectors[part].mean(axis=0)
    direction = np.linalg.svd(rows, full_matrices=False)[2][0] if np.any(rows) else np.zeros(rows.shape[1])
    order = [part[i] for i in np.lexsort((np.arange(n), rows @ direction))]
    runs = max(2, min(math.ceil(n / (FILL * max_facts)), n // max(min_facts, 1)))
    return [list(chunk) for chunk in np.array_split(np.array(order), min(runs, n)) if len(chunk)]


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


def fold_small(parts: list[list[int]], vectors: np.ndarray, min_facts: int,
               max_facts: int | None = None) -> list[list[int]]:
    """Parts under `min_facts` join the nearest other part (by centroid) that has room for them
    under `max_facts` (the nearest of all when none has), smallest first."""
    parts = [list(p) for p in parts if len(p)]
    while len(parts) > 1:
        small = min(range(len(parts)), key=lambda i: (len(parts[i]), parts[i][0]))
        if len(parts[small]) >= min_facts:
            break
        centres = np.stack([vectors[p].mean(axis=0) for p in parts])
        sims = centres @ centres[small]
        sims[small] = -np.inf
        if max_facts is not None:
            room = np.array([len(p) + len(parts[small]) <= max_facts for p in parts])
            if room.any():
                sims[~room] = -np.inf
        target = int(np.argmax(sims))
        parts[target].extend(parts.pop(small))
    return parts


def _names(texts: list[str], parts: list[list[int]], table: str) -> list[tuple[str, list[str]]]:
    """Each part's name (its two most distinctive words; else the table's name and a number) and
    its five most distinctive words."""
    bags = [set(w.removesuffix("'s") for w in words(t) if _worthy(w.removesuffix("'s"))) for t in texts]
    df = Counter(w for bag in bags for w in bag)
    # a word in every part (a person's name in a two-person chat) names none of them
    common = set.intersection(*(set().union(*(bags[i] for i in part)) for part in parts)) if len(parts) > 1 else set()
    bags = [bag - common for bag in bags]
    used: set[str] = set()
    out = []
    for part in parts:
        tf = Counter(w for i in part for w in bags[i])
        ranked = sorted(tf, key=lambda w: (-(tf[w] / len(part)) * math.log((1 + len(texts)) / df[w])
                                           * (EVERYDAY_ZIPF - zipf(w)), w))
        top = [w for w in ranked if tf[w] > 1][:5] or ranked[:5]
        name = ", ".join(top[:2]) or f"{table} {len(out) + 1}"
        while name in used:
            name = f"{name} ({len(used) + 1})"
        used.add(name)
        out.append((name, top))
    return out


def _worthy(word: str) -> bool:
    return (len(word) > 2 and word not in STOPWORDS and not any(ch.isdigit() for ch in word)
            and zipf(word) < EVERYDAY_ZIPF and not past_form(word))


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
