"""The session-wide pool of sanitizer runs (helpers live in sanitizer_harness)."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns


@pytest.fixture(scope="session")
def script_runs(tmp_path_factory: pytest.TempPathFactory) -> ScriptRuns:
    runs = ScriptRuns(tmp_path_factory.mktemp("reports"))
    for params in PRELAUNCH:
        if params[0] == "plain":
            runs.submit_plain(*params[1:])
        else:
            runs.submit(*params)
    yield runs
    runs.pool.shutdown(wait=True)
