"""Every command and option of the command line says what it is in `--help`."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from consolidator.cli import cli


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    yield path, group
    for name, command in group.commands.items() if isinstance(group, click.Group) else ():
        yield from _commands(command, path + (name,))


COMMANDS = list(_commands(cli))


def test_the_walk_reaches_the_commands_users_run():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"import", "run", "status", "recall", "contacts", "tasks", "facts", "forget", "export"} <= names


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(path) or "consolidator" for path, _ in COMMANDS])
def test_every_command_and_option_has_help(path, command):
    assert command.help, f"{' '.join(path) or 'consolidator'}: no help text"
    bare = [p.opts[0] for p in command.params if isinstance(p, click.Option) and not p.help]
    assert not bare, f"{' '.join(path) or 'consolidator'}: options without help: {bare}"


def test_help_shows_an_options_meaning():
    result = CliRunner().invoke(cli, ["contacts", "--help"])
    assert result.exit_code == 0
    assert "The scope whose contacts to list." in " ".join(result.output.split())
