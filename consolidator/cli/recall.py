"""`consolidator recall`: what the memory holds for a query, within a token budget (no model call)."""

from __future__ import annotations

import json

import click

from consolidator.cli.common import RuntimeFault, UserError
from stores.errors import StorageError
from stores.files.recall_index import IndexUnreadable


@click.command("recall")
@click.option("--scope", required=True, help="The user (scope) whose memory is searched.")
@click.option("--budget", "budget", default=1000, show_default=True, type=int,
              help="Token budget of the block (50-100,000; about 4 characters a token).")
@click.option("--json", "as_json", is_flag=True, help="Print the block and the items chosen as one JSON object.")
@click.option("--table", default=None, help="Only the facts of this topic table (`consolidator facts tables`).")
@click.argument("query")
@click.pass_context
def recall_command(ctx, scope: str, budget: int, as_json: bool, table: str | None, query: str) -> None:
    """Print the memory's answer to QUERY: dated, tagged items within the budget, best first."""
    from consolidator.retrieval.read import MAX_BUDGET, MIN_BUDGET, recall

    config = ctx.find_root().ensure_object(dict).get("config")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise UserError(f"--budget: must be from {MIN_BUDGET} to {MAX_BUDGET:,} tokens, got {budget}")
    try:
        result = recall(scope, query, budget_tokens=budget, config=config, table=table)
    except ValueError as exc:
        raise UserError(str(exc).removeprefix("recall: ")) from None
    except (IndexUnreadable, StorageError) as exc:
        raise RuntimeFault(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
        return
    if result.note:
        click.echo(f"note: {result.note}", err=True)
    click.echo(result.text, nl=False)


COMMANDS = [recall_command]
