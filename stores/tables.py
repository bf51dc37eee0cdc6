"""Imports every table module so that SQLModel.metadata knows the whole schema."""

from stores import contacts, facts, faults, interactions, lease, ledger, messages, model_calls, summaries, tasks, views  # noqa: F401
from stores import holds, ladder_state  # noqa: F401  (the ladders' held windows, cursors and dirty windows)
from stores import archive_manifest, archived_ids  # noqa: F401  (the cold archive's manifest and archived ids)
