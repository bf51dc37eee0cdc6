"""A split's parts (facts/tables.py): the model's reply checked into usable parts, and the names
they take."""

from __future__ import annotations

import numpy as np

from consolidator.model.offline.tables import fold_small
from consolidator.model.schemas import SplitTableReply
from stores.fact_tables import NAME_MAX


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def usable_parts(reply: SplitTableReply, ids: list[str], vectors: np.ndarray, min_facts: int,
                 max_facts: int | None = None) -> list[tuple[str, str, list[int]]] | None:
    """The reply's parts as (name, description, row indices): every id in exactly one part (first
    listing wins, unknown ids ignored, unlisted ids to the nearest part), parts under `min_facts`
    joined to their nearest; None when fewer than two parts remain."""
    index = {fid: k for k, fid in enumerate(ids)}
    seen: set[int] = set()
    parts: list[tuple[str, str, list[int]]] = []
    for table in reply.tables:
        rows = [index[f] for f in table.facts if f in index and index[f] not in seen]
        seen.update(rows)
        if rows:
            name = " ".join(table.name.split())[:NAME_MAX] or "table"
            parts.append((name, " ".join(table.description.split())[:300], rows))
    if len(parts) < 2:
        return None
    rest = [k for k in range(len(ids)) if k not in seen]
    if rest:
        centres = unit_rows(np.stack([vectors[p[2]].mean(axis=0) for p in parts]))
        for k, j in zip(rest, np.argmax(vectors[rest] @ centres.T, axis=1).tolist()):
            parts[j][2].append(k)
    groups = fold_small([p[2] for p in parts], vectors, min_facts, max_facts)
    if len(groups) < 2:
        return None
    first = {p[2][0]: (p[0], p[1]) for p in parts}
    out = []
    for group in groups:
        name, description = next(first[k] for k in group if k in first)
        out.append((name, description, sorted(group)))
    return out


def unique_name(name: str, taken: dict[str, str]) -> str:
    """`name` (cut to the column, NAME_MAX) or, when a table has it, `name n`: no name over NAME_MAX."""
    name = name[:NAME_MAX]
    folded = {n.casefold() for n in taken}
    fresh, n = name, 1
    while fresh.casefold() in folded:
        n += 1
        fresh = f"{name[:NAME_MAX - 1 - len(str(n))]} {n}"
    return fresh
