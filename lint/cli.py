"""The `trainlint` command line."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import click

from trainlint import __version__, reporters
from trainlint.cache import CACHE_DIR, clear
from trainlint.check import CheckRequest, execute
from trainlint.check_output import fail
from trainlint.config import find_config

SUBCOMMANDS = ("check", "rules", "explain", "clean", "server")


class _DefaultToCheck(click.Group):
    """`trainlint PATHS...` means `trainlint check PATHS...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """An internal failure exits 2, as a usage or configuration error does,
        never 1, which says that findings remain; the traceback is kept."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception:
            traceback.print_exc()
            click.echo("trainlint: internal error (traceback above); please report it", err=True)
            ctx.exit(2)


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainlint")
def main() -> None:
    """Find the bugs people write into PyTorch training code.

    `trainlint PATHS...` lints (same as `trainlint check PATHS...`); to lint a
    directory named like a subcommand, write `./rules`.
    """


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Codes or prefixes to run, comma-separated or repeated (replaces the configured selection).")
@click.option("--ignore", multiple=True, help="Codes or prefixes not to run, comma-separated or repeated.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to run in addition.")
@click.option("--extend-ignore", multiple=True, help="Codes or prefixes not to run, in addition to the configured `ignore`.")
@click.option("--format", "--output-format", "output_format", type=click.Choice(sorted(reporters.FORMATS)), default="text", show_default=True)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report to this file instead of stdout.")
@click.option("--fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff instead of writing them; exit 1 if there are any.")
@click.option("--show-fixes", is_flag=True, help="With --fix or --diff, list what was fixed, per file and rule.")
@click.option("--add-noqa", is_flag=True, help="Add a `# noqa: CODE` to every line with a finding (to baseline an existing codebase).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when fixes were applied, even if no finding remains.")
@click.option("--statistics", is_flag=True, help="Print only the number of findings per rule.")
@click.option("--timings", is_flag=True, help="Also print the slowest files and the time of each rule and analysis (on stderr).")
@click.option("--exclude", multiple=True, help="Globs of paths to skip (replaces the configured `exclude`).")
@click.option("--extend-exclude", multiple=True, help="Globs of paths to skip, in addition to `exclude`.")
@click.option("--extend-include", multiple=True, metavar="GLOBS", help="Globs of files to lint in folders beside *.py, in addition to the configured `extend-include` ('*.ipynb': notebooks).")
@click.option("--per-file-ignores", multiple=True, metavar="GLOB:CODES", help="Rules not to run on matching files (replaces the configured table); repeatable.")
@click.option("--extend-per-file-ignores", multiple=True, metavar="GLOB:CODES", help="As --per-file-ignores, adding to the configured table.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files that .gitignore files ignore (default: yes, or `respect-gitignore` in the configuration).")
@click.option("--stdin-filename", metavar="PATH", help="With `-` as the path: lint standard input as this file (config, per-file ignores and exclusion apply).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else.")
@click.option("-v", "--verbose", is_flag=True, help="Also print the configuration, the rules and what was linted (on stderr).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (default: one per CPU).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Read settings from this file.")
def check(**options: Any) -> None:
    """Lint PATHS (default: the current directory)."""
    sys.exit(execute(CheckRequest(**options)))


def _fail(message: str) -> None:
    sys.exit(fail(message))


@main.command(name="rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def list_rules(output_format: str) -> None:
    """List every rule: code, name, severity, fixable, default on/off."""
    from trainlint.docs import rules_table
    from trainlint.registry import all_rules

    click.echo(rules_table(all_rules(), output_format), nl=False)


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Show a rule's documentation and examples (by code or name)."""
    from trainlint.docs import explain_text
    from trainlint.registry import by_name_or_code

    rule = by_name_or_code(code)
    if rule is None:
        _fail(f"unknown rule {code!r}; `trainlint rules` lists them")
        return
    click.echo(explain_text(rule))


@main.command(name="clean")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
def clean(directory: str | None) -> None:
    """Remove the result cache (.trainlint_cache)."""
    root = Path(directory) if directory else Path.cwd()
    found = find_config(root.resolve())
    base = found.parent if found is not None else root
    removed = clear(base / CACHE_DIR)
    click.echo(f"{'Removed' if removed else 'No cache at'} {base / CACHE_DIR}")


@main.command()
def server() -> None:
    """Run the language server for editors (LSP over stdin/stdout)."""
    try:
        from trainlint.lsp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        _fail(f"`trainlint server` needs pygls 2 ({exc}): pip install 'trainlint[lsp]'")
        return
    serve()
