"""The store contract suite's engine: one fixture, parametrised by database URL.

Every test under tests/contract/ talks to stores/ through its public functions only, on a
fresh schema per test. SQLite always runs; set CONSOLIDATOR_TEST_DATABASE_URLS to a
space-separated list of extra URLs (PostgreSQL: "postgresql+psycopg://...") to run the same
tests unchanged against them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from stores.migrations import create_schema, drop_schema
from stores.engine import make_engine


def _urls() -> list[str]:
    extra = os.environ.get("CONSOLIDATOR_TEST_DATABASE_URLS", "").split()
    return ["sqlite"] + extra


@pytest.fixture(params=_urls(), ids=lambda url: url.split(":", 1)[0].split("+", 1)[0])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A store engine with the full schema: SQLite in a temporary file, or a fresh server schema."""
    url = request.param
    if url == "sqlite":
        made = make_engine(f"sqlite:///{tmp_path / 'contract.db'}")
        create_schema(made)
        yield made
        made.dispose()
        return
    made = make_engine(url)  # a server database of its own for the test run: emptied after each test
    create_schema(made)
    try:
        yield made
    finally:
        drop_schema(made)
        made.dispose()
