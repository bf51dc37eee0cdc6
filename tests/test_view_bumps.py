"""View versions: `bump_once` raises a view once per transaction, `bump` every time."""

from __future__ import annotations

from stores.engine import reading, transaction
from stores.view_versions import bump, bump_once, stale
from tests.support.work_queue_kit import any_app  # noqa: F401  (a fixture)


def versions(app) -> dict[tuple[str, str], int]:
    with reading(app.engine) as session:
        return {(scope, view): version for scope, view, version in stale(session)}


def test_bump_once_raises_each_view_once_per_transaction(any_app) -> None:
    """Thirty windows of a rung stored together raise its view by one; another view, another
    scope or a later transaction is raised again."""
    with transaction(any_app.engine) as session:
        for _ in range(30):
            bump_once(session, "a", "time.day")
        bump_once(session, "a", "time.week")
        bump_once(session, "b", "time.day")
    assert versions(any_app) == {("a", "time.day"): 1, ("a", "time.week"): 1, ("b", "time.day"): 1}
    with transaction(any_app.engine) as session:
        bump_once(session, "a", "time.day")
        bump(session, "a", "time.day")  # the plain bump always raises
    assert versions(any_app)[("a", "time.day")] == 3


def test_a_rolled_back_bump_once_does_not_hide_the_next(any_app) -> None:
    """A transaction that failed leaves no mark: the retry's bump_once raises the view."""
    try:
        with transaction(any_app.engine) as session:
            bump_once(session, "a", "facts")
            raise RuntimeError("the write failed")
    except RuntimeError:
        pass
    assert versions(any_app) == {}
    with transaction(any_app.engine) as session:
        bump_once(session, "a", "facts")
    assert versions(any_app) == {("a", "facts"): 1}
