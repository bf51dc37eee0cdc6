"""The `consolidator` command line: one module per command group, shared helpers in `common`."""

from consolidator.cli.main import cli, main

__all__ = ["cli", "main"]
