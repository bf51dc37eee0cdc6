"""What `run --once` leaves undone, in one line per problem: its exit code is 1 when any.

A drain can finish with batch steps retrying or failed (recorded in the ledger), ladder
windows held (a failed or budget-deferred summary call), or faults met on the way (a scope
whose snapshots could not be written). Each is said once, with where to look next.
"""

from __future__ import annotations

from consolidator.core.app import App
from consolidator.core.faults import OpenFault
from stores.engine import reading
from stores.ledger import batch_counts
from stores.holds import count_holds


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 scope', '2 scopes' ('1 batch', '2 batches' with `many`): every report counts this way."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def unfinished(app: App, faults: list[OpenFault]) -> list[str]:
    """One line per kind of unfinished work after a drain (empty: everything due was done)."""
    lines = [f"{f.where}{f' [{f.scope}]' if f.scope else ''}: {f.cause}" for f in faults]
    with reading(app.engine) as session:
        batches = batch_counts(session)
        holds = count_holds(session)
    retrying = sum(c["retrying"] for c in batches.values())
    failed = sum(c["failed"] for c in batches.values())
    if retrying or failed:
        lines.append(f"{plural(retrying + failed, 'batch', 'batches')} not done: {retrying} with a step retrying, "
                     f"{failed} with a step failed (see `consolidator status`; `consolidator retry` re-arms failed steps)")
    held = sum(holds.values())
    if held:
        scopes = ", ".join(sorted(holds))
        lines.append(f"{plural(held, 'ladder window')} held after a failed or deferred summary call "
                     f"(scopes: {scopes}); retried after their wait")
    return lines
