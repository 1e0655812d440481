"""The result cache: unchanged files are not analysed again; a change of
content, rule selection or linter code is; `--no-cache` neither reads nor
writes it; `trainlint clean` removes it. Parallel and serial runs agree."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import trainlint.cache
import trainlint.engine
from trainlint.cache import CACHE_DIR, ResultCache
from trainlint.cli import main
from trainlint.config import Config, select_rules
from trainlint.rule import Finding
from trainlint.runner import RunOptions, RunResult, run

REPO = Path(__file__).resolve().parents[2]

SOURCES = {
    "wrap.py": "import torch\nmodel = torch.nn.DataParallel(model)\n",
    "broken.py": "def train(:\n    pass\n",
    "clean.py": "import torch\nx = torch.zeros(3)\n",
    "plain.py": "print('no torch here')\n",
    "sub/wrap2.py": "from torch import nn\n\nclass Wrapped(nn.DataParallel):\n    pass\n",
    "sub/loop.py": (
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler()\n"
        "for batch in loader:\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(opt)\n"
    ),
}


# the rules these sources exercise; other rules would add findings of their own
SELECTED = ("TL000", "TL101", "TL301")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in SOURCES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.py") if CACHE_DIR not in p.parts)


def _lint(root: Path, cache: bool = True, ignore: tuple[str, ...] = (), jobs: int = 1) -> RunResult:
    selection = select_rules(list(SELECTED), [], list(ignore))
    options = RunOptions(jobs=jobs, cache_dir=root / CACHE_DIR if cache else None)
    return run(_files(root), selection, Config(root=root), options)


def _codes(result: RunResult) -> list[tuple[str, int, str]]:
    return [(Path(f.path).name, f.line, f.code) for f in result.findings]


def test_unchanged_files_come_from_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _lint(project)
    assert (first.analysed, first.from_cache) == (len(SOURCES), 0)
    assert {code for _, _, code in _codes(first)} == {"TL000", "TL101", "TL301"}

    calls: list[str] = []
    real = trainlint.engine.lint_bytes

    def spy(path: str, *args: object, **kwargs: object) -> object:
        calls.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trainlint.engine, "lint_bytes", spy)
    second = _lint(project)
    assert calls == []
    assert (second.analysed, second.from_cache) == (0, len(SOURCES))
    assert second.findings == first.findings
    _lint(project, cache=False)
    assert len(calls) == len(SOURCES)  # the spy does see the files that are analysed


def test_a_changed_file_is_analysed_again(project: Path) -> None:
    _lint(project)
    (project / "clean.py").write_text("import torch\nm = torch.nn.DataParallel(m)\n", encoding="utf-8")
    again = _lint(project)
    assert (again.analysed, again.from_cache) == (1, len(SOURCES) - 1)
    assert ("clean.py", 2, "TL301") in _codes(again)


def test_another_rule_selection_is_not_served_from_the_cache(project: Path) -> None:
    everything = _lint(project)
    without = _lint(project, ignore=("TL301",))
    assert without.analysed == len(SOURCES)
    assert "TL301" in {f.code for f in everything.findings}
    assert "TL301" not in {f.code for f in without.findings}


def test_another_linter_version_does_not_read_old_results(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lint(project)
    monkeypatch.setattr(trainlint.cache, "code_fingerprint", lambda: "changed-rules")
    assert _lint(project).analysed == len(SOURCES)


def test_a_corrupt_cache_file_is_ignored(project: Path) -> None:
    first = _lint(project)
    for index in (project / CACHE_DIR).glob("results-*.json"):
        index.write_text("{not json", encoding="utf-8")
    again = _lint(project)
    assert again.analysed == len(SOURCES)
    assert again.findings == first.findings


def _poison(root: Path) -> None:
    """Put a finding in the cache that no rule would produce, for clean.py."""
    cache = ResultCache(root / CACHE_DIR)
    key = next(k for k in cache.entries if k.split("\0", 1)[0].endswith("clean.py"))
    cache.put(key, [Finding(str(root / "clean.py"), 1, 1, 1, 2, "TL301", "data-parallel", "warning", "from the cache")])
    cache.save()


def _cli(root: Path, *args: str) -> tuple[int, str]:
    select = ["--select", ",".join(SELECTED)] if "--select" not in args else []
    outcome = CliRunner().invoke(main, ["check", "--exit-zero", "--format", "json", *select, *args, str(root)])
    return outcome.exit_code, outcome.output


def test_the_cli_reads_the_cache_and_no_cache_bypasses_it(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    status, _ = _cli(project)
    assert status == 0 and (project / CACHE_DIR).is_dir()
    _poison(project)
    _, cached = _cli(project)
    assert "from the cache" in cached
    _, uncached = _cli(project, "--no-cache")
    assert "from the cache" not in uncached
    assert json.loads(uncached) == [f for f in json.loads(cached) if f["message"] != "from the cache"]


def test_no_cache_does_not_create_one(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    _cli(project, "--no-cache")
    assert not (project / CACHE_DIR).exists()


def test_clean_removes_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    _cli(project)
    _poison(project)
    outcome = CliRunner().invoke(main, ["clean"])
    assert outcome.exit_code == 0 and "Removed" in outcome.output
    assert not (project / CACHE_DIR).exists()
    _, output = _cli(project)
    assert "from the cache" not in output
    assert _lint(project).from_cache == len(SOURCES)


def test_serial_and_parallel_runs_give_the_same_output(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    _, serial = _cli(project, "--no-cache", "--jobs", "1")
    _, parallel = _cli(project, "--no-cache", "--jobs", "2")
    assert json.loads(serial)
    assert serial == parallel
    _, filled = _cli(project, "--jobs", "2")
    _, from_cache = _cli(project, "--jobs", "1")
    assert filled == from_cache == serial


_PROBE = """
import sys
from trainlint.cli import main
try:
    main(["check", "--exit-zero", "--format", "json", "."], prog_name="trainlint")
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m == "libcst" or m.startswith(("trainlint.rules.", "trainlint.engine")))
print("LOADED", loaded, file=sys.stderr)
"""


def _modules_loaded(root: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=root, env=env, capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("LOADED "))
    return ast.literal_eval(line.removeprefix("LOADED "))


def test_a_run_served_from_the_cache_imports_neither_libcst_nor_the_rules(project: Path) -> None:
    assert "libcst" in _modules_loaded(project)  # the first run analyses every file
    assert _modules_loaded(project) == []
    (project / "clean.py").write_text("import torch\n", encoding="utf-8")
    assert "libcst" in _modules_loaded(project)


def test_the_manifest_describes_the_registered_rules() -> None:
    from trainlint.manifest import manifest
    from trainlint.registry import all_rules

    described = [(r.code, r.name, r.severity, r.preview) for r in manifest().rules]
    assert described == [(r.code, r.name, r.severity, r.preview) for r in all_rules()]


def test_the_manifest_stamp_changes_with_any_source_file(tmp_path: Path) -> None:
    from trainlint.manifest import _stamp

    sources = [tmp_path / "a.py", tmp_path / "b.py"]
    for path in sources:
        path.write_text("x = 1\n", encoding="utf-8")
    before = _stamp(sources)
    assert _stamp(sources) == before
    sources[1].write_text("x = 22\n", encoding="utf-8")
    assert _stamp(sources) != before
    os.utime(sources[1], ns=(1, 1))
    changed_time = _stamp(sources)
    os.utime(sources[1], ns=(2, 2))
    assert _stamp(sources) != changed_time


# -- projects: findings that depend on other files ------------------------------
PROJECT_SOURCES = {
    "memory.py": "import torch\n\ndef release():\n    torch.cuda.empty_cache()\n",
    "steps.py": (
        "from memory import release\n\n"
        "def train_step(model, batch, optimizer):\n"
        "    model(batch).sum().backward()\n"
        "    optimizer.step()\n"
        "    release()\n"
    ),
    "train.py": (
        "import torch\nfrom steps import train_step\n\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        optimizer.zero_grad()\n"
        "        train_step(model, batch, optimizer)\n"
    ),
    "models.py": "import torch\n\ndef build():\n    return torch.nn.Linear(2, 2).cuda()\n",
}


@pytest.fixture
def calls_across_files(tmp_path: Path) -> Path:
    for name, text in PROJECT_SOURCES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _lint_project(root: Path) -> tuple[RunResult, set[str]]:
    """A cached run of the default rules, and the files it analysed."""
    analysed: list[str] = []
    real = trainlint.engine.lint_bytes

    def spy(path: str, *args: object, **kwargs: object) -> object:
        analysed.append(Path(path).name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainlint.engine, "lint_bytes", spy)
        result = run(_files(root), select_rules(None, [], []), Config(root=root), RunOptions(jobs=1, cache_dir=root / CACHE_DIR))
    return result, set(analysed)


def test_a_change_of_what_a_helper_does_relints_the_files_that_call_it(calls_across_files: Path) -> None:
    root = calls_across_files
    first, _ = _lint_project(root)
    assert [(Path(f.path).name, f.line, f.code) for f in first.findings] == [("train.py", 8, "TL201")]
    again, analysed = _lint_project(root)
    assert analysed == set() and again.findings == first.findings
    # a comment changes no summary: only the file itself is linted again
    (root / "memory.py").write_text("# frees memory\n" + PROJECT_SOURCES["memory.py"], encoding="utf-8")
    _, analysed = _lint_project(root)
    assert analysed == {"memory.py"}
    # the helper stops emptying the cache: what its callers, direct or not, call changed
    (root / "memory.py").write_text("def release():\n    pass\n", encoding="utf-8")
    after, analysed = _lint_project(root)
    assert analysed == {"memory.py", "steps.py", "train.py"}
    assert after.findings == []
    _, analysed = _lint_project(root)
    assert analysed == set()


def test_a_warm_project_run_imports_neither_libcst_nor_the_rules(calls_across_files: Path) -> None:
    assert "libcst" in _modules_loaded(calls_across_files)
    assert _modules_loaded(calls_across_files) == []
