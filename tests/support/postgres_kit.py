"""A PostgreSQL database with a fresh schema for a test (`pg_url`, skipped without a URL in
CONSOLIDATOR_TEST_DATABASE_URLS), and `fresh`, any database's schema made anew for one test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from stores.migrations import create_schema, drop_schema
from stores.engine import make_engine


def postgres_url() -> str | None:
    """The first PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS (the contract suite's list)."""
    urls = os.environ.get("CONSOLIDATOR_TEST_DATABASE_URLS", "").split()
    return next((url for url in urls if url.startswith("postgresql")), None)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL database with a fresh schema, emptied afterwards; skip without one."""
    url = postgres_url()
    if url is None:
        pytest.skip("no PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS")
    yield from fresh(url)


def fresh(url: str) -> Iterator[str]:
    """The database at `url` with a fresh schema, emptied after the test."""
    engine = make_engine(url)
    drop_schema(engine)
    create_schema(engine)
    engine.dispose()
    yield url
    engine = make_engine(url)
    drop_schema(engine)
    engine.dispose()
