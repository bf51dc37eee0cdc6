"""consolidator: an offline memory-consolidation daemon for LLM agents.

Agents log messages with `MessageLog`; the daemon (`consolidator run`) cuts them into
batches, consolidates each batch into contacts, facts and tasks, keeps two summary ladders
per scope, and publishes everything as snapshot files a planner reads every turn.
"""

from consolidator.snapshots.context import read_context
from consolidator.facts.api import mark_used
from consolidator.messages.log import MessageLog

__all__ = ["MessageLog", "mark_used", "read_context"]
