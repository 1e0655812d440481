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

import sys
from typing import Any, Iterator

import pytest


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
