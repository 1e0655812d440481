"""The linter never breaks: generated programs, hostile files, interrupted fixes."""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

import hypothesmith
import libcst as cst
import pytest
from cli_runner import child_env
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.cli import main
from trainlint import engine
from trainlint.engine import lint_bytes
from trainlint.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
ALL_RULES = all_rules()
FIXTURES = Path(__file__).parent / "fixtures"


def lint_all(source: str) -> list:
    return lint_bytes("gen.py", source.encode("utf-8"), ALL_RULES).findings


def assert_inside(source: str, findings: list) -> None:
    lines = max(len(source.splitlines()), 1)
    for f in findings:
        assert 1 <= f.line <= f.end_line <= lines + 1, f
        assert f.column >= 1


# -- generated programs ------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_grammar_generated_programs_never_crash(source: str) -> None:
    assert_inside(source, lint_all(source))



@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_parsing_without_node_checks_builds_the_same_tree(source: str) -> None:
    try:
        checked = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return
    try:
        unchecked = engine._parse(source)
    except engine._Unparsable:  # refused for its nesting before LibCST sees it
        return
    assert unchecked.deep_equals(checked)


def test_nodes_built_after_a_parse_are_checked_again() -> None:
    engine._parse("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    assert all(cls.__init__ is original for cls, original, _ in engine._lean_constructors())


def _node_class(namespace: dict[str, object], slots: bool = True) -> type:
    """A concrete LibCST node class built as LibCST builds its own."""
    from libcst._add_slots import add_slots

    body = {
        "_visit_and_replace_children": lambda self, visitor: self,
        "_codegen_impl": lambda self, state: None,
        **namespace,
    }
    cls = dataclasses.dataclass(frozen=True)(type("Probe", (cst.CSTNode,), body))
    return add_slots(cls) if slots else cls


def test_a_lean_constructor_sets_what_the_dataclass_constructor_sets() -> None:
    cls = _node_class({
        "__annotations__": {"value": str, "items": Sequence[int], "flag": bool},
        "items": dataclasses.field(default_factory=list),
        "flag": True,
    })
    lean = engine._lean_init(cls)
    assert lean is not None
    made = object.__new__(cls)
    lean(made, "x")
    assert (made.value, made.items, made.flag) == ("x", [], True)
    lean(made, "y", [1], flag=False)
    assert made.deep_equals(cls("y", [1], flag=False))
    with pytest.raises(TypeError):
        lean(made)  # as the dataclass's: `value` is required


@pytest.mark.parametrize(
    ("namespace", "slots"),
    [
        ({"__annotations__": {"value": str}, "__post_init__": lambda self: None}, True),  # more than the check
        ({"__annotations__": {"value": str}}, False),  # the field is no slot
        ({"__annotations__": {"value": str}, "value": dataclasses.field(default="", kw_only=True)}, True),
    ],
    ids=["own __post_init__", "no slots", "keyword-only field"],
)
def test_a_node_class_built_otherwise_keeps_its_own_constructor(namespace: dict, slots: bool) -> None:
    assert engine._lean_init(_node_class(namespace, slots)) is None


def test_a_hand_written_constructor_is_kept() -> None:
    cls = _node_class({"__annotations__": {"value": str}})

    def __init__(self, value: str) -> None:  # same parameters, more work
        object.__setattr__(self, "value", value.strip())

    cls.__init__ = __init__
    assert engine._lean_init(cls) is None


FRAGMENTS = [
    "import torch",
    "import torch.nn as nn",
    "from torch.cuda.amp import autocast, GradScaler",
    "from torch.utils.data import DataLoader, DistributedSampler",
    "scaler = torch.amp.GradScaler('cuda')",
    "scaler = GradScaler()",
    "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)",
    "sched = torch.optim.lr_scheduler.StepLR(opt, 10)",
    "sampler = DistributedSampler(ds)",
    "loader = DataLoader(ds, sampler=sampler, shuffle=True)",
    "loss = criterion(model(x), y)",
    "scaler.scale(loss).backward()",
    "loss.backward()",
    "scaler.unscale_(opt)",
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
    "scaler.step(opt)",
    "scaler.update()",
    "opt.step()",
    "opt.zero_grad()",
    "sched.step()",
    "total = total + loss",
    "losses.append(loss)",
    "torch.cuda.empty_cache()",
    "model.eval()",
    "model.train()",
    "model = nn.DataParallel(model)",
    "sampler.set_epoch(epoch)",
    "model = model.half()",
    "x = x.to(device, non_blocking=True)",
    "torch.backends.cudnn.benchmark = True",
    "torch.backends.cudnn.deterministic = True",
    "break",
    "continue",
    "return loss",
]
HEADERS = [
    "for x, y in loader:",
    "for epoch in range(3):",
    "while step < 10:",
    "if step % 4 == 0:",
    "if scaler is not None:",
    "else:",
    "with torch.no_grad():",
    "with autocast():",
    "with torch.autocast('cuda', dtype=torch.bfloat16):",
    "try:",
    "except RuntimeError:",
    "def train(model, loader, opt, scaler=None):",
    "class Trainer:",
]


@st.composite
def training_programs(draw: st.DrawFn) -> str:
    lines: list[str] = ["import torch"]  # fixes may add it; code using torch without it is broken anyway
    depth = 0
    for _ in range(draw(st.integers(3, 40))):
        if draw(st.booleans()) and depth < 5:
            lines.append("    " * depth + draw(st.sampled_from(HEADERS)))
            depth += 1
            lines.append("    " * depth + draw(st.sampled_from(FRAGMENTS)))
        else:
            lines.append("    " * depth + draw(st.sampled_from(FRAGMENTS)))
            if depth and draw(st.integers(0, 3)) == 0:
                depth = draw(st.integers(0, depth - 1))
    return "\n".join(lines) + "\n"


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(training_programs())
def test_training_fragments_never_crash_and_fixes_hold(source: str) -> None:
    findings = lint_all(source)  # may be TL000 when the fragments do not parse
    assert_inside(source, findings)
    if any(f.code == "TL000" for f in findings):
        return
    check_fix(source, unsafe=True)


def _compiles(source: str) -> bool:
    try:
        compile(source, "gen.py", "exec")
    except SyntaxError:
        return False
    return True


def check_fix(source: str, unsafe: bool) -> None:
    mode = "unsafe" if unsafe else "safe"
    outcome = lint_bytes("gen.py", source.encode(), ALL_RULES, fix=mode)
    if outcome.fixed_source is None:
        return
    fixed = outcome.fixed_source
    cst.parse_module(fixed)
    if _compiles(source):  # generated fragments may hold `break` outside a loop
        compile(fixed, "fixed.py", "exec")
    assert not [f for f in outcome.findings if f.fix == "safe" or (unsafe and f.fix)], "fixable findings remain"
    again = lint_bytes("gen.py", fixed.encode(), ALL_RULES, fix=mode)
    assert again.fixed_source is None, "fixing twice changed the file again"
    original_findings = lint_bytes("gen.py", source.encode(), ALL_RULES).findings
    allowed = {n for f in original_findings if f.fixable for n in range(f.line, f.end_line + 1)}
    for op, i1, i2, _, _ in difflib.SequenceMatcher(a=source.splitlines(), b=fixed.splitlines()).get_opcodes():
        if op in ("replace", "delete"):
            changed = set(range(i1 + 1, i2 + 1))
            import_lines = {n for n in changed if source.splitlines()[n - 1].lstrip().startswith(("import ", "from "))}
            assert changed - import_lines <= allowed, f"lines {sorted(changed - allowed)} changed outside the fixes"


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*.py")), ids=lambda p: p.stem)
def test_fixture_fixes_are_safe(fixture: Path) -> None:
    check_fix(fixture.read_text(encoding="utf-8"), unsafe=True)


def test_jobs_do_not_change_the_output() -> None:
    runner = CliRunner()
    outputs = []
    for jobs in ("1", "2"):
        result = runner.invoke(
            main, [str(FIXTURES), str(ROOT / "examples"), "--no-cache", "--jobs", jobs, "--format", "json", "--select", "TL"]
        )
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])


# -- hostile inputs ----------------------------------------------------------
def run_cli(tmp_path: Path, *args: str) -> tuple[int, list[dict], str]:
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = runner.invoke(main, [*args, "--no-cache", "--format", "json"])
    finally:
        os.chdir(old)
    return result.exit_code, json.loads(result.stdout or "[]"), result.stderr


BUG = "import torch.nn as nn\nm = nn.DataParallel(m)\n"


def test_hostile_files_are_reported_and_the_rest_linted(tmp_path: Path) -> None:
    (tmp_path / "nul.py").write_bytes(b"import torch\nx = 1\x00\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + BUG.encode())
    (tmp_path / "deep.py").write_text("import torch\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (tmp_path / "chain.py").write_text("import torch\nx = " + "+".join(["y"] * 30000) + "\n")
    (tmp_path / "crlf.py").write_bytes(BUG.replace("\n", "\r\n").encode())
    os.symlink("loop.py", tmp_path / "loop.py")
    (tmp_path / "ok.py").write_text(BUG)
    code, findings, _ = run_cli(tmp_path, ".")
    got = {(f["path"], f["code"]) for f in findings}
    assert got == {
        ("nul.py", "TL000"),
        ("deep.py", "TL000"),
        ("chain.py", "TL000"),
        ("bom.py", "TL301"),
        ("crlf.py", "TL301"),
        ("ok.py", "TL301"),
    }
    assert code == 1
    messages = {f["path"]: f["message"] for f in findings}
    assert "NUL" in messages["nul.py"]
    # a link that points nowhere (to itself) is skipped in a walk, and reported when named
    code, findings, _ = run_cli(tmp_path, "loop.py")
    assert code == 1 and [(f["path"], f["code"]) for f in findings] == [("loop.py", "TL000")]
    assert "cannot read" in findings[0]["message"]


def test_a_five_megabyte_file(tmp_path: Path) -> None:
    pad = "x" * 60
    body = "".join(f"w{i} = torch.zeros({i % 97})  # {pad}\n" for i in range(60_000))
    source = "import torch\nimport torch.nn as nn\n" + body + "m = nn.parallel.DistributedDataParallel(m)\n"
    assert len(source) > 5_000_000
    (tmp_path / "big.py").write_text(source)
    (tmp_path / "small.py").write_text(BUG)
    code, findings, _ = run_cli(tmp_path, ".")
    assert [(f["path"], f["code"]) for f in findings] == [("small.py", "TL301")]


def test_a_path_that_vanishes_after_discovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trainlint.check

    (tmp_path / "gone.py").write_text(BUG)
    (tmp_path / "ok.py").write_text(BUG)
    real = trainlint.check.discover

    def discover_then_delete(paths, config, *nearest):  # type: ignore[no-untyped-def]
        found = real(paths, config, *nearest)
        (tmp_path / "gone.py").unlink()
        return found

    monkeypatch.setattr(trainlint.check, "discover", discover_then_delete)
    code, findings, _ = run_cli(tmp_path, ".")
    assert {(f["path"], f["code"]) for f in findings} == {("gone.py", "TL000"), ("ok.py", "TL301")}


def test_an_unreadable_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ok.py").write_text(BUG)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "secret.py").write_text(BUG)
    real_walk = os.walk

    def walk(top, onerror=None, followlinks=False):  # type: ignore[no-untyped-def]
        for directory, dirs, files in real_walk(top, onerror=onerror, followlinks=followlinks):
            if Path(directory).name == "locked":
                onerror(PermissionError(13, "Permission denied", directory))
                continue
            yield directory, dirs, files

    monkeypatch.setattr("trainlint.discovery.os.walk", walk)
    code, findings, err = run_cli(tmp_path, ".")
    assert code == 2
    assert "locked: Permission denied" in err
    assert [f["path"] for f in findings] == ["ok.py"]


def test_interrupted_fix_never_leaves_a_partial_file(tmp_path: Path) -> None:
    source = (
        "from torch.cuda.amp import autocast\n"
        + "".join(f"def f{i}(x):\n    with autocast():\n        return x * {i}\n" for i in range(400))
    )
    expected = None
    files = 15  # the kill lands as the fixes are written, one file after another, whatever their number
    for i in range(files):
        (tmp_path / f"m{i:02d}.py").write_text(source)
    env = child_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainlint", ".", "--fix", "--jobs", "1", "--no-cache", "--select", "TL102"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600  # generous: alone it writes its first file within a minute
    while time.monotonic() < deadline and proc.poll() is None:
        if any((tmp_path / f"m{i:02d}.py").read_text() != source for i in range(files)):
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    changed = 0
    for i in range(files):
        text = (tmp_path / f"m{i:02d}.py").read_text()
        if text == source:
            continue
        changed += 1
        expected = expected or text
        assert text == expected, "a file was left half-written"
        compile(text, "fixed.py", "exec")
    assert changed >= 1  # (a kill may leave a temporary file beside them, never a partial target)


def test_a_file_reached_twice_through_links_is_linted_once(tmp_path: Path) -> None:
    from trainlint.config import Config
    from trainlint.discovery import discover

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(BUG)
    os.symlink("train.py", tmp_path / "pkg" / "alias.py")  # a linked file
    os.symlink("pkg", tmp_path / "same")  # a linked folder: its files are pkg's
    (tmp_path / "other.py").write_text(BUG)
    found = discover([str(tmp_path)], Config(root=tmp_path, respect_gitignore=False))
    assert sorted(found.files) == [str(tmp_path / "other.py"), str(tmp_path / "pkg" / "train.py")]
    found = discover([str(tmp_path / "same")], Config(root=tmp_path, respect_gitignore=False))
    assert sorted(found.files) == [str(tmp_path / "same" / "alias.py"), str(tmp_path / "same" / "train.py")][1:], (
        "a linked folder named as a path is walked, and its file found twice listed as itself")


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cyclic_collector_is_left_as_it_was(enabled: bool) -> None:
    """The engine pauses the collector while it analyses a file (its objects
    live until the file is done) and restores it, also after a file that
    does not parse."""
    import gc

    def set_collector(on: bool) -> None:
        if on:
            gc.enable()
        else:
            gc.disable()

    was = gc.isenabled()
    try:
        set_collector(enabled)
        for source in (BUG, "def broken(:\n"):
            lint_bytes("x.py", source.encode(), list(all_rules()))
            assert gc.isenabled() is enabled
    finally:
        set_collector(was)


def test_code_nested_deeper_than_cpython_allows_is_refused_before_libcst(tmp_path: Path) -> None:
    """The screen in front of LibCST's parser refuses what CPython's parser
    refuses for its depth, in files the rules do parse; run in a subprocess:
    LibCST on these would overflow its stack or take gigabytes."""
    deep = {
        "parentheses.py": "x = " + "(" * 2_000 + "1" + ")" * 2_000,
        "negations.py": "x = " + "-" * 9_000 + "1",
        "lambdas.py": "x = " + "lambda: " * 5_000 + "1",
        "attributes.py": "x = " + ".".join(["a"] * 8_000),
        "conditionals.py": "x = " + " if c else ".join(["a"] * 7_000),
    }
    for name, line in deep.items():
        (tmp_path / name).write_text(BUG + line + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trainlint", "check", "--no-cache", "--jobs", "1", "--select", "TL", "--format", "json", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    found = {(f["path"], f["code"]) for f in json.loads(proc.stdout)}
    assert found == {(name, "TL000") for name in deep}


@pytest.mark.parametrize("operator", ["and", "or"])
def test_a_boolean_chain_long_enough_to_crash_libcst_is_refused(tmp_path: Path, operator: str) -> None:
    """CPython accepts `y and y and ...` of any length (it keeps the chain
    flat), but LibCST's native parser overflows its stack past ~7,000
    operands and kills the process; such a chain is reported as TL000. A
    long chain that LibCST parses safely is linted as usual. Run in a
    subprocess: a crash must fail the test, not end the test run."""
    (tmp_path / "crash.py").write_text(BUG + "x = " + f" {operator} ".join(["y"] * 7_100) + "\n")
    (tmp_path / "long.py").write_text(BUG + "x = " + f" {operator} ".join(["y"] * 1_500) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trainlint", "check", "--no-cache", "--jobs", "1", "--select", "TL", "--format", "json", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    found = {(f["path"], f["code"], f["message"].split(": ")[-1]) for f in json.loads(proc.stdout)}
    assert ("crash.py", "TL000", "code is nested too deeply to parse") in found
    assert {(path, code) for path, code, _ in found} == {("crash.py", "TL000"), ("long.py", "TL301")}
