"""Ordered, named passes over one shared document: how the summariser and the fact extractor run.

A pass is a small function with one signature, `(doc, settings) -> doc`, as structlog's
processors are: it reads what earlier passes left on the document, adds its own part and
returns the document (the same object, filled in). The order is a tuple declared once beside
the document it works on (summarise.SUMMARY_PASSES, extraction.EXTRACTION_PASSES), and
`run_passes` runs them in that order, so a pass can be read, tested or swapped alone
(`extractive_summary(..., passes=...)`) without touching the others or any module constant.
The weights are the one frozen OfflineSettings passed to every pass (tuning.py).
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from consolidator.model.offline.tuning import OfflineSettings

Doc = TypeVar("Doc")
Pass = Callable[[Doc, OfflineSettings], Doc]


def run_passes(doc: Doc, settings: OfflineSettings, passes: Sequence[Pass]) -> Doc:
    """`doc` after every pass of `passes`, in order."""
    for step in passes:
        doc = step(doc, settings)
    return doc
