"""The session-wide pool of sanitizer runs (see sanitizer_harness)."""
from __future__ import annotations

from typing import Iterator

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns


@pytest.fixture(scope="session")
def script_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptRuns]:
    runs = ScriptRuns(tmp_path_factory.mktemp("reports"))
    for params in PRELAUNCH:
        if params[0] == "plain":
            runs.submit_plain(*params[1:])
        else:
            runs.submit(*params)
    yield runs
    runs.pool.shutdown(wait=True)
