"""Training in processes the script starts (hogwild `mp.Process` children,
`mp.spawn`): each child is watched and reports on its own; the parent lists them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sanitizer.core.children import Children, StartedChild
from sanitizer_harness import FRESH, PRELAUNCH, ScriptRuns, line_of, run_sanitizer

PRELAUNCH += [("hogwild.py",), ("hogwild.py", "--nan-child", "2", "--nan-step", "5"),
              ("hogwild_shared_write.py",), ("hogwild_shared_write.py", "--nan"),
              ("hogwild_shared_write.py", "--nan", "--wait-step", "4"),
              ("spawn_worker_raises.py",), ("spawn_worker_raises.py", "--raise-step", "3")]
LAUNCHES = [("--launcher", "spawn"), ("--start-method", "fork"), ("--launcher", "subclass"),
            ("--launcher", "subclass", "--start-method", "fork")]
PRELAUNCH += [("hogwild.py", *launch) for launch in LAUNCHES]
FRESH.update(("hogwild.py", "hogwild_shared_write.py", "spawn_worker_raises.py"))  # processes forked and spawned by the script


def _child_reports(parent_report: Path) -> dict[str, dict]:
    reports = {}
    for path in parent_report.parent.glob(f"{parent_report.stem}.child*.json"):
        reports[path.stem.rsplit(".child", 1)[1]] = json.loads(path.read_text())
    return reports


def _parent_report(script_runs: ScriptRuns, *args: str, script: str = "hogwild.py") -> Path:
    return script_runs.directory / ("-".join((script, *(a.strip("-") for a in args))) + ".json")


def test_each_hogwild_child_is_watched(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hogwild.py")
    assert run.returncode == 0, run.stderr
    children = _child_reports(_parent_report(script_runs))
    assert sorted(children) == ["1", "2"]
    for report in children.values():
        assert report["steps"] == 15 and report["exit_code"] == 0 and report["events"] == []
    notes = run.report["summary"]["notes"]
    assert not any("never stepped" in note for note in notes)
    assert sum("15 steps, exit code 0, 0 error events" in note for note in notes) == 2


def test_a_nan_in_one_child_is_reported_by_that_child(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hogwild.py", "--nan-child", "2", "--nan-step", "5")
    assert run.returncode == 0, run.stderr
    child = _child_reports(_parent_report(script_runs, "--nan-child", "2", "--nan-step", "5"))["2"]
    kinds = {event["kind"]: event for event in child["events"]}
    assert kinds["nonfinite_input"]["step"] == 5
    loss = kinds["nonfinite_loss"]
    assert loss["step"] == 5 and loss["where"].endswith(f"hogwild.py:{line_of('hogwild.py', 'loss = F.nll_loss')}")
    assert "sanitizer[child 2]: nonfinite_input at step 5" in run.stderr
    assert any("child process 2" in note and "first: nonfinite_input at step 5" in note
               for note in run.report["summary"]["notes"])


def test_a_healthy_hogwild_run_with_waits_is_clean(script_runs: ScriptRuns) -> None:
    """The healthy twin of the runs below: the same waits, no NaN."""
    run = script_runs.get("hogwild_shared_write.py")
    assert run.returncode == 0, run.stderr
    children = _child_reports(_parent_report(script_runs, script="hogwild_shared_write.py"))
    assert sorted(children) == ["1", "2"] and all(child["events"] == [] for child in children.values())
    assert "child_origin" not in run.report["summary"]


@pytest.mark.parametrize(("wait", "step", "when"), [
    ((), 1, "before the first update"),
    (("--wait-step", "4"), 4, "after step 4, whose gradients were finite")])
def test_weights_a_sibling_broke_are_not_blamed_on_this_child(script_runs: ScriptRuns, wait: tuple[str, ...],
                                                               step: int, when: str) -> None:
    """Hogwild: child 2's NaN batch makes its update write NaN into the shared weights
    between child 1's backward and update. Child 1 is told the weights live in shared
    memory and another process may have written them, not to look at its initialisation
    or its own update; child 2 still reports its NaN batch at its step."""
    run = script_runs.get("hogwild_shared_write.py", "--nan", *wait)
    assert run.returncode == 0, run.stderr
    children = _child_reports(_parent_report(script_runs, "--nan", *wait, script="hogwild_shared_write.py"))
    first = {event["kind"]: event for event in reversed(children["1"]["events"])}
    param = first["nonfinite_param"]
    assert param["step"] == step and param["shared"] is True and when in param["message"], param
    assert "shared memory" in param["message"] and "another process" in param["message"]
    diagnosis = children["1"]["summary"]["diagnosis"]
    assert diagnosis.startswith(f"1. nonfinite_param at step {step}:"), diagnosis
    assert "other processes update them too" in diagnosis and "custom initialisation" not in diagnosis
    assert "nonfinite_input" not in first
    origin = {event["kind"]: event for event in reversed(children["2"]["events"])}
    assert origin["nonfinite_input"]["step"] == 3 and "shared" not in origin["nonfinite_param"]
    assert children["2"]["summary"]["diagnosis"].startswith("1. nonfinite_input at step 3:")
    # the parent names the child where the NaN started, not child 1 (whose weights it broke)
    line = line_of("hogwild_shared_write.py", "loss = F.cross_entropy")
    assert run.report["summary"]["child_origin"] == {
        "child": "2", "kind": "nonfinite_input", "step": 3, "module": None,
        "where": f"hogwild_shared_write.py:{line}", "report": str(_parent_report(
            script_runs, "--nan", *wait, script="hogwild_shared_write.py").with_suffix(".child2.json"))}
    verdict = run.report["summary"]["diagnosis"].splitlines()[0]
    assert verdict.startswith("no problems found in 0 steps of this process; its watched child processes found ")
    assert verdict.endswith(" error events, first non-finite in child process 2 (nonfinite_input at step 3): see "
                            "their reports (notes)"), verdict
    assert "note: the first non-finite value of the child processes was child process 2's: nonfinite_input at " \
           f"step 3 (hogwild_shared_write.py:{line})" in run.stderr


def test_the_child_where_values_first_went_non_finite_is_found_by_time(tmp_path: Path) -> None:
    """Each child's own first non-finite problem, ordered by when it was found (steps are
    each child's own): weights a sibling broke in shared memory are no origin."""
    def child(number: str, *events: dict) -> StartedChild:
        path = tmp_path / f"run.child{number}.json"
        path.write_text(json.dumps({"steps": 9, "exit_code": 0, "events": list(events)}))
        return StartedChild(number, str(path))

    def nan(kind: str, step: int, time: float, **fields: object) -> dict:
        return {"kind": kind, "step": step, "severity": "error", "message": "m", "time": time, **fields}

    late = child("1", nan("nonfinite_activation", 2, 105.0, module="hidden"), nan("nonfinite_loss", 2, 105.1))
    early = child("2", nan("nonfinite_input", 7, 101.5, where="train.py:30"), nan("nonfinite_loss", 7, 101.6))
    broken = child("3", nan("nonfinite_param", 1, 100.0, shared=True), nan("nonfinite_activation", 2, 100.5))
    clean = child("4")
    origin = Children([late, early, broken, clean]).origin()
    assert origin == {"child": "2", "kind": "nonfinite_input", "step": 7, "module": None, "where": "train.py:30",
                      "report": early.report}
    assert Children([late, broken, clean]).notes()[-1] == (
        "the first non-finite value of the child processes was child process 1's: nonfinite_activation at step 2 "
        "(module hidden)")
    assert Children([broken, clean]).origin() is None


def test_a_spawned_worker_that_raises_reports_its_exception(script_runs: ScriptRuns) -> None:
    """torch's spawn wrapper catches the worker's exception and exits 1: the worker's
    report names the exception and its line (not "sys.exit(1)"), as the parent's does."""
    run = script_runs.get("spawn_worker_raises.py", "--raise-step", "3")
    assert run.returncode == 1, run.stderr
    child = _child_reports(_parent_report(script_runs, "--raise-step", "3", script="spawn_worker_raises.py"))["1"]
    line = line_of("spawn_worker_raises.py", "raise ValueError")
    assert child["exit_code"] == 1 and child["steps"] == 2, child["ending"]
    ending = child["ending"]
    assert ending["how"] == "exception" and "ValueError: corrupt shard in worker 0 at step 3" in ending["detail"], ending
    assert ending["where"].endswith(f"spawn_worker_raises.py:{line}"), ending
    # raised as step 3's batch was drawn, inside the loop around the step's call: in step 3
    assert child["summary"]["diagnosis"].startswith("1. the script crashed: ValueError: corrupt shard"), child["summary"]
    assert ending["step"] == 3 and "after_step" not in ending, ending
    assert any("child process 1" in note and "exit code 1" in note for note in run.report["summary"]["notes"])
    parent = run.report["ending"]  # torch's ProcessRaisedException: the worker's error and line
    assert parent["detail"] == "ValueError: corrupt shard in worker 0 at step 3 (in process 0 of mp.spawn)", parent
    assert parent["where"].endswith(f"spawn_worker_raises.py:{line}"), parent
    healthy = script_runs.get("spawn_worker_raises.py")
    assert healthy.returncode == 0 and healthy.stdout == "trained\n", healthy.stderr
    clean = _child_reports(_parent_report(script_runs, script="spawn_worker_raises.py"))["1"]
    assert clean["exit_code"] == 0 and clean["steps"] == 6 and clean["events"] == []
    assert clean["ending"]["how"] == "returned"


def test_strict_fails_a_run_whose_child_found_errors(tmp_path: Path) -> None:
    """The parent only spawns (its own report is clean); a child's NaN batch fails
    `--strict` all the same, and the parent's verdict says where the errors are."""
    (tmp_path / "spawned.py").write_text(
        "import sys\n"
        "import torch\n"
        "import torch.multiprocessing as mp\n"
        "def train(rank, bad_step):\n"
        "    torch.manual_seed(0)\n"
        "    model = torch.nn.Linear(4, 1)\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for step in range(1, 11):\n"
        "        x = torch.randn(8, 4)\n"
        "        if step == bad_step:\n"
        "            x[0, 0] = float('nan')\n"
        "        opt.zero_grad()\n"
        "        model(x).pow(2).mean().backward()\n"
        "        opt.step()\n"
        "if __name__ == '__main__':\n"
        "    mp.spawn(train, args=(int(sys.argv[1]),), nprocs=1)\n")
    run = run_sanitizer(["--strict", "spawned.py", "3"], tmp_path / "run.json", cwd=tmp_path)
    assert run.returncode == 3, run.stderr
    summary = run.report["summary"]
    child = _child_reports(tmp_path / "run.json")["1"]
    assert summary["errors"] == 0 and summary["child_errors"] == child["summary"]["errors"] > 0
    assert summary["diagnosis"].startswith("no problems found in 0 steps of this process; its watched child "
                                           "processes found "), summary["diagnosis"]
    assert "error events, first non-finite in child process 1 (nonfinite_input at step 3): see their reports" \
        in run.stderr
    clean = run_sanitizer(["--strict", "spawned.py", "0"], tmp_path / "clean.json", cwd=tmp_path)
    assert clean.returncode == 0 and "child_errors" not in clean.report["summary"], clean.stderr


@pytest.mark.parametrize("launch", LAUNCHES)
def test_spawned_and_forked_children_are_watched(script_runs: ScriptRuns, launch: tuple[str, ...]) -> None:
    run = script_runs.get("hogwild.py", *launch)
    assert run.returncode == 0, run.stderr
    children = _child_reports(_parent_report(script_runs, *launch))
    assert len(children) == 2 and all(child["steps"] == 15 for child in children.values())
