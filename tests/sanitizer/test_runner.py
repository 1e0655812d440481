"""The script runs as plain python would run it, keeps its exit status, and always
leaves a report: normal return, sys.exit, an exception, Ctrl-C, bad input."""
from __future__ import annotations

import importlib
import json
import signal
import types
from pathlib import Path

import pytest

from sanitizer_harness import FRESH, PRELAUNCH, SCRIPTS, ScriptRuns, line_of, run_sanitizer

sanitizer_main = importlib.import_module("sanitizer.__main__")

RUNS = [("exit_raise.py",), ("exit_status.py", "4"), ("interrupted.py",), ("no_torch.py",),
        ("terminated.py",), ("plain", "terminated.py"),
        ("never_steps.py",), ("where_am_i.py", "--lr", "3"), ("plain", "where_am_i.py", "--lr", "3"),
        ("workers.py", "spawn"), ("plain", "workers.py", "spawn"), ("workers.py", "fork"),
        ("deterministic.py",), ("plain", "deterministic.py"), ("plain", "exit_raise.py"),
        ("os_exit.py", "0"), ("os_exit.py", "5"), ("plain", "os_exit.py", "5"), ("os_exit.py", "0", "keyword"),
        ("preempted.py",), ("plain", "preempted.py"), ("threads_from_env.py",), ("plain", "threads_from_env.py")]
PRELAUNCH += RUNS
FRESH.update(entry[1] if entry[0] == "plain" else entry[0] for entry in RUNS)  # the process is their subject
MODULE_RUN = ("-m", "trainpkg.train", "--epochs", "1")  # `python -m sanitizer -m trainpkg.train ...`
HALTED = ("--halt-on", "nonfinite_loss")
STRICT = ("--strict", "--checks", "nonfinite_param")
PRELAUNCH += [MODULE_RUN, ("options", HALTED, "nonfinite_culprit.py"), ("options", STRICT, "nonfinite_param.py")]
FRESH.add("-m")


def test_exception_keeps_status_and_traceback(script_runs: ScriptRuns) -> None:
    run = script_runs.get("exit_raise.py")
    plain = script_runs.plain("exit_raise.py")
    assert run.returncode == plain.returncode == 1
    assert run.report["exit_code"] == 1 and run.report["steps"] == 2
    traceback = run.stderr[run.stderr.index("Traceback"):run.stderr.index("ValueError: boom") + 30]
    assert traceback in plain.stderr  # same frames, none of the sanitizer's
    assert "runner.py" not in traceback and "runpy" not in traceback


def test_a_crashed_run_says_so_first(script_runs: ScriptRuns) -> None:
    run = script_runs.get("exit_raise.py")
    assert run.report["ending"] == {"how": "exception", "detail": "ValueError: boom from the script",
                                    "where": "exit_raise.py:12", "step": 2, "after_step": True,
                                    "last_step": True}
    summary = run.stderr[run.stderr.index("sanitizer: exit_raise.py"):]
    assert ("  1. the script crashed after step 2, the last optimizer step: ValueError: boom from the script "
            "(exit_raise.py:12)") in summary
    assert "no problems found" not in summary
    assert run.report["summary"]["problems"][0]["headline"].startswith("the script crashed")


def test_sys_exit_status_is_kept(script_runs: ScriptRuns) -> None:
    run = script_runs.get("exit_status.py", "4")
    assert run.returncode == 4 and run.report["exit_code"] == 4 and run.report["steps"] == 1


@pytest.mark.parametrize(("status", "form"), [("0", ()), ("5", ()), ("0", ("keyword",))])
def test_os_exit_writes_the_report_first(script_runs: ScriptRuns, status: str, form: tuple[str, ...]) -> None:
    """`os._exit` ends the process at once: the report is written before it, and the
    workers (forked children, which end with `os._exit` too) write none."""
    run = script_runs.get("os_exit.py", status, *form)
    assert run.returncode == int(status) and run.report["exit_code"] == int(status), run.stderr
    assert run.report["steps"] == 4
    expected = ({"how": "returned", "detail": None, "where": None} if status == "0" else
                {"how": "exit", "detail": "os._exit(5)", "where": f"os_exit.py:{line_of('os_exit.py', 'os._exit(int')}"})
    assert run.report["ending"] == expected
    if status == "5":
        assert run.stdout == script_runs.plain("os_exit.py", "5").stdout == "loss 1.108612\n"
        assert "  1. the script exited with an error status" in run.stderr, run.stderr


def test_ctrl_c_writes_the_report_and_dies_by_sigint(script_runs: ScriptRuns) -> None:
    run = script_runs.get("interrupted.py")
    assert run.returncode == -signal.SIGINT
    assert run.report["exit_code"] == 128 + signal.SIGINT and run.report["steps"] == 2
    assert "KeyboardInterrupt" in run.stderr and "atexit ran" in run.stdout


def test_sigterm_writes_the_report_and_dies_by_sigterm(script_runs: ScriptRuns) -> None:
    run = script_runs.get("terminated.py")
    plain = script_runs.plain("terminated.py")
    assert run.returncode == plain.returncode == -signal.SIGTERM
    assert run.stdout == plain.stdout == "stepped\n"  # neither the `finally` nor atexit runs, as in plain python
    assert run.report["exit_code"] == 128 + signal.SIGTERM and run.report["steps"] == 3
    assert run.report["ending"] == {"how": "terminated", "detail": None,
                                    "where": f"terminated.py:{line_of('terminated.py', 'os.kill')}"}
    assert run.report["summary"]["problems"][0]["headline"].startswith("the run was terminated (SIGTERM)")
    assert "the run was terminated" in run.stderr


def test_a_preemption_handler_that_chains_to_the_previous_one_stops_as_under_plain_python(
        script_runs: ScriptRuns) -> None:
    """The script is told SIGTERM's handler is the default, as in a plain run, not the
    sanitizer's: a handler that chains to a previous one when it is callable (Lightning's
    way) does not call the sanitizer's and die, it checkpoints and stops."""
    run = script_runs.get("preempted.py")
    plain = script_runs.plain("preempted.py")
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout == "True True\ncheckpointing\nstopped at 5\ndone\n"


def test_a_forked_child_gets_sigterm_as_under_plain_python(tmp_path: Path) -> None:
    """The parent's report-writing SIGTERM handler is not inherited by forked children
    (a Pool's or DataLoader's workers): a Python-level handler runs only between
    bytecodes, so a SIGTERM that lands just before a worker blocks on a lock (as
    `Pool.terminate()` sends it) was lost and the parent's join hung. The disposition
    is read from `_signal` itself: `signal.getsignal` tells the script the default in
    the parent too (see the preemption test)."""
    (tmp_path / "forks.py").write_text(
        "import _signal, multiprocessing, os, signal\n"
        "def disposition():\n"
        "    return 'default' if _signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else 'handled'\n"
        "def report(queue):\n"
        "    queue.put(disposition())\n"
        "if __name__ == '__main__':\n"
        "    read, write = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.write(write, disposition().encode())\n"
        "        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
        "    queue = multiprocessing.get_context('fork').Queue()\n"
        "    child = multiprocessing.get_context('fork').Process(target=report, args=(queue,))\n"
        "    child.start()\n"
        "    print(os.read(read, 16).decode(), queue.get(), disposition())\n"
        "    child.join()\n")
    run = run_sanitizer(["forks.py"], tmp_path / "r.json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "default default handled\n"


def test_script_without_torch(script_runs: ScriptRuns) -> None:
    run = script_runs.get("no_torch.py")
    assert run.returncode == 0 and run.stdout == "45\n"
    assert run.report["steps"] == 0 and run.report["events"] == []
    assert "does it use torch" in run.report["summary"]["notes"][0]
    assert "does it use torch" in run.stderr


def test_what_the_script_sets_before_importing_torch_takes_effect(script_runs: ScriptRuns) -> None:
    """torch reads OMP_NUM_THREADS as it loads: the sanitizer imports no torch before the
    script does, and starts watching once the script's `import torch` has run."""
    run = script_runs.get("threads_from_env.py")
    plain = script_runs.plain("threads_from_env.py")
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout and run.stdout.startswith("threads ")
    assert run.report["steps"] == 3


def test_script_that_never_steps(script_runs: ScriptRuns) -> None:
    run = script_runs.get("never_steps.py")
    assert run.returncode == 0 and run.stdout == "no step\n"
    assert run.report["steps"] == 1  # without an optimizer each backward pass is a step
    assert "never stepped an optimizer" in run.report["summary"]["diagnosis"]


def test_missing_script(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    run = run_sanitizer(["does_not_exist.py"], report)
    assert run.returncode == 2
    assert "can't open file" in run.stderr and "does_not_exist.py" in run.stderr
    assert run.report["exit_code"] == 2 and run.report["steps"] == 0


def test_argv_path_and_main_as_plain_python(script_runs: ScriptRuns) -> None:
    run = script_runs.get("where_am_i.py", "--lr", "3")
    plain = script_runs.plain("where_am_i.py", "--lr", "3")
    assert run.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
    assert run.report["argv"] == ["where_am_i.py", "--lr", "3"]


def test_module_mode_with_relative_imports(script_runs: ScriptRuns) -> None:
    run = script_runs.get(*MODULE_RUN)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "__main__ trainpkg.train ['--epochs', '1']\n"
    assert run.report["steps"] == 3 and run.report["script"] == "trainpkg.train"


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_dataloader_workers(script_runs: ScriptRuns, context: str) -> None:
    run = script_runs.get("workers.py", context)
    assert run.returncode == 0, run.stderr
    assert run.report["steps"] == 8
    assert "child" not in run.stderr and not any("child" in note for note in run.report["summary"]["notes"])
    if context == "spawn":
        assert run.stdout == script_runs.plain("workers.py", "spawn").stdout


def test_training_is_bit_identical_with_and_without(script_runs: ScriptRuns) -> None:
    run = script_runs.get("deterministic.py")
    plain = script_runs.plain("deterministic.py")
    assert plain.returncode == 0 and run.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
    assert run.report["steps"] == 18


def test_halt_on_stops_at_the_first_event(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_culprit.py", options=HALTED)
    assert run.returncode == 3
    assert "halted" in run.stderr and "nonfinite_loss" in run.stderr
    assert run.report["steps"] == 7 and run.report["exit_code"] == 3
    assert "finished" not in run.stdout
    nan, = [event for event in run.report["events"] if event["kind"] == "nonfinite_loss"]
    ending = run.report["ending"]
    assert (ending["how"], ending["kind"], ending["step"]) == ("halted", "nonfinite_loss", nan["step"])
    assert "halted the run (--halt-on) on what problem" in run.stderr


def test_halt_on_a_kind_that_is_not_checked_is_a_usage_error(tmp_path: Path) -> None:
    run = run_sanitizer(["nonfinite_culprit.py"], tmp_path / "r.json",
                        ["--checks", "loss_spike", "--halt-on", "nonfinite_loss"])
    assert run.returncode == 2 and "--halt-on nonfinite_loss: not among the checks" in run.stderr, run.stderr


def test_a_relative_report_path_is_kept_when_the_script_changes_directory(tmp_path: Path) -> None:
    """Hydra-style: the script moves into an output folder of its own; the report is
    still written where the run started, as printed."""
    (tmp_path / "train.py").write_text("import os\nos.makedirs('outputs', exist_ok=True)\nos.chdir('outputs')\n")
    run = run_sanitizer(["train.py"], Path("r.json"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "r.json").is_file() and not (tmp_path / "outputs" / "r.json").exists()
    assert "report: r.json" in run.stderr


def test_module_mode_records_the_argv_the_module_sees(script_runs: ScriptRuns) -> None:
    run = script_runs.get(*MODULE_RUN)
    assert run.returncode == 0, run.stderr
    assert run.report["argv"] == [str(SCRIPTS / "trainpkg" / "train.py"), "--epochs", "1"]


def test_strict_fails_a_faulty_run(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_param.py", options=STRICT)
    assert run.returncode == 3 and run.report["exit_code"] == 3
    assert {e["kind"] for e in run.events()} == {"nonfinite_param"}


def test_rank_report_name(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    command_env = {"RANK": "1", "WORLD_SIZE": "2"}
    run = run_sanitizer(["exit_status.py", "0"], report, env=command_env)
    data = json.loads((tmp_path / "run.rank1.json").read_text())
    assert run.returncode == 0 and not report.exists()
    assert data["rank"] == 1 and data["world_size"] == 2


def test_bad_command_lines(tmp_path: Path) -> None:
    unknown = run_sanitizer(["exit_status.py", "0"], tmp_path / "r.json", ["--checks", "nonsense"])
    assert unknown.returncode == 2 and "unknown kind" in unknown.stderr
    missing_sub = run_sanitizer([], tmp_path / "r.json")
    assert missing_sub.returncode == 2 and "no script given" in missing_sub.stderr


def test_subcommand_not_installed_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def missing(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(sanitizer_main.importlib, "import_module", missing)
    assert sanitizer_main.main(["merge", "a.json", "b.json"]) == 2
    assert "'merge' subcommand is not available" in capsys.readouterr().err


def test_subcommands_get_their_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.SimpleNamespace(main=lambda argv: seen.append(argv) or 7)
    monkeypatch.setattr(sanitizer_main.importlib, "import_module", lambda name: fake)
    assert sanitizer_main.main(["show", "run.json", "--html"]) == 7
    assert seen == [["run.json", "--html"]]
