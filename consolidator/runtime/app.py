"""Opening the embedded state: settings -> state directory, engine and schema.

Every entry point (CLI command, daemon, Python API) goes through `open_app`, so they all
agree on where the database and the snapshots are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stores.engine import Engine, create_schema, make_engine
from stores.shared_state import share_database_file

from consolidator.runtime.config import Settings, load_settings


@dataclass
class App:
    settings: Settings
    engine: Engine

    def close(self) -> None:
        self.engine.dispose()


def open_app(settings: Settings | None = None, config: Path | None = None) -> App:
    settings = settings or load_settings(config)
    settings.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    engine = make_engine(settings.db_url)
    create_schema(engine)
    share_database_file(settings.db_url)  # group-writable in a group-shared state directory
    return App(settings=settings, engine=engine)
