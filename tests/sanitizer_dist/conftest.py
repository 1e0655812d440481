"""The torchrun launches of this directory, started together at the first use."""
from __future__ import annotations

import pytest

from dist_helpers import LAUNCHES, DistRuns


@pytest.fixture(scope="session")
def dist_runs(tmp_path_factory: pytest.TempPathFactory) -> DistRuns:
    runs = DistRuns(tmp_path_factory.mktemp("dist"))
    for name, script, *args in LAUNCHES:
        runs.submit(name, script, *args)
    yield runs
    runs.pool.shutdown(wait=True)
