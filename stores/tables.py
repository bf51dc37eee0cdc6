"""Imports every table module so that SQLModel.metadata knows the whole schema."""

from stores import interactions, ledger, lease, messages, summaries  # noqa: F401
