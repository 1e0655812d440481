"""Session-wide fixtures: the sanitizer suites' script runs start with the session.

The sanitizer's tests run their scripts under `python -m sanitizer` in a pool of
subprocesses (tests/sanitizer/sanitizer_harness.py); each test module adds its
scripts to `PRELAUNCH` when it is collected. The pool starts at the first test
of the session, not the first sanitizer test, so that the scripts run while the
linter's tests run in this process: on a two-core machine both cores work from
the start, and the whole suite takes minutes less. The torchrun launches of
tests/sanitizer_dist start with them. A run that selects no test using them
starts nothing.
"""
from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

SANITIZER_TESTS = Path(__file__).resolve().parent / "sanitizer"


@pytest.fixture(scope="session")
def script_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # importable once a sanitizer test module is collected (its folder is on sys.path then)
    from sanitizer_harness import PRELAUNCH, ScriptRuns

    runs = ScriptRuns(tmp_path_factory.mktemp("reports"))
    for params in PRELAUNCH:
        if params[0] == "plain":
            runs.submit_plain(*params[1:])
        elif params[0] == "options":  # ("options", ("--strict",), script, *args)
            runs.submit(*params[2:], options=params[1])
        else:
            runs.submit(*params)
    yield runs
    runs.close()


@pytest.fixture(scope="session")
def dist_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The torchrun launches of tests/sanitizer_dist (dist_helpers.py), one at a time
    from the start of the session: they end long before that folder's tests run."""
    from dist_helpers import LAUNCHES, DistRuns

    runs = DistRuns(tmp_path_factory.mktemp("dist"))
    for name, script, *args in LAUNCHES:
        runs.submit(name, script, *args)
    yield runs
    runs.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session", autouse=True)
def _runs_start_early(request: pytest.FixtureRequest) -> None:
    for helpers, fixture in (("sanitizer_harness", "script_runs"), ("dist_helpers", "dist_runs")):
        if helpers in sys.modules and any(
                fixture in getattr(item, "fixturenames", ()) for item in request.session.items):
            request.getfixturevalue(fixture)


_FROZEN: list[bool] = []


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the first of the sanitizer's tests that run in this process, the objects
    the session has made so far (torch's import, pytest's items) are frozen out of the
    collector's generations, as the fork server does for the scripts (see
    tests/sanitizer/forkserver.py): the sanitizer's scans for models and optimizers
    (`gc.get_objects()`) and every collection then walk only what the tests make. None
    of them may be a model or an optimizer, which the scans would then miss."""
    if _FROZEN or not Path(item.path).resolve().is_relative_to(SANITIZER_TESTS):
        return
    _FROZEN.append(True)
    torch = sys.modules.get("torch")
    gc.collect()
    if torch is not None and any(issubclass(type(obj), (torch.nn.Module, torch.optim.Optimizer))
                                 for obj in gc.get_objects()):
        return
    gc.freeze()


def pytest_sessionfinish() -> None:
    gc.unfreeze()
