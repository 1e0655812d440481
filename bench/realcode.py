"""Precision and recall of the default rules on real public training code.

    python bench/realcode.py [--labels bench/realcode_labels.toml] [--mirror DIR]
                             [--split dev|held-out] [--show fp,fn,unjudged] [--strict]
                             [--linter CHECKOUT]

The labels file lists public repositories at fixed commits, the files of each
that are linted, and labelled lines: `verdict = "bug"` for a real bug the
catalogue covers (a true positive when reported, a false negative when not)
and `verdict = "fp"` for a finding judged wrong. Every file is read from a
local git mirror (`<mirror>/<owner>+<name>/repo`, the layout the `fetch` tool
and `git clone --mirror` give), written into a scratch tree, and linted in ONE
run of `python -m trainlint` with the default selection, as users run it.

A finding counts by (path, line, code). A finding that no label judges is
"unjudged": it counts against precision (an unlabelled finding is presumed
wrong until someone reads the code) and is listed so it can be labelled.
With `--strict` the exit status is 1 when any finding is unjudged.
`--linter` runs the linter of another checkout (an older commit, to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LABELS = ROOT / "bench" / "realcode_labels.toml"
DEFAULT_MIRROR = Path(os.environ.get("TRAINLINT_MIRROR", "/work/.mirror"))
VERDICTS = ("bug", "fp")

Key = tuple[str, str, int, str]  # repo, path, line, code


@dataclass(frozen=True)
class Repo:
    name: str
    commit: str
    split: str
    paths: tuple[str, ...]

    @property
    def folder(self) -> str:
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class Label:
    key: Key
    verdict: str
    why: str


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    unjudged: int = 0

    @property
    def precision(self) -> float | None:
        reported = self.tp + self.fp + self.unjudged
        return self.tp / reported if reported else None

    @property
    def recall(self) -> float | None:
        bugs = self.tp + self.fn
        return self.tp / bugs if bugs else None


def load_labels(path: Path) -> tuple[list[Repo], dict[Key, Label]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    repos = [
        Repo(r["name"], r["commit"], r.get("split", "held-out"), tuple(r["paths"])) for r in data["repos"]
    ]
    known = {r.name: r for r in repos}
    labels: dict[Key, Label] = {}
    for entry in data.get("labels", []):
        key: Key = (entry["repo"], entry["path"], int(entry["line"]), entry["code"])
        repo = known.get(key[0])
        if repo is None or key[1] not in repo.paths:
            raise SystemExit(f"label for a file that is not linted: {key}")
        if entry["verdict"] not in VERDICTS or key in labels:
            raise SystemExit(f"label {key}: verdict must be one of {VERDICTS}, once per line and code")
        labels[key] = Label(key, entry["verdict"], entry.get("why", ""))
    return repos, labels


def materialize(repos: list[Repo], mirror: Path, into: Path) -> None:
    """Write each labelled file, as it is at the pinned commit, under `into/<owner+name>/`."""
    for repo in repos:
        git_dir = mirror / repo.folder / "repo"
        if (git_dir / ".git").is_dir():  # a mirror with a work tree
            git_dir = git_dir / ".git"
        if not git_dir.exists():
            raise SystemExit(f"no mirror of {repo.name} at {git_dir}: fetch it first")
        for rel in repo.paths:
            text = subprocess.run(
                ["git", "--git-dir", str(git_dir), "show", f"{repo.commit}:{rel}"],
                check=True, capture_output=True,
            ).stdout
            target = into / repo.folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text)


def linter_import(linter: Path, scratch: Path) -> tuple[str, str]:
    """The module to run with `-m` and the PYTHONPATH that imports `linter`'s code.

    A checkout that installs its `lint/` as `trainlint` (and `rules/` as
    `trainlint.rules`) is laid out that way under `scratch` with links, so that
    it comes before any installed trainlint; an older checkout is imported as it
    is, as the top-level `lint` package it was then.
    """
    if "from trainlint" not in (linter / "lint" / "cli.py").read_text(encoding="utf-8"):
        return "lint", str(linter)
    package = scratch / "trainlint"
    package.mkdir(parents=True)
    for entry in (linter / "lint").iterdir():
        if entry.name not in ("__pycache__", "rules"):  # a checkout may link lint/rules itself
            (package / entry.name).symlink_to(entry)
    (package / "rules").symlink_to(linter / "rules")
    return "trainlint", str(scratch)


def lint_tree(tree: Path, linter: Path) -> list[dict]:
    """One default run over the whole scratch tree, with `linter`'s code."""
    with tempfile.TemporaryDirectory(prefix="trainlint-linter-") as scratch:
        module, path = linter_import(linter, Path(scratch))
        env = {**os.environ, "PYTHONPATH": path}
        done = subprocess.run(
            [sys.executable, "-m", module, "check", "--format", "json", "--no-cache", "--exit-zero", "."],
            cwd=tree, env=env, capture_output=True, text=True, check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"trainlint failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def finding_keys(findings: list[dict], repos: list[Repo]) -> set[Key]:
    names = {r.folder: r.name for r in repos}
    keys: set[Key] = set()
    for finding in findings:
        folder, _, rel = Path(finding["path"]).as_posix().partition("/")
        keys.add((names[folder], rel, finding["line"], finding["code"]))
    return keys


def score(found: set[Key], labels: dict[Key, Label], repos: list[Repo], split: str | None) -> dict[str, Tally]:
    """Tallies per rule code, plus "all"."""
    wanted = {r.name for r in repos if split is None or r.split == split}
    tallies: dict[str, Tally] = {}

    def tally(code: str) -> list[Tally]:
        return [tallies.setdefault(code, Tally()), tallies.setdefault("all", Tally())]

    for key in found:
        if key[0] not in wanted:
            continue
        label = labels.get(key)
        for t in tally(key[3]):
            if label is None:
                t.unjudged += 1
            elif label.verdict == "bug":
                t.tp += 1
            else:
                t.fp += 1
    for key, label in labels.items():
        if key[0] in wanted and label.verdict == "bug" and key not in found:
            for t in tally(key[3]):
                t.fn += 1
    return tallies


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_table(title: str, tallies: dict[str, Tally]) -> None:
    print(f"\n{title}")
    print(f"{'rule':<6} {'TP':>4} {'FP':>4} {'unjudged':>8} {'FN':>4} {'precision':>9} {'recall':>6}")
    for code in sorted(tallies, key=lambda c: (c == "all", c)):
        t = tallies[code]
        print(f"{code:<6} {t.tp:>4} {t.fp:>4} {t.unjudged:>8} {t.fn:>4} {_ratio(t.precision):>9} {_ratio(t.recall):>6}")


def print_details(show: set[str], found: set[Key], labels: dict[Key, Label]) -> None:
    for key in sorted(found | set(labels)):
        label = labels.get(key)
        where = f"{key[0]}:{key[1]}:{key[2]}: {key[3]}"
        if key in found and label is None and "unjudged" in show:
            print(f"unjudged  {where}")
        elif key in found and label is not None and label.verdict == "fp" and "fp" in show:
            print(f"fp        {where}  ({label.why})")
        elif key not in found and label is not None and label.verdict == "bug" and "fn" in show:
            print(f"missed    {where}  ({label.why})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--split", help="score one split only, e.g. dev or held-out (default: each, and all)")
    parser.add_argument("--show", default="", help="comma list of fp,fn,unjudged to list")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a finding is unjudged")
    parser.add_argument("--linter", type=Path, default=ROOT, help="checkout whose linter runs (default: this one)")
    args = parser.parse_args(argv)
    repos, labels = load_labels(args.labels)
    with tempfile.TemporaryDirectory(prefix="trainlint-realcode-") as scratch:
        tree = Path(scratch)
        materialize(repos, args.mirror, tree)
        found = finding_keys(lint_tree(tree, args.linter.resolve()), repos)
    files = sum(len(r.paths) for r in repos)
    print(f"{len(repos)} repositories, {files} files, {len(found)} findings, "
          f"{sum(l.verdict == 'bug' for l in labels.values())} labelled bugs")
    splits = [args.split] if args.split else [*sorted({r.split for r in repos}), None]
    for split in splits:
        print_table(f"split: {split or 'all'}", score(found, labels, repos, split))
    if args.show:
        print()
        print_details(set(args.show.split(",")), found, labels)
    unjudged = score(found, labels, repos, None).get("all", Tally()).unjudged
    return 1 if args.strict and unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
