"""Batches the forward trail missed on public examples: a graph's sparse node
features (pytorch/examples' GCN), and the batch of a model whose forward the
script calls directly (`self.forward(x)` in layer-wise training, as the
forward-forward example does). A NaN in either is `nonfinite_input`, not a bare
NaN loss or an activation blamed on a parameter-free child."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

LAYOUTS = ["coo", "csr"]
CALLS = [("method", "relu"), ("outside", "relu"), ("method", "softplus"), ("outside", "softplus")]
PRELAUNCH += [*[("sparse_node_features.py", "--layout", layout) for layout in LAYOUTS],
              *[("sparse_node_features.py", "--layout", layout, "--fault", "12") for layout in LAYOUTS],
              *[("direct_forward.py", "--call", call, "--act", act) for call, act in CALLS],
              *[("direct_forward.py", "--call", call, "--act", act, "--fault", "12") for call, act in CALLS]]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_healthy_graph_with_sparse_features_reports_nothing(script_runs: ScriptRuns, layout: str) -> None:
    run = script_runs.get("sparse_node_features.py", "--layout", layout)
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nan_in_sparse_node_features_is_the_input(script_runs: ScriptRuns, layout: str) -> None:
    run = script_runs.get("sparse_node_features.py", "--layout", layout, "--fault", "12")
    assert run.returncode == 0, run.stderr
    assert run.events("sanitizer_error") == []
    event = run.first("nonfinite_input")
    assert event["step"] == 12 and "argument" not in event, event
    assert event["where"] == f"sparse_node_features.py:{line_of('sparse_node_features.py', 'loss = F.nll_loss')}"
    assert run.events("nonfinite_activation") == [], run.events("nonfinite_activation")
    assert "because the input batch is non-finite" in run.first("nonfinite_loss")["message"]


@pytest.mark.parametrize("call,act", CALLS)
def test_healthy_model_called_through_its_forward_reports_nothing(script_runs: ScriptRuns, call: str,
                                                                  act: str) -> None:
    run = script_runs.get("direct_forward.py", "--call", call, "--act", act)
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


@pytest.mark.parametrize("call,act", CALLS)
def test_nan_batch_of_a_forward_called_directly_is_the_input(script_runs: ScriptRuns, call: str, act: str) -> None:
    run = script_runs.get("direct_forward.py", "--call", call, "--act", act, "--fault", "12")
    assert run.returncode == 0, run.stderr
    assert run.events("sanitizer_error") == []
    event = run.first("nonfinite_input")
    caller = "loss = F.mse_loss(self.forward(x)" if call == "method" else "loss = F.mse_loss(model.forward(x)"
    assert event["step"] == 12, event
    assert event["where"] == f"direct_forward.py:{line_of('direct_forward.py', caller)}", event
    # the next forward runs on the NaN weights the update made: a symptom, after the step
    assert all(e["step"] > 12 for e in run.events("nonfinite_activation")), run.events("nonfinite_activation")
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 12 and "because the input batch is non-finite" in loss["message"], loss
