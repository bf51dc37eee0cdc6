"""Imports every table module so that SQLModel.metadata knows the whole schema."""

from stores import contacts, facts, faults, interactions, lease, ledger, messages, model_calls, summaries, tasks, views  # noqa: F401
