"""What every command group shares: the one place faults become one line and an exit code,
the app of a context, scope checks, plurals, progress.

Exit codes: 2 for bad input or configuration (ConfigError, an unusable state directory, a
bad plugin, an unknown scope or id), 1 for a runtime fault (a full disk, a read-only
database or snapshot directory, any other OSError). Never a traceback for those: the
command group (`FaultGroup`) turns them into `Error: <cause>: <file, key or path>`.
"""

from __future__ import annotations

import errno
import sys

import click

from consolidator.pipeline.steps import PluginError
from consolidator.core.app import App, open_app
from consolidator.core.clock import utcnow
from consolidator.core.config import ConfigError, printable
from consolidator.core.faults import describe
from consolidator.runtime.outcome import plural
from stores.engine import reading
from stores.errors import StorageError
from stores.messages import scopes as known_scopes
from stores.scopes import InvalidScope, validate_scope

__all__ = ["FaultGroup", "ProgressBar", "RuntimeFault", "UserError", "app_of", "existing_scope", "plural",
           "scope_argument", "utcnow"]


class UserError(click.ClickException):
    """Bad input or configuration: exit code 2."""

    exit_code = 2


class RuntimeFault(click.ClickException):
    """The command could not do its work (disk full, read-only, unreachable): exit code 1."""

    exit_code = 1


def as_click_error(exc: BaseException) -> click.ClickException | None:
    """The one-line error a project exception or OSError stands for (None: not ours to say)."""
    if isinstance(exc, (ConfigError, PluginError, InvalidScope)):
        return UserError(str(exc))
    if isinstance(exc, StorageError):
        return RuntimeFault(str(exc))
    if isinstance(exc, OSError) and exc.errno != errno.EPIPE:  # a closed stdout is click's to handle
        return RuntimeFault(describe(exc))
    return None


class FaultGroup(click.Group):
    """A command group whose commands report faults in one line instead of a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.exceptions.ClickException as exc:
            exc.message = printable(exc.message)
            raise
        except Exception as exc:
            error = as_click_error(exc)
            if error is None:
                raise
            error.message = printable(error.message)
            raise error from None


def app_of(ctx: click.Context, reader: bool = False, patient: bool = False) -> App:
    """The opened state (once per command). `reader`: a read-only database is acceptable;
    `reader` or `patient`: so is a database server that does not answer yet (App.unreachable)."""
    obj = ctx.find_root().ensure_object(dict)
    if "app" not in obj:
        obj["app"] = open_app(config=obj.get("config"), reader=reader, patient=patient)
        ctx.call_on_close(obj["app"].close)
    return obj["app"]


def existing_scope(ctx: click.Context, value: str | None, option: str = "--scope") -> str | None:
    """A validated scope that has messages (None stays None), or exit 2 naming the known ones."""
    scope = scope_argument(value, option)
    if scope is None:
        return None
    with reading(app_of(ctx).engine) as session:
        names = known_scopes(session)
    if scope not in names:
        shown = ", ".join(names[:10]) + (f", ... ({len(names)} in all)" if len(names) > 10 else "")
        raise UserError(f"{option}: unknown scope {scope!r} (known: {shown or 'none yet'})")
    return scope



def scope_argument(value: str | None, option: str = "--scope") -> str | None:
    """A validated scope name (None stays None), or exit 2 naming the option."""
    try:
        return None if value is None else validate_scope(value)
    except InvalidScope as exc:
        raise UserError(f"{option}: {exc}") from None


class ProgressBar:
    """A progress bar on a terminal; silent otherwise. Call it with the amount done."""

    def __init__(self, label: str, show: bool, length: int = 1) -> None:
        self._bar = click.progressbar(length=max(1, length), label=label, file=sys.stderr, show_pos=True) if show else None

    def __enter__(self) -> "ProgressBar":
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __call__(self, n: int) -> None:
        if self._bar is not None:
            self._bar.length = max(self._bar.length, self._bar.pos + n)
            self._bar.update(n)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
