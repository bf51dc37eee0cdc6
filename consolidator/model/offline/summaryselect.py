"""The summariser's choice (summarise.py, step 6): budgeted coverage of concepts by sentences,
a sentence cut to the room left when the cut keeps enough, repeats skipped by their embedding.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from consolidator.model.offline.lexicon import Lexicon, base_form, names_in
from consolidator.model.offline.summaryform import Turn, render, separator
from consolidator.model.offline.text import stem
from consolidator.model.offline.text_cut import TOKEN, clause_value, shorten
from consolidator.model.offline.tuning import OfflineSettings


@dataclass
class Candidate:
    position: int  # order of appearance
    turn: int  # index of the turn it belongs to
    text: str  # as it will be written (relative dates resolved)
    prior: float  # fact_prior and the turn's and date's boosts
    concepts: dict[str, float] = field(default_factory=dict)  # stem -> what covering it is worth
    phatic: bool = False

    @property
    def relevance(self) -> float:
        """Prior x concept worth over sqrt(length): the order in which sentences enter the pool."""
        return self.prior * sum(self.concepts.values()) / math.sqrt(len(self.text) / 5 + 1)


def best_pool(candidates: list[Candidate], target: int, settings: OfflineSettings) -> list[Candidate]:
    """The most relevant candidates, settings.pool_targets targets' worth: the only ones the selection
    could reach before the target is met."""
    ranked = sorted(candidates, key=lambda c: (-c.relevance, c.position))
    pool, size = [], 0
    for c in ranked:
        if size >= settings.pool_targets * target and len(pool) >= settings.pool_min:
            break
        pool.append(c)
        size += len(c.text)
    return sorted(pool, key=lambda c: c.position)


def select(candidates: list[Candidate], turns: list[Turn], target: int, lexicon: Lexicon,
           settings: OfflineSettings) -> list[Candidate]:
    """Budgeted coverage (module docstring, step 6).

    Repeats are found lazily (_Repeats): only a sentence about to be chosen is embedded and
    compared with the chosen ones, in the order of its score, so a pool's sentences that never
    come that close (most of them) are never embedded. The choice is the one that comparing
    every open sentence after each pick makes: a repeat is skipped for the next best."""
    repeats = _Repeats([c.text for c in candidates], settings.repeat_cosine)
    covered: set[str] = set()
    chosen: list[Candidate] = []  # in input order
    used = 0  # characters of the written summary so far
    open_ = list(range(len(candidates)))
    # a whole candidate's uncovered worth, kept until a pick covers one of its concepts (the same
    # sum over the same concepts: the scores are those computed afresh, to the bit)
    worth: dict[int, float] = {}
    while open_:
        fits = []  # (-score, index, pick, cost): the best first, ties to the earlier sentence
        positions = [c.position for c in chosen]
        for i in open_:
            fit = _fitting(candidates[i], chosen, positions, covered, turns, target - used, lexicon, settings)
            if fit is None:
                continue
            pick, cost = fit
            if pick is candidates[i]:
                uncovered = worth.get(i)
                if uncovered is None:
                    uncovered = worth[i] = sum(w for k, w in pick.concepts.items() if k not in covered)
            else:
                uncovered = sum(w for k, w in pick.concepts.items() if k not in covered)
            score = pick.prior * uncovered / max(1, cost)
            if score > 0.0:
                fits.append((-score, i, pick, cost))
        fits.sort(key=lambda f: (f[0], f[1]))
        order = [f[1] for f in fits]
        best = next((f for f in fits if not repeats.of_chosen(f[1], order)), None)
        if best is None:
            break
        _, i, best_pick, best_cost = best
        chosen.insert(bisect.bisect(positions, best_pick.position), best_pick)
        used += best_cost
        fresh = best_pick.concepts.keys() - covered
        covered.update(fresh)
        for j in [j for j in worth if not fresh.isdisjoint(candidates[j].concepts)]:
            del worth[j]
        repeats.choose(i)
        # a repeat of a chosen sentence goes, and so does one whose concepts are all covered: it never adds again
        known = repeats.known()
        open_ = [j for j in open_ if j != i and not known[j] and not covered.issuperset(candidates[j].concepts)]
    return chosen


class _Repeats:
    """Which sentences repeat a chosen one (cosine >= `threshold`), each embedded only when asked
    about, a few of the next best with it (one embedding call for several). The cosines are
    those of the whole pool's matrix (rows not embedded yet are zeros, which change no other
    row's product), so a sentence is judged exactly as if every row had been embedded first."""

    AHEAD = 8  # sentences embedded per call: the one asked about and the next best not embedded yet

    def __init__(self, texts: list[str], threshold: float) -> None:
        import numpy as np

        self.np, self.texts, self.threshold = np, texts, threshold
        self.vectors = None  # the pool's rows, (len(texts), dim), zeros until embedded
        self.embedded = [False] * len(texts)
        self.closest = np.zeros(len(texts))  # highest cosine to a chosen sentence (0 for rows not embedded)
        self.chosen: list[int] = []

    def known(self) -> list[bool]:
        """Per sentence, whether it is already known to repeat a chosen one."""
        return (self.closest >= self.threshold).tolist()

    def of_chosen(self, i: int, order: list[int]) -> bool:
        """Whether `i` repeats a chosen sentence; `order`: the candidates by score (what to embed with it)."""
        if not self.embedded[i]:
            self._embed([i] + [j for j in order if j != i and not self.embedded[j]][:self.AHEAD - 1])
        return bool(self.closest[i] >= self.threshold)

    def choose(self, i: int) -> None:
        self.chosen.append(i)
        self.closest = self.np.maximum(self.closest, self.vectors @ self.vectors[i])

    def _embed(self, rows: list[int]) -> None:
        np = self.np
        fresh = embed_sentences([self.texts[j] for j in rows])
        if self.vectors is None:
            self.vectors = np.zeros((len(self.texts), fresh.shape[1]), dtype=fresh.dtype)
        self.vectors[rows] = fresh
        for j in rows:
            self.embedded[j] = True
        for c in self.chosen:  # the new rows' cosines to what was chosen before they were embedded
            self.closest[rows] = np.maximum(self.closest[rows], (self.vectors @ self.vectors[c])[rows])


def _added(c: Candidate, text: str, chosen: list[Candidate], positions: list[int], turns: list[Turn]) -> int:
    """Characters the written summary grows by when `c`, written as `text`, joins `chosen` (at
    `positions`)."""
    at = bisect.bisect(positions, c.position)
    prev = turns[chosen[at - 1].turn] if at else None
    turn = turns[c.turn]
    grow = len(separator(prev, turn)) + len(text)
    if at < len(chosen):
        after = turns[chosen[at].turn]
        grow += len(separator(turn, after)) - len(separator(prev, after))
    return grow


def _fitting(c: Candidate, chosen: list[Candidate], positions: list[int], covered: set[str], turns: list[Turn],
             room: int, lexicon: Lexicon, settings: OfflineSettings) -> tuple[Candidate, int] | None:
    """`c` as it would be added, whole or cut to the room left, with what it costs; None when
    it adds no concept or no worthwhile cut fits."""
    if covered.issuperset(c.concepts):
        return None
    cost = _added(c, c.text, chosen, positions, turns)
    if cost <= room:
        return c, cost
    space = room - (cost - len(c.text))
    if space < settings.min_room and chosen:
        return None
    short = shorten(c.text, space, lexicon)
    names = names_in(TOKEN.findall(c.text), lexicon)
    if not short or (chosen and clause_value(short, lexicon, names) < settings.keep_share * clause_value(c.text, lexicon, names)):
        return None
    kept = {stem(base_form(t)) for t in TOKEN.findall(short)}
    cut = Candidate(c.position, c.turn, short, c.prior, {k: w for k, w in c.concepts.items() if k in kept}, c.phatic)
    cost = _added(cut, short, chosen, positions, turns)
    if cost > room or covered.issuperset(cut.concepts):
        return None
    return cut, cost


def written(chosen: list[Candidate], turns: list[Turn]) -> str:
    return render([(turns[c.turn], c.text) for c in sorted(chosen, key=lambda c: c.position)])


_VECTORS: dict[str, object] = {}  # sentence -> its row, for the process's embedder (bounded)
_VECTORS_OF: list[object] = []  # the embedder the cache belongs to
VECTOR_CACHE = 4096  # rows (256 float32 each: about 4 MB at most)


def embed_sentences(texts: list[str]):
    """Unit rows of `texts` from the process's embedder; a sentence chosen at one rung is
    embedded again at the next, so rows are cached (cleared whole when full)."""
    import numpy as np

    from consolidator.model.embeddings import default_embedder

    embedder = default_embedder()
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    if not _VECTORS_OF or _VECTORS_OF[0] is not embedder:
        _VECTORS.clear()
        _VECTORS_OF[:] = [embedder]
    rows = {t: _VECTORS[t] for t in texts if t in _VECTORS}  # a snapshot: another thread may clear
    missing = [t for t in dict.fromkeys(texts) if t not in rows]
    if missing:
        rows.update(zip(missing, embedder.embed(missing)))
        if len(_VECTORS) + len(missing) > VECTOR_CACHE:
            _VECTORS.clear()
        _VECTORS.update((t, rows[t]) for t in missing)
    return np.stack([rows[t] for t in texts])
