"""Throwaway databases on a PostgreSQL server, for the multi-daemon test and bench/scale.py."""

from __future__ import annotations

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


def fresh_database(base: str, name: str) -> str:
    """A new empty database on the server of `base` (dropped first if left over); its URL."""
    drop_database(base, name)
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(base).set(database=name).render_as_string(hide_password=False)


def drop_database(base: str, name: str) -> None:
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()
