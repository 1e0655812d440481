"""`.gitignore` files are respected when folders are walked, with git's
semantics: negation, anchoring, folder-only patterns, `**`, nested files and
`.git/info/exclude`; `--no-respect-gitignore` turns it off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import DP_BUG, invoke

from trainlint.gitignore import parse_line


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.py", "a/b/c.py", False, True),
        ("*.py", "c.pyc", False, False),
        ("/build", "build", True, True),
        ("/build", "src/build", True, False),
        ("doc/*.py", "doc/a.py", False, True),
        ("doc/*.py", "doc/x/a.py", False, False),
        ("doc/*.py", "src/doc/a.py", False, False),
        ("out/", "out", True, True),
        ("out/", "deep/out", True, True),
        ("out/", "out", False, False),
        ("**/gen", "gen", True, True),
        ("**/gen", "a/b/gen", True, True),
        ("a/**/b.py", "a/b.py", False, True),
        ("a/**/b.py", "a/x/y/b.py", False, True),
        ("a/**", "a/x/y.py", False, True),
        ("a/**", "a", True, False),
        ("x?.py", "x1.py", False, True),
        ("x?.py", "x/.py", False, False),
        ("[!a]b.py", "cb.py", False, True),
        ("[!a]b.py", "ab.py", False, False),
        ("[ab]*.py", "b_test.py", False, True),
        ("\\#hash.py", "#hash.py", False, True),
        ("\\!bang.py", "!bang.py", False, True),
        ("trailing.py   ", "trailing.py", False, True),
        ("space\\ ", "space ", False, True),
    ],
)
def test_pattern_semantics(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    parsed = parse_line(pattern)
    assert parsed is not None and not parsed.negated
    assert parsed.matches(path, is_dir) is expected


def test_comments_blanks_and_negation() -> None:
    assert parse_line("# a comment") is None and parse_line("   ") is None and parse_line("/") is None
    negated = parse_line("!keep.py")
    assert negated is not None and negated.negated and negated.matches("src/keep.py", False)


def _repo(root: Path) -> Path:
    files = {
        "train.py": DP_BUG,
        "generated/model_pb2.py": DP_BUG,
        "src/train.py": DP_BUG,
        "src/api_pb2.py": DP_BUG,
        "src/keep_pb2.py": DP_BUG,
        "src/scratch.py": DP_BUG,
        "src/out/x.py": DP_BUG,
        "src/out.py": DP_BUG,
        "src/deep/top_only.py": DP_BUG,
        "top_only.py": DP_BUG,
        "data/raw.py": DP_BUG,
        "data/keep.py": DP_BUG,
        "local/mine.py": DP_BUG,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("local/\n")
    (root / ".gitignore").write_text(
        "# generated code\ngenerated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\nout/\ndata/\n!data/keep.py\n"
    )
    (root / "src" / ".gitignore").write_text("scratch.py\n")
    return root


def _paths(out: str) -> set[str]:
    return {d["path"] for d in json.loads(out)}


def test_discovery_skips_what_git_ignores(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _, out, _ = invoke(".", "--format", "json", "--no-cache", cwd=repo)
    assert _paths(out) == {"train.py", "src/train.py", "src/keep_pb2.py", "src/out.py", "src/deep/top_only.py"}


def test_a_walk_below_the_root_still_reads_the_parents_gitignore(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _, out, _ = invoke("src", "--format", "json", "--no-cache", cwd=repo)
    assert _paths(out) == {"src/train.py", "src/keep_pb2.py", "src/out.py", "src/deep/top_only.py"}
    _, out, _ = invoke(".", "--format", "json", "--no-cache", cwd=repo / "src")
    assert _paths(out) == {"train.py", "keep_pb2.py", "out.py", "deep/top_only.py"}


def test_explicit_files_are_linted_even_if_ignored(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _, out, _ = invoke("src/scratch.py", "generated/model_pb2.py", "--format", "json", "--no-cache", cwd=repo)
    assert _paths(out) == {"src/scratch.py", "generated/model_pb2.py"}


def test_no_respect_gitignore_and_the_setting(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _, out, _ = invoke(".", "--no-respect-gitignore", "--format", "json", "--no-cache", cwd=repo)
    assert len(_paths(out)) == 13
    (repo / "pyproject.toml").write_text("[tool.trainlint]\nrespect-gitignore = false\n")
    _, out, _ = invoke(".", "--format", "json", "--no-cache", cwd=repo)
    assert len(_paths(out)) == 13
    _, out, _ = invoke(".", "--respect-gitignore", "--format", "json", "--no-cache", cwd=repo)
    assert len(_paths(out)) == 5
    (repo / "pyproject.toml").write_text('[tool.trainlint]\nrespect-gitignore = "no"\n')
    code, _, err = invoke(".", cwd=repo)
    assert code == 2 and "respect-gitignore" in err


def test_outside_a_repository_only_the_walked_folders_count(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.py\n")
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "a.py").write_text(DP_BUG)
    (project / "sub" / "b.py").write_text(DP_BUG)
    (project / "sub" / ".gitignore").write_text("b.py\n")
    _, out, _ = invoke(".", "--format", "json", "--no-cache", cwd=project)
    assert _paths(out) == {"a.py"}, "the parent's .gitignore is not this project's; sub/.gitignore is"
