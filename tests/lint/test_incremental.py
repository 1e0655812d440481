"""Incremental runs of a project: what a run reads and re-lints after an
edit, and that whatever the cache holds (stale, damaged, partial) the
findings are those of a run without it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from cli_runner import modules_loaded

import trainlint.engine
import trainlint.runner
from trainlint.cache import CACHE_DIR, ResultCache, content_hash
from trainlint.config import Config, select_rules
from trainlint.project_store import ProjectStore
from trainlint.runner import RunOptions, RunResult, run

SOURCES = {
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
    # has facts of its own, but neither calls nor is called by the others
    "metrics.py": "def log(values, loss):\n    values.append(loss)\n\ndef total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n",
}
# still summarized (it appends), but empties nothing any more
RELEASE_NOTHING = "def release():\n    freed = []\n    freed.append(0)\n"
EXPECTED = [("train.py", 8, "TL201")]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in SOURCES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.py") if CACHE_DIR not in p.parts)


class Spy:
    """What one run analysed, hashed and read from the project store."""

    def __init__(self) -> None:
        self.analysed: list[str] = []
        self.hashed = 0
        self.facts_read: list[str] = []
        self.reads_read = 0


def _lint(root: Path, cache: bool = True) -> tuple[RunResult, Spy]:
    spy = Spy()
    lint_bytes, facts, reads = trainlint.engine.lint_bytes, ProjectStore.facts, ProjectStore.reads
    hash_bytes = trainlint.runner.content_hash

    def analysed(path: str, *args: object, **kwargs: object) -> object:
        spy.analysed.append(Path(path).name)
        return lint_bytes(path, *args, **kwargs)  # type: ignore[arg-type]

    def hashed(data: bytes) -> str:
        spy.hashed += 1
        return hash_bytes(data)

    def facts_read(self: ProjectStore, path: str, digest: str) -> object:
        spy.facts_read.append(Path(path).name)
        return facts(self, path, digest)

    def reads_read(self: ProjectStore, stamp: str) -> object:
        spy.reads_read += 1
        return reads(self, stamp)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainlint.engine, "lint_bytes", analysed)
        patch.setattr(trainlint.runner, "content_hash", hashed)
        patch.setattr(ProjectStore, "facts", facts_read)
        patch.setattr(ProjectStore, "reads", reads_read)
        options = RunOptions(jobs=1, cache_dir=root / CACHE_DIR if cache else None)
        result = run(_files(root), select_rules(None, [], []), Config(root=root), options)
    return result, spy


def _found(result: RunResult) -> list[tuple[str, int, str]]:
    return [(Path(f.path).name, f.line, f.code) for f in result.findings]


def _same_as_without_cache(root: Path) -> RunResult:
    cached, _ = _lint(root)
    fresh, _ = _lint(root, cache=False)
    assert cached.findings == fresh.findings
    return cached


def _age(root: Path, seconds: int = 60) -> None:
    """Make every file look modified a while ago: a file modified within the
    last seconds is hashed again whatever its stat says."""
    for path in root.glob("*.py"):
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns - seconds * 10**9))


# -- what a warm run and a touched file cost ----------------------------------------
def test_a_warm_run_reads_no_file_and_no_facts(project: Path) -> None:
    _age(project)
    first, _ = _lint(project)
    assert _found(first) == EXPECTED
    again, spy = _lint(project)
    assert _found(again) == EXPECTED
    assert (spy.analysed, spy.hashed, spy.facts_read, spy.reads_read) == ([], 0, [], 0)


def test_a_warm_project_run_imports_neither_libcst_nor_the_rules(project: Path) -> None:
    assert "libcst" in modules_loaded(project)
    assert modules_loaded(project) == []
    with (project / "train.py").open("a", encoding="utf-8") as handle:
        handle.write("# a comment\n")
    assert "libcst" in modules_loaded(project)
    assert modules_loaded(project) == []


def test_a_comment_in_a_caller_is_linted_once_and_keeps_what_its_callees_do(project: Path) -> None:
    _lint(project)
    with (project / "train.py").open("a", encoding="utf-8") as handle:
        handle.write("# a comment\n")
    again, spy = _lint(project)
    assert _found(again) == EXPECTED
    assert spy.analysed == ["train.py"]  # given last time's inputs up front: one analysis
    assert spy.reads_read == 0 and "metrics.py" not in spy.facts_read
    assert _same_as_without_cache(project).findings == again.findings


def test_a_comment_in_a_helper_reads_no_facts(project: Path) -> None:
    _lint(project)
    (project / "memory.py").write_text("# frees memory\n" + SOURCES["memory.py"], encoding="utf-8")
    again, spy = _lint(project)
    assert _found(again) == EXPECTED
    assert (spy.analysed, spy.facts_read, spy.reads_read) == (["memory.py"], [], 0)


def test_a_changed_summary_relints_its_readers_and_reads_only_their_facts(project: Path) -> None:
    _lint(project)
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    after, spy = _lint(project)
    assert _found(after) == []
    assert sorted(spy.analysed) == ["memory.py", "steps.py", "train.py"]
    assert "metrics.py" not in spy.facts_read
    (project / "memory.py").write_text(SOURCES["memory.py"], encoding="utf-8")
    back, spy = _lint(project)
    assert _found(back) == EXPECTED
    assert "metrics.py" not in spy.analysed + spy.facts_read


def test_files_that_gain_or_lose_facts_are_followed(project: Path) -> None:
    _lint(project)
    (project / "memory.py").write_text("def release():\n    pass\n", encoding="utf-8")  # nothing to summarize
    assert _found(_same_as_without_cache(project)) == []
    (project / "memory.py").write_text(SOURCES["memory.py"], encoding="utf-8")
    assert _found(_same_as_without_cache(project)) == EXPECTED


def test_a_new_module_that_a_call_now_resolves_to_is_followed(project: Path) -> None:
    _lint(project)
    (project / "memory.py").unlink()
    assert _found(_same_as_without_cache(project)) == []
    (project / "memory.py").write_text(SOURCES["memory.py"], encoding="utf-8")
    assert _found(_same_as_without_cache(project)) == EXPECTED


# -- the stat shortcut ----------------------------------------------------------------
@pytest.mark.parametrize("same_time", [False, True], ids=["new-mtime", "mtime-put-back"])
def test_an_edit_that_keeps_the_size_is_linted_again(project: Path, same_time: bool) -> None:
    _age(project)
    _lint(project)
    path = project / "memory.py"
    before = path.stat()
    path.write_text(SOURCES["memory.py"].replace("empty_cache", "empty_cachf"), encoding="utf-8")
    assert path.stat().st_size == before.st_size
    if same_time:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the change time still moves
    after, spy = _lint(project)
    assert "memory.py" in spy.analysed
    assert _found(after) == []


def test_a_touched_but_identical_file_is_hashed_not_linted(project: Path) -> None:
    _age(project)
    _lint(project)
    (project / "steps.py").write_text(SOURCES["steps.py"], encoding="utf-8")
    again, spy = _lint(project)
    assert (spy.analysed, spy.hashed) == ([], 1)
    assert _found(again) == EXPECTED


def test_a_file_modified_just_now_is_hashed_on_the_next_run_too(project: Path) -> None:
    _age(project)
    now = time.time_ns()
    os.utime(project / "train.py", ns=(now, now))  # as if written during the run
    _lint(project)
    entry = ResultCache(project / CACHE_DIR).lookup(str(project / "train.py"))
    assert entry is not None and entry.stat is None  # its stat cannot vouch for its bytes yet
    assert _lint(project)[1].hashed == 1
    _age(project)
    _lint(project)
    _, spy = _lint(project)
    assert spy.hashed == 0


# -- damage costs time, never a finding ---------------------------------------------------
def _project_dir(root: Path) -> Path:
    return ResultCache(root / CACHE_DIR).project_dir


def _damage_facts(root: Path, how: str) -> None:
    for blob in (_project_dir(root) / "facts").iterdir():
        if how == "delete":
            blob.unlink()
        elif how == "garbage":
            blob.write_bytes(b"\x00{]")
        else:  # facts of other bytes
            blob.write_text(blob.read_text(encoding="utf-8").replace('"digest":"', '"digest":"0'), encoding="utf-8")


@pytest.mark.parametrize("how", ["delete", "garbage", "other-bytes"])
def test_lost_facts_are_computed_again(project: Path, how: str) -> None:
    _lint(project)
    _damage_facts(project, how)
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    assert _found(_same_as_without_cache(project)) == []
    _damage_facts(project, how)
    (project / "memory.py").write_text(SOURCES["memory.py"], encoding="utf-8")
    assert _found(_same_as_without_cache(project)) == EXPECTED


def test_facts_computed_again_are_stored_again(project: Path) -> None:
    _lint(project)
    _damage_facts(project, "delete")
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    _lint(project)  # steps.py and train.py lost their facts and were analysed again for them
    (project / "memory.py").write_text(SOURCES["memory.py"], encoding="utf-8")
    again, spy = _lint(project)
    assert _found(again) == EXPECTED
    assert sorted(spy.analysed) == ["memory.py", "steps.py", "train.py"]  # no facts lost this time


@pytest.mark.parametrize("damage", [b"", b"{", b'{"stamp": "x", "reads": {}}', b'{"stamp": 1, "reads": []}'])
def test_reads_the_index_does_not_vouch_for_are_not_used(project: Path, damage: bytes) -> None:
    _lint(project)
    (_project_dir(project) / "reads.json").write_bytes(damage)
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    after, spy = _lint(project)
    assert _found(after) == []
    assert sorted(spy.analysed) == ["memory.py", "steps.py", "train.py"]


def test_reads_written_by_another_run_are_not_used(project: Path) -> None:
    """The index and the reads are written one after the other: a reads file
    whose stamp is not the index's (a run that stopped between the two) is
    not trusted."""
    _lint(project)
    store = ProjectStore(_project_dir(project))
    assert store.save({}, "ignored")  # fresh stamp, reads saying nobody reads anything
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    after, _ = _lint(project)
    assert _found(after) == []


def test_a_partial_index_write_leaves_no_stale_finding(project: Path) -> None:
    _lint(project)
    index = next((project / CACHE_DIR).glob("index-*.json"))
    text = index.read_bytes()
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    _lint(project)
    index.write_bytes(text[: len(text) // 2])  # a torn write (never made by trainlint: it replaces files whole)
    assert _found(_same_as_without_cache(project)) == []


def test_an_unwritable_cache_only_costs_time(project: Path) -> None:
    (project / CACHE_DIR).write_text("a file where the folder should be", encoding="utf-8")
    first, _ = _lint(project)
    assert _found(first) == EXPECTED
    again, spy = _lint(project)
    assert _found(again) == EXPECTED and set(spy.analysed) == set(SOURCES)


# -- a sequence of edits ---------------------------------------------------------------------
EDITS = [
    ("memory.py", RELEASE_NOTHING),
    ("train.py", SOURCES["train.py"] + "# done\n"),
    ("memory.py", SOURCES["memory.py"]),
    ("steps.py", SOURCES["steps.py"].replace("    release()\n", "")),
    ("metrics.py", SOURCES["metrics.py"] + "\ndef again():\n    release()\n"),
    ("steps.py", SOURCES["steps.py"]),
    ("helpers.py", "from memory import release\n\ndef tidy():\n    release()\n"),
    ("steps.py", SOURCES["steps.py"].replace("from memory import release", "from helpers import tidy as release")),
    ("helpers.py", None),
]


def test_after_each_edit_the_findings_are_those_of_a_run_without_cache(project: Path) -> None:
    _lint(project)
    for name, text in EDITS:
        if text is None:
            (project / name).unlink()
        else:
            (project / name).write_text(text, encoding="utf-8")
        _same_as_without_cache(project)


def test_the_stored_facts_are_those_of_the_bytes_on_disk(project: Path) -> None:
    _lint(project)
    (project / "memory.py").write_text(RELEASE_NOTHING, encoding="utf-8")
    _lint(project)
    store = ProjectStore(_project_dir(project))
    digest = content_hash(RELEASE_NOTHING.encode())
    stored = store.facts(str(project / "memory.py"), digest)
    assert stored is not None and list(stored["summaries"]) == ["release"]  # type: ignore[call-overload]
    assert store.facts(str(project / "memory.py"), content_hash(SOURCES["memory.py"].encode())) is None


# -- facts computed only when some file may ask for them ---------------------------------
METER = (
    "class Meter:\n"
    "    def __init__(self):\n"
    "        self.values = []\n\n"
    "    def update(self, value):\n"
    "        self.values.append(value)\n"
)
LOOP = (
    "import torch\n{imports}\n\n"
    "def train(model, loader, optimizer):\n"
    "    meter = {meter}\n"
    "    for batch in loader:\n"
    "        optimizer.zero_grad()\n"
    "        loss = model(batch).sum()\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        meter.update(loss)\n"
)
ALONE = LOOP.format(imports="", meter="[]").replace("meter.update(loss)", "meter.append(loss.item())")
CALLER = LOOP.format(imports="from meters import Meter", meter="Meter()")


@pytest.fixture
def meters(tmp_path: Path) -> Path:
    (tmp_path / "meters.py").write_text(METER, encoding="utf-8")
    (tmp_path / "train.py").write_text(ALONE, encoding="utf-8")
    return tmp_path


def _parsed(root: Path, cache: bool = True) -> tuple[RunResult, list[str]]:
    """A run, and the files LibCST parsed in it (by their source)."""
    sources = {path.read_text(encoding="utf-8"): path.name for path in root.glob("*.py")}
    parsed: list[str] = []
    parse = trainlint.engine._parse

    def spy(source: str) -> object:
        parsed.append(sources.get(source, "?"))
        return parse(source)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainlint.engine, "_parse", spy)
        result, _ = _lint(root, cache)
    return result, parsed


def test_a_member_nobody_imports_is_not_parsed_to_be_summarized(meters: Path) -> None:
    result, parsed = _parsed(meters)
    assert _found(result) == [] and "meters.py" not in parsed  # no rule can match it, no file imports it


def test_its_facts_are_computed_when_a_file_starts_calling_it(meters: Path) -> None:
    _parsed(meters)
    (meters / "train.py").write_text(CALLER, encoding="utf-8")
    result, parsed = _parsed(meters)
    assert _found(result) == [("train.py", 11, "TL202")]
    assert parsed.count("meters.py") == 1
    assert result.findings == _lint(meters, cache=False)[0].findings
    again, parsed = _parsed(meters)  # and kept
    assert again.findings == result.findings and parsed == []


def test_a_file_that_imports_a_member_is_summarized_by_its_first_analysis(meters: Path) -> None:
    (meters / "train.py").write_text(CALLER, encoding="utf-8")
    result, parsed = _parsed(meters, cache=False)
    assert _found(result) == [("train.py", 11, "TL202")]
    assert sorted(parsed) == ["meters.py", "train.py", "train.py"]  # train.py again, with what Meter.update does
