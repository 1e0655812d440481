"""The result cache: unchanged files are not analysed again; a change of
content, rule selection or linter code is; `--no-cache` neither reads nor
writes it; `trainlint clean` removes it. Parallel and serial runs agree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_runner import modules_loaded
from click.testing import CliRunner

import trainlint.cache
import trainlint.engine
from trainlint.cache import CACHE_DIR, ResultCache, without_path
from trainlint.cli import main
from trainlint.config import Config, select_rules
from trainlint.rule import Finding
from trainlint.runner import RunOptions, RunResult, run

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


@pytest.mark.parametrize(
    "damage",
    [
        "{not json",
        "",
        '{"codes": [], "files": {"x": [1]}, "members": "", "project": ""}',
        '{"codes": [], "files": {"x": ["d", null, 3, [], "", "", true]}, "members": "", "project": ""}',
    ],
)
def test_a_corrupt_cache_file_is_ignored(project: Path, damage: str) -> None:
    first = _lint(project)
    for index in (project / CACHE_DIR).glob("index-*.json"):
        index.write_text(damage, encoding="utf-8")
    again = _lint(project)
    assert again.analysed == len(SOURCES)
    assert again.findings == first.findings


@pytest.mark.parametrize("findings", [[{"line": 2}], "x", [None], [{"line": "2"}], [{"extra": 1}]])
def test_an_index_with_a_malformed_finding_is_not_used(project: Path, findings: object) -> None:
    """Valid JSON whose cached findings are not findings (a foreign or older
    writer): the index is not used, the files are linted again, nothing raises."""
    import json

    first = _lint(project)
    for index in (project / CACHE_DIR).glob("index-*.json"):
        loaded = json.loads(index.read_text(encoding="utf-8"))
        for raw in loaded["files"].values():
            raw[3] = findings
        index.write_text(json.dumps(loaded), encoding="utf-8")
    again = _lint(project)
    assert again.analysed == len(SOURCES)
    assert again.findings == first.findings


def _poison(root: Path) -> None:
    """Put a finding in the cache that no rule would produce, for clean.py."""
    cache = ResultCache(root / CACHE_DIR)
    path = str(root / "clean.py")
    entry = cache.lookup(path)
    assert entry is not None
    finding = Finding(path, 1, 1, 1, 2, "TL301", "data-parallel", "warning", "from the cache")
    cache.put(path, entry._replace(findings=[without_path(finding)]))
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


def test_a_run_served_from_the_cache_imports_neither_libcst_nor_the_rules(project: Path) -> None:
    assert "libcst" in modules_loaded(project)  # the first run analyses every file
    assert modules_loaded(project) == []
    (project / "clean.py").write_text("import torch\n", encoding="utf-8")
    assert "libcst" in modules_loaded(project)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_imports_only_the_rules_it_selected(project: Path, jobs: str) -> None:
    loaded = modules_loaded(project, "--select", "TL301", "--jobs", jobs)
    assert "libcst" in loaded
    rules = [m for m in loaded if m.startswith("trainlint.rules.")]
    if jobs == "1":  # analysed here: an internal error would be reported under TL000
        assert rules == ["trainlint.rules.data_parallel", "trainlint.rules.unparsable_file"]
    else:  # the workers' parent imports what they run, before they are forked
        assert rules == ["trainlint.rules.data_parallel"]


def test_the_manifest_describes_the_registered_rules() -> None:
    from trainlint.manifest import manifest
    from trainlint.registry import all_rules

    described = [(r.code, r.name, r.severity, r.preview, r.module) for r in manifest().rules]
    assert described == [(r.code, r.name, r.severity, r.preview, r.__module__.rsplit(".", 1)[-1]) for r in all_rules()]


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
