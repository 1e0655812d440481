"""The Lightning and transformers callbacks against the real frameworks: the same events
as `python -m sanitizer` on the same faulty script, a healthy run, a run that raises.
Skipped (with the reason) where a framework is not installed."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sanitizer_harness import SCRIPTS, TIMEOUT, Run, environment, run_sanitizer

HAS_LIGHTNING = any(importlib.util.find_spec(name) for name in ("lightning", "pytorch_lightning"))
HAS_TRANSFORMERS = all(importlib.util.find_spec(name) for name in ("transformers", "accelerate"))
needs_lightning = pytest.mark.skipif(not HAS_LIGHTNING, reason="PyTorch Lightning is not installed "
                                     "(pip install lightning)")
needs_transformers = pytest.mark.skipif(not HAS_TRANSFORMERS, reason="transformers' Trainer is not installed "
                                        "(pip install transformers accelerate)")
EVENT_FIELDS = ("kind", "severity", "step", "module", "param", "culprit", "holder")
FRAMEWORK_RUNS = 4 * 60  # a cold framework import on a loaded machine


def run_with_callback(script: str, *args: str, report: Path) -> Run:
    done = subprocess.run([sys.executable, script, *args, "callback", str(report)], cwd=SCRIPTS,
                          env=environment(), capture_output=True, text=True, timeout=FRAMEWORK_RUNS)
    return Run(done.returncode, done.stdout, done.stderr,
               json.loads(report.read_text()) if report.exists() else None)


@pytest.fixture(scope="module")
def framework_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Run]]:
    """Every framework run of this module, started together (each pays a long import)."""
    directory = tmp_path_factory.mktemp("framework-reports")
    scripts = ([("lightning_train.py", HAS_LIGHTNING), ("hf_train.py", HAS_TRANSFORMERS)])
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs: dict[str, Future[Run]] = {}
        for script, installed in scripts:
            if not installed:
                continue
            stem = script.removesuffix(".py")
            runs[f"{stem} cli fault"] = pool.submit(run_sanitizer, [script, "fault"], directory / f"{stem}-cli.json")
            for args in (("fault",), ("healthy",), ("raise",)):
                report = directory / f"{stem}-{args[0]}.json"
                runs[f"{stem} callback {args[0]}"] = pool.submit(run_with_callback, script, *args, report=report)
        yield runs


def _events(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [{field: event.get(field) for field in EVENT_FIELDS} for event in report["events"]]


def _check_same_as_cli(callback: Run, cli: Run, script: str) -> None:
    assert callback.returncode == cli.returncode == 0, callback.stderr + cli.stderr
    assert callback.report is not None and cli.report is not None
    assert _events(callback.report) == _events(cli.report)
    assert callback.report["summary"]["counts"] == cli.report["summary"]["counts"]
    assert callback.report["steps"] == cli.report["steps"] == 12
    for ours, theirs in zip(callback.report["events"], cli.report["events"]):
        # the callback keeps `where` in the user's code, never inside the framework
        assert ours.get("where") is None or ours["where"].startswith(f"{script}:"), ours
        if (theirs.get("where") or "").startswith(f"{script}:"):
            assert ours["where"] == theirs["where"]


def _check_healthy(run: Run) -> None:
    assert run.returncode == 0, run.stderr
    assert run.report is not None and run.report["steps"] == 12 and run.report["exit_code"] == 0
    assert [e for e in run.report["events"] if e["severity"] == "error"] == []


def _check_raised(run: Run, message: str) -> None:
    assert run.returncode == 1
    assert f"RuntimeError: {message}" in run.stderr
    assert run.report is not None, run.stderr
    assert run.report["exit_code"] == 1 and run.report["steps"] == 2


@needs_lightning
def test_lightning_callback_reports_what_the_cli_reports(framework_runs: dict[str, Future[Run]]) -> None:
    callback = framework_runs["lightning_train callback fault"].result()
    _check_same_as_cli(callback, framework_runs["lightning_train cli fault"].result(), "lightning_train.py")
    steps = {event["kind"]: event["step"] for event in callback.report["events"]}
    assert steps["nonfinite_input"] == steps["nonfinite_loss"] == steps["nonfinite_grad"] == 5
    assert steps["nonfinite_param"] == 5  # broken by the 5th update


@needs_lightning
def test_lightning_callback_healthy_run(framework_runs: dict[str, Future[Run]]) -> None:
    _check_healthy(framework_runs["lightning_train callback healthy"].result())


@needs_lightning
def test_lightning_callback_on_a_failing_fit(framework_runs: dict[str, Future[Run]]) -> None:
    _check_raised(framework_runs["lightning_train callback raise"].result(), "failure inside training_step")


@needs_transformers
def test_hf_callback_reports_what_the_cli_reports(framework_runs: dict[str, Future[Run]]) -> None:
    callback = framework_runs["hf_train callback fault"].result()
    _check_same_as_cli(callback, framework_runs["hf_train cli fault"].result(), "hf_train.py")
    loss = next(event for event in callback.report["events"] if event["kind"] == "nonfinite_loss")
    assert loss["where"].startswith("hf_train.py:")


@needs_transformers
def test_hf_callback_healthy_run(framework_runs: dict[str, Future[Run]]) -> None:
    _check_healthy(framework_runs["hf_train callback healthy"].result())


@needs_transformers
def test_hf_callback_on_a_failing_train(framework_runs: dict[str, Future[Run]]) -> None:
    run = framework_runs["hf_train callback raise"].result()
    _check_raised(run, "failure inside the model's forward")
    assert "the framework never reported the end of training" in " ".join(run.report["summary"]["notes"])


def test_importing_sanitizer_imports_no_framework() -> None:
    code = ("import sys, sanitizer, sanitizer.integrations\n"
            "from sanitizer import Sanitizer\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'lightning', 'pytorch_lightning', "
            "'transformers', 'accelerate'}))")
    done = subprocess.run([sys.executable, "-c", code], env=environment(), capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


def _load_script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), SCRIPTS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_lightning
def test_lightning_failing_fit_in_process_leaves_no_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_api import _global_state

    script = _load_script("lightning_train.py")
    monkeypatch.setattr(script, "args", ["raise", "callback", str(tmp_path / "run.json")])
    before = _global_state()
    with pytest.raises(RuntimeError, match="failure inside training_step"):
        script.main()
    assert _global_state() == before
    report = json.loads((tmp_path / "run.json").read_text())
    assert report["exit_code"] == 1 and report["steps"] == 2


@needs_transformers
def test_hf_failing_train_in_process_closed_by_the_callback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_api import _global_state

    import transformers
    from sanitizer.integrations.hf import SanitizerCallback

    script = _load_script("hf_train.py")
    monkeypatch.setattr(script, "args", ["raise"])
    callbacks: list[SanitizerCallback] = []
    original = transformers.Trainer.__init__

    def with_callback(self: Any, *args: Any, **kwargs: Any) -> None:
        callbacks.append(SanitizerCallback(report=tmp_path / "run.json"))
        original(self, *args, **{**kwargs, "callbacks": callbacks})

    monkeypatch.setattr(transformers.Trainer, "__init__", with_callback)
    before = _global_state()
    with pytest.raises(RuntimeError, match="failure inside the model's forward"):
        script.main()
    assert callbacks[0].session is not None  # the Trainer never said training ended
    report = callbacks[0].close()
    assert _global_state() == before and callbacks[0].session is None
    assert report is not None and report["exit_code"] == 1 and report["steps"] == 2
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == 2
