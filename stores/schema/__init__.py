"""The schema: every table class, apart from the queries (stores/*.py) and the files (stores/files/).

Importing the package puts every table on SQLModel.metadata (what stores/migrations.py creates
and stores/erase.py walks). A schema module imports only column types, bounds and the engine's
key type: never a query module.
"""

from stores.schema import archive, daemon, ladders, ledger, log, memory, model  # noqa: F401  (every table)
from stores.schema import tables  # noqa: F401  (topic tables of facts)
