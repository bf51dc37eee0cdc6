"""What every command group shares: the exit-2 error, the app of a context, scope checks, progress."""

from __future__ import annotations

import sys

import click

from consolidator.runtime.app import App, open_app
from consolidator.runtime.clock import utcnow
from consolidator.runtime.config import ConfigError
from stores.scopes import InvalidScope, validate_scope

__all__ = ["ProgressBar", "UserError", "app_of", "scope_argument", "utcnow"]


class UserError(click.ClickException):
    """Bad input or configuration: exit code 2."""

    exit_code = 2


def app_of(ctx: click.Context) -> App:
    obj = ctx.ensure_object(dict)
    if "app" not in obj:
        try:
            obj["app"] = open_app(config=obj.get("config"))
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        ctx.call_on_close(obj["app"].close)
    return obj["app"]


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
