"""Imports every table module so that SQLModel.metadata knows the whole schema."""

from stores import contacts, facts, faults, interactions, lease, ledger, messages, model_calls, summaries, tasks, view_versions  # noqa: F401
from stores import holds, ladder_state  # noqa: F401  (the ladders' held windows, cursors and dirty windows)
from stores import scope_head  # noqa: F401  (each scope's seq counter, locked by appends)
from stores import batch_requests  # noqa: F401  (model requests sent as Message Batches)
from stores import promised_summaries  # noqa: F401  (summaries asked with a batch's call)
from stores import work_queue  # noqa: F401  (the due-work queue and its claims)
from stores import archive_manifest, archived_ids  # noqa: F401  (the cold archive's manifest and archived ids)
from stores import cluster_verdicts  # noqa: F401  (clusters the model refused to merge)
from stores import archived_lookup, summary_manifest  # noqa: F401  (archived ids' expiry; archived summaries)
