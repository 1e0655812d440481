"""Static meets runtime: the run's report holds the script's lint findings, and each
runtime event names the findings that explain it."""
from __future__ import annotations

import json
import subprocess
import sys

from sanitizer_harness import PRELAUNCH, SCRIPTS, ScriptRuns, environment, line_of

from sanitizer.report.related import relate

PRELAUNCH += [("clip_before_unscale.py",), ("scheduler_order.py",), ("scheduler_order.py", "healthy"),
              ("lintproj/train.py",), ("epoch_numbered_schedule.py",), ("epoch_numbered_schedule.py", "--ahead"),
              ("epoch_numbered_schedule.py", "--plain")]
SCRIPT = "clip_before_unscale.py"


def test_the_report_holds_the_lint_of_the_script_as_trainlint_prints_it(script_runs: ScriptRuns) -> None:
    run = script_runs.get(SCRIPT)
    clip = line_of(SCRIPT, "torch.nn.utils.clip_grad_norm_(")
    assert [(f["code"], f["line"]) for f in run.report["lint"]] == [("TL101", clip)]
    cli = subprocess.run([sys.executable, "-m", "trainlint", "--format", "json", SCRIPT], cwd=SCRIPTS,
                         env=environment(), capture_output=True, text=True, timeout=120)
    assert run.report["lint"] == json.loads(cli.stdout)


def test_scale_collapse_names_the_clip_before_unscale(script_runs: ScriptRuns) -> None:
    run = script_runs.get(SCRIPT)
    clip = line_of(SCRIPT, "torch.nn.utils.clip_grad_norm_(")
    collapse = run.first("scale_collapse")
    assert [(f["code"], f["path"], f["line"]) for f in collapse["related"]] == [("TL101", SCRIPT, clip)]
    # the clip itself is seen at run time too, and names the same finding
    assert {event["kind"] for event in run.events() if "related" in event} == {"scale_collapse", "clip_before_unscale"}
    [clip_event] = run.events("clip_before_unscale")
    assert clip_event["step"] == 1 and [f["line"] for f in clip_event["related"]] == [clip]
    line = f"scale_collapse at step {collapse['step']} — {SCRIPT}:{clip} clip before unscale (TL101)"
    assert line in run.stderr and line in run.report["summary"]["diagnosis"]


def test_no_lint_turns_it_off(script_runs: ScriptRuns) -> None:
    run = script_runs.get(SCRIPT, options=("--no-lint",))
    assert run.report["lint"] is None
    assert run.first("scale_collapse").get("related") is None


def test_a_schedule_stepped_first_starts_late_and_names_tl404(script_runs: ScriptRuns) -> None:
    run = script_runs.get("scheduler_order.py")
    early = line_of("scheduler_order.py", "warmup.step()  # before the optimizer")
    [event] = run.events("scheduler_before_optimizer")
    assert (event["step"], event["where"]) == (1, f"scheduler_order.py:{early}")
    assert [(f["code"], f["line"]) for f in event["related"]] == [("TL404", early)]
    healthy = script_runs.get("scheduler_order.py", "healthy")
    assert healthy.events() == []  # the lint still flags the line the healthy run never reaches


def test_a_schedule_told_the_epoch_it_stands_at_before_the_first_update_skips_nothing(
        script_runs: ScriptRuns) -> None:
    # karpathy/pytorch-made: `scheduler.step(epoch)` at the start of each epoch, from 0
    script = "epoch_numbered_schedule.py"
    assert script_runs.get(script).events() == []
    told = line_of(script, "decay.step(epoch + 1 if ahead else epoch)")
    early = line_of(script, "decay.step()  # moves the schedule on")
    for mode, line in (("--ahead", told), ("--plain", early)):
        [event] = script_runs.get(script, mode).events("scheduler_before_optimizer")
        assert (event["step"], event["where"]) == (1, f"{script}:{line}")


def test_the_project_files_the_script_imports_are_linted_with_its_settings(script_runs: ScriptRuns) -> None:
    run = script_runs.get("lintproj/train.py")
    assert [(f["path"], f["code"]) for f in run.report["lint"]] == [("lintproj/pkg/steps.py", "TL101")]
    cli = subprocess.run([sys.executable, "-m", "trainlint", "--format", "json", "lintproj"], cwd=SCRIPTS,
                         env=environment(), capture_output=True, text=True, timeout=120)
    assert run.report["lint"] == json.loads(cli.stdout)


def _finding(code: str, line: int, path: str = "train.py") -> dict:
    return {"path": path, "line": line, "column": 5, "code": code, "name": code.lower(), "message": "m"}


def test_only_the_rules_behind_a_kind_relate_nearest_line_first() -> None:
    events = [{"kind": "grad_spike", "where": "train.py:40"}, {"kind": "grad_underflow", "where": None},
              {"kind": "loss_spike", "where": "train.py:40"}, {"kind": "tensor_leak", "where": "train.py:9"}]
    findings = [_finding("TL101", 10), _finding("TL108", 38), _finding("TL103", 3), _finding("TL201", 40),
                _finding("TL202", 90, path="other.py")]
    relate(events, findings)
    assert [f["line"] for f in events[0]["related"]] == [38, 10]
    assert [f["code"] for f in events[1]["related"]] == ["TL103"]
    assert "related" not in events[2]  # a loss spike has no rule behind it
    assert [f["path"] for f in events[3]["related"]] == ["other.py"]


def test_memory_growth_is_not_blamed_on_a_kept_graph_the_run_did_not_see() -> None:
    findings = [_finding("TL202", 12)]
    unwatched = [{"kind": "memory_growth", "where": None}]
    relate(unwatched, findings)  # the run did not check for kept graphs: the finding may explain it
    assert [f["code"] for f in unwatched[0]["related"]] == ["TL202"]
    quiet = [{"kind": "memory_growth", "where": None}]
    relate(quiet, findings, frozenset({"tensor_leak", "memory_growth"}))  # checked, and no graph was kept
    assert "related" not in quiet[0]
    leaking = [{"kind": "tensor_leak", "where": "train.py:12"}, {"kind": "memory_growth", "where": None}]
    relate(leaking, findings, frozenset({"tensor_leak", "memory_growth"}))
    assert [f["code"] for f in leaking[1]["related"]] == ["TL202"]


def test_a_collapse_is_not_blamed_on_a_clip_the_run_saw_done_right() -> None:
    """A branch that clips before `unscale_` only under `--legacy-clip`: the run clipped
    after unscaling, and its scale collapsed from an fp16 overflow. TL101 explains it only
    where the run did not watch its clips, or saw one before the unscale."""
    findings = [_finding("TL101", 21), _finding("TL108", 30)]
    checks = frozenset({"clip_before_unscale", "scale_collapse"})
    quiet = [{"kind": "scale_collapse", "where": "train.py:22"}]
    relate(quiet, findings, checks)
    assert [f["code"] for f in quiet[0]["related"]] == ["TL108"]  # micro-step unscaling is not watched so
    seen = [{"kind": "clip_before_unscale", "where": "train.py:21"}, {"kind": "scale_collapse", "where": "train.py:22"}]
    relate(seen, findings, checks)
    assert [f["code"] for f in seen[1]["related"]] == ["TL101", "TL108"]
    unwatched = [{"kind": "scale_collapse", "where": "train.py:22"}]
    relate(unwatched, findings, frozenset({"scale_collapse"}))
    assert [f["code"] for f in unwatched[0]["related"]] == ["TL101", "TL108"]
