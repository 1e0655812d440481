"""Leaked autograd graphs, memory growth and a data-bound loop."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("leak_sites.py", "queue"), ("leak_sites.py", "hook"), ("leak_sites.py", "receiver"),
              ("leak_sites.py", "deque"), ("leak_sites.py", "pairs"), ("tensor_leak.py",), ("tensor_leak.py", "two-optimizers"), ("tensor_leak.py", "history"), ("tensor_leak.py", "ema"), ("memory_growth.py",),
              ("tensor_leak.py", "ema-local"), ("tensor_leak.py", "ema-local", "healthy"),
              ("plain", "tensor_leak.py", "ema-local"), ("plain", "tensor_leak.py", "ema-local", "healthy"),
              ("tensor_leak.py", "ema-local", "helper"), ("plain", "tensor_leak.py", "ema-local", "helper"),
              ("dataloader_bound.py",), ("periodic_leak.py",), ("periodic_leak.py", "every=50"),
              ("periodic_leak.py", "bounded"),
              *(("ema_branches.py", branch, *healthy) for branch in ("copy", "average", "add", "same-op")
                for healthy in ((), ("healthy",))),
              ("plain", "ema_branches.py", "copy"), ("plain", "ema_branches.py", "copy", "healthy")]


@pytest.mark.parametrize("optimizers", [(), ("two-optimizers",)])
def test_accumulated_loss_leaks_graphs(script_runs: ScriptRuns, optimizers: tuple[str, ...]) -> None:
    """Also when two optimizers step after each backward pass (each step seen twice)."""
    run = script_runs.get("tensor_leak.py", *optimizers)
    event = run.first("tensor_leak")
    assert event["step"] == 15 and event["holder"] == "total_loss"
    assert event["where"] == f"tensor_leak.py:{line_of('tensor_leak.py', 'total_loss += loss', exact=True)}"
    assert event["nodes"] > 30 and event["nodes_per_step"] > 0 and event["bytes"] > 0
    assert run.stdout == "True\n"


def test_an_ema_copy_updated_with_gradients_on_leaks_as_itself(script_runs: ScriptRuns) -> None:
    run = script_runs.get("tensor_leak.py", "ema")
    event = run.first("tensor_leak")
    assert event["holder"] == "ema" and "4 tensors in `ema`" in event["message"], event
    assert event["where"] == f"tensor_leak.py:{line_of('tensor_leak.py', 'averaged.mul_(0.99)')}", event
    assert len(run.events("tensor_leak")) == 1


def test_an_ema_copy_made_by_deepcopy_leaks_at_its_update_not_where_it_was_made(script_runs: ScriptRuns) -> None:
    """`ema = copy.deepcopy(model)`, then `ema_p.mul_(decay).add_(p, alpha=1 - decay)` over its
    parameters without `no_grad()`: the event was located at the deepcopy."""
    run = script_runs.get("tensor_leak.py", "ema-local")
    assert run.stdout == script_runs.plain("tensor_leak.py", "ema-local").stdout, run.stderr
    [event] = run.events()
    assert (event["kind"], event["holder"]) == ("tensor_leak", "ema") and "(in fit)" in event["message"], event
    assert event["where"] == f"tensor_leak.py:{line_of('tensor_leak.py', 'ema_p.mul_(decay)')}", event
    healthy = script_runs.get("tensor_leak.py", "ema-local", "healthy")
    assert healthy.stdout == script_runs.plain("tensor_leak.py", "ema-local", "healthy").stdout
    assert healthy.returncode == 0 and healthy.events() == [], healthy.events()
    # handed to a function of the script that updates it: located there
    helper = script_runs.get("tensor_leak.py", "ema-local", "helper")
    assert helper.stdout == script_runs.plain("tensor_leak.py", "ema-local", "helper").stdout, helper.stderr
    [event] = helper.events()
    assert event["holder"] == "ema" and "(in fit_by_helper)" in event["message"], event
    assert event["where"] == f"tensor_leak.py:{line_of('tensor_leak.py', 'averaged.lerp_(trained')}", event


@pytest.mark.parametrize(("branch", "update"), [("copy", "ema_p.copy_(p)"), ("average", "ema_p.mul_(decay).add_(p"),
                                                ("add", "ema_p.add_(p - ema_p"), ("same-op", None)])
def test_an_ema_leak_is_located_at_the_branch_of_its_helper_that_ran(script_runs: ScriptRuns, branch: str,
                                                                      update: str | None) -> None:
    """An update helper with several branches (`if decay_type == ...: ema_p.mul_(d).add_(p, ...)
    else: ema_p.copy_(p)`): the leak was located at its first update line, whichever ran. The
    parameters' graph tells which did; when two branches make the same ops, the helper is named."""
    run = script_runs.get("ema_branches.py", branch)
    [event] = run.events()
    if update is not None:
        assert (event["kind"], event["holder"]) == ("tensor_leak", "ema"), event
        assert event["where"] == f"ema_branches.py:{line_of('ema_branches.py', update)}", event
        assert "updated in place in" not in event["message"], event
    else:
        assert (event["kind"], event["holder"]) == ("tensor_leak", "warm"), event
        assert event["where"] == f"ema_branches.py:{line_of('ema_branches.py', 'def update_ema_warm(')}", event
        assert "alive, updated in place in update_ema_warm():" in event["message"], event
    healthy = script_runs.get("ema_branches.py", branch, "healthy")
    assert healthy.returncode == 0 and healthy.events() == [], healthy.events()
    if branch == "copy":
        assert run.stdout == script_runs.plain("ema_branches.py", "copy").stdout, run.stderr
        assert healthy.stdout == script_runs.plain("ema_branches.py", "copy", "healthy").stdout, healthy.stderr


def test_a_history_of_lists_in_a_dict_leaks_under_its_key(script_runs: ScriptRuns) -> None:
    run = script_runs.get("tensor_leak.py", "history")
    event = run.first("tensor_leak")
    assert event["step"] == 15 and event["holder"] == "history['loss']", event
    appended = line_of("tensor_leak.py", 'history["loss"].append(loss)')
    assert event["where"] == f"tensor_leak.py:{appended}"
    assert "tensors in `history['loss']` (in train) keep the autograd graphs" in event["message"]


@pytest.mark.parametrize("every", [10, 50])
def test_a_graph_kept_every_few_steps_leaks(script_runs: ScriptRuns, every: int) -> None:
    """Growth at every N-th step (validation without no_grad), not at every sample."""
    run = script_runs.get("periodic_leak.py", *([f"every={every}"] if every != 10 else []))
    event = run.first("tensor_leak")
    assert event["holder"] == "val_losses", event
    assert event["where"] == f"periodic_leak.py:{line_of('periodic_leak.py', 'val_losses.append(val)')}"
    assert event["step"] <= 10 * every + 5 and event["nodes_per_step"] > 0
    assert len(run.events("tensor_leak")) == 1


def test_graphs_kept_but_bounded_are_no_leak(script_runs: ScriptRuns) -> None:
    """A list trimmed to its last entries, a list cleared now and then, a cache filled once."""
    run = script_runs.get("periodic_leak.py", "bounded")
    assert run.events("tensor_leak") == [], run.events()
    assert run.stdout == "0 3 5 1 1 3\n"


def test_history_of_tensors_grows_memory(script_runs: ScriptRuns) -> None:
    run = script_runs.get("memory_growth.py")
    event = run.first("memory_growth")
    assert 20 <= event["step"] <= 80 and event["value"] > 64 * 2 ** 20
    assert run.events("tensor_leak") == []
    memory = [m for m in run.report["series"]["memory_bytes"] if m is not None]
    assert memory[-1] > memory[0]


def test_slow_dataset_makes_the_loop_data_bound(script_runs: ScriptRuns) -> None:
    run = script_runs.get("dataloader_bound.py")
    event = run.first("dataloader_bound")
    assert event["value"] > 0.5 and event["severity"] == "warning"


def test_a_leak_fed_by_a_method_or_a_hook_is_found_where_it_is_fed(script_runs: ScriptRuns) -> None:
    """A queue buffer written in place in the model's own method; a dict of lists a hook
    grows through `setdefault`: `where` is that line, not nothing."""
    queue = script_runs.get("leak_sites.py", "queue").first("tensor_leak")
    assert queue["holder"].endswith("queue") and queue["where"] == f"leak_sites.py:{line_of('leak_sites.py', 'self.queue[self.ptr')}"
    hook = script_runs.get("leak_sites.py", "hook").first("tensor_leak")
    assert hook["holder"] == "acts['history']" and hook["where"] == f"leak_sites.py:{line_of('leak_sites.py', 'acts.setdefault')}"


def test_a_leak_fed_by_a_method_with_another_receiver_name_has_its_site(script_runs: ScriptRuns) -> None:
    """`this.queue = torch.cat([q, this.queue])`: the receiver is the method's first parameter."""
    event = script_runs.get("leak_sites.py", "receiver").first("tensor_leak")
    assert event["holder"].endswith("queue"), event
    assert event["where"] == f"leak_sites.py:{line_of('leak_sites.py', 'this.queue = torch.cat')}", event


@pytest.mark.parametrize(("mode", "line"), [("deque", "recent.append(loss)"), ("pairs", "pairs.append((loss, out))")])
def test_graphs_kept_in_a_deque_or_in_tuples_leak(script_runs: ScriptRuns, mode: str, line: str) -> None:
    """Each step's loss in an unbounded `collections.deque`, or each step's `(loss, output)`
    pair in a list: the same leak as a list of losses, found where it is fed."""
    run = script_runs.get("leak_sites.py", mode)
    event = run.first("tensor_leak")
    assert event["holder"] == line.split(".")[0] and event["where"] == f"leak_sites.py:{line_of('leak_sites.py', line)}", event
    assert len(run.events("tensor_leak")) == 1
