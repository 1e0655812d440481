"""The `trainlint` command line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from lint import __version__, reporters
from lint.cache import CACHE_DIR, clear
from lint.config import Config, ConfigError, find_config, load_config, parse_code_list, select_rules
from lint.discovery import discover
from lint.runner import RunOptions, run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("check", "rules", "explain", "clean", "server")


class _DefaultToCheck(click.Group):
    """`trainlint PATHS...` means `trainlint check PATHS...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainlint")
def main() -> None:
    """Find the bugs people write into PyTorch training code.

    `trainlint PATHS...` lints (same as `trainlint check PATHS...`); to lint a
    directory named like a subcommand, write `./rules`.
    """


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated codes or prefixes to run (replaces the configured selection).")
@click.option("--ignore", help="Comma-separated codes or prefixes not to run.")
@click.option("--extend-select", help="Comma-separated codes or prefixes to run in addition.")
@click.option("--format", "output_format", type=click.Choice(sorted(reporters.FORMATS)), default="text", show_default=True)
@click.option("--fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff instead of writing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (default: one per CPU).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Read settings from this file.")
def check(
    paths: tuple[str, ...],
    select: str | None,
    ignore: str | None,
    extend_select: str | None,
    output_format: str,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    exit_zero: bool,
    statistics: bool,
    jobs: int,
    no_cache: bool,
    config_path: str | None,
) -> None:
    """Lint PATHS (default: the current directory)."""
    targets = list(paths) or ["."]
    try:
        config = _config(targets, config_path)
        chosen = select_rules(
            parse_code_list(select, "--select") if select is not None else config.select,
            [*config.extend_select, *(parse_code_list(extend_select, "--extend-select") or [])],
            [*config.ignore, *(parse_code_list(ignore, "--ignore") or [])],
        )
    except ConfigError as exc:
        _fail(str(exc))
        return
    found = discover(targets, config)
    for error in found.errors:
        click.echo(f"trainlint: error: {error}", err=True)
    fix_mode = ("unsafe" if unsafe_fixes else "safe") if (fix or diff) else None
    cache_dir = None if no_cache or fix_mode else config.root / CACHE_DIR
    result = run(found.files, chosen, config, RunOptions(fix_mode, diff, jobs, cache_dir))
    for error in result.errors:
        click.echo(f"trainlint: error: {error}", err=True)
    for patch in result.diffs:
        click.echo(patch, nl=False)
    if output_format != "text" or result.findings or (found.files and not diff):
        click.echo(reporters.FORMATS[output_format](result.findings), nl=False)
    if statistics:
        click.echo(reporters.statistics(result.findings), nl=False, err=output_format != "text")
    if fix and not diff and result.fixes_applied:
        click.echo(f"Fixed {result.fixes_applied} finding(s) in {result.fixed_files} file(s).", err=output_format != "text")
    if diff and result.fixes_applied:
        click.echo(f"Would fix {result.fixes_applied} finding(s).", err=True)
    if found.errors or result.errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if result.findings and not exit_zero else EXIT_CLEAN)


def _config(targets: list[str], config_path: str | None) -> Config:
    if config_path is not None:
        return load_config(Path(config_path), explicit=True)
    anchor = Path(os.path.commonpath([os.path.abspath(t) for t in targets]))
    while not anchor.exists() and anchor != anchor.parent:
        anchor = anchor.parent
    found = find_config(anchor)
    return load_config(found, fallback_root=Path.cwd())


def _fail(message: str) -> None:
    click.echo(f"trainlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command(name="rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def list_rules(output_format: str) -> None:
    """List every rule: code, name, severity, fixable, default on/off."""
    from lint.docs import rules_table
    from lint.registry import all_rules

    click.echo(rules_table(all_rules(), output_format), nl=False)


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Show a rule's documentation and examples (by code or name)."""
    from lint.docs import explain_text
    from lint.registry import by_name_or_code

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
        from lint.lsp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        _fail(f"`trainlint server` needs pygls 2 ({exc}): pip install 'trainlint[lsp]'")
        return
    serve()
