"""torch.compile under the sanitizer: the compiler does the same work as without it
(graphs, recompiles, graph breaks), the numbers are the same, no sanitizer error,
and a NaN is still found at its step. The same for torch.jit.trace: the same graphs
(check_trace passes), the same numbers."""
from __future__ import annotations

import io
import warnings

from sanitizer import Sanitizer
from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("compiled.py",), ("plain", "compiled.py"), ("compiled.py", "--nan-step", "3"),
              ("jit_traced.py",), ("plain", "jit_traced.py"), ("jit_traced.py", "--nan-step", "3")]


def _compiler_lines(stdout: str) -> dict[str, str]:
    """What the script printed about the compiler and its losses (not the frame count:
    dynamo also converts the sanitizer's two global hooks when they run inside a
    compiled module's call, frames without a graph)."""
    lines = dict(line.split(" ", 1) for line in stdout.splitlines() if not line.startswith("sanitizer"))
    lines.pop("frames")
    return lines


MLP_PARAMETERS = [(f"body.{i}.{kind}", None) for i in (0, 2, 3) for kind in ("weight", "bias")] + [
    ("head.weight", None), ("head.bias", None)]


def test_compiled_run_is_unchanged(script_runs: ScriptRuns) -> None:
    run = script_runs.get("compiled.py")
    plain = script_runs.plain("compiled.py")
    assert run.returncode == 0 == plain.returncode, run.stderr
    assert _compiler_lines(run.stdout) == _compiler_lines(plain.stdout)
    assert "recompiles 0" in run.stdout and "graph_breaks 0" in run.stdout
    assert "global hooks" not in run.stderr  # torch's warning about global hooks is the sanitizer's noise
    assert run.report is not None and run.report["steps"] == 8
    assert run.events() == []


def test_nan_through_a_compiled_model(script_runs: ScriptRuns) -> None:
    run = script_runs.get("compiled.py", "--nan-step", "3")
    assert run.returncode == 0, run.stderr
    assert run.first("nonfinite_input")["step"] == 3
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 3 and loss["where"].endswith(f"compiled.py:{line_of('compiled.py', 'loss = F.cross_entropy')}")
    assert not run.events("sanitizer_error")
    # names are the model's own, not those of torch.compile's wrapper (`_orig_mod.`, `OptimizedModule`)
    grad = run.first("nonfinite_grad")
    assert grad["param"] in dict(MLP_PARAMETERS) and not grad["module"].startswith("_orig_mod"), grad
    assert all("_orig_mod" not in str(e) and "OptimizedModule" not in str(e) for e in run.events())
    # the graph the compiler made of the model is the model: its NaN output after the NaN
    # update is the model's, named as its outermost module is (by its class), not `GraphModule`
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 4 and activation["module"] == "MLP", activation


def test_jit_traced_run_is_unchanged(script_runs: ScriptRuns) -> None:
    run = script_runs.get("jit_traced.py")
    plain = script_runs.plain("jit_traced.py")
    assert run.returncode == 0 == plain.returncode, run.stderr
    assert run.stdout == plain.stdout  # the traced graphs, value names included, and the losses
    assert [line for line in run.stderr.splitlines() if not line.startswith("sanitizer")] == \
        plain.stderr.splitlines()
    assert run.report is not None and run.report["steps"] == 6
    assert run.events() == []


def test_nan_through_a_jit_traced_model(script_runs: ScriptRuns) -> None:
    run = script_runs.get("jit_traced.py", "--nan-step", "3")
    assert run.returncode == 0, run.stderr
    assert run.first("nonfinite_input")["step"] == 3
    assert not run.events("sanitizer_error")


def test_the_warning_filter_leaves_with_the_session() -> None:
    before = list(warnings.filters)
    with Sanitizer(report=None, stream=io.StringIO()):
        assert len(warnings.filters) == len(before) + 1
        warnings.filterwarnings("ignore", message="the script's own filter")
        mine = warnings.filters[0]
    assert warnings.filters == [mine, *before]
    warnings.filters.remove(mine)
