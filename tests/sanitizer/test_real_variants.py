"""Real-style scripts written in a way the sanitizer misjudged: a DQN whose target
network is rebuilt with `copy.deepcopy` at each sync, a model given its batch by
keyword, after an empty cache or inside a dict (the batch's size and origin were
read from the first positional argument only), a loss whose hinge term is held at
0 while the other terms train, and a sweep of configurations trained one after the
other, two of which diverge, and a contrastive run that ends 20 steps after its loss's
warm-up rise, and an actor-critic whose target networks follow the trained ones by soft
(Polyak) updates. Each runs as under plain python: same output, same exit status."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

SOFT_UPDATES = ["data", "lerp", "leaky"]

CALLS = ["keywords", "cache", "dict"]
PRELAUNCH += [("dqn_rebuilt_target.py",), ("plain", "dqn_rebuilt_target.py"),
              *[(prefix + ("soft_target.py", how)) for how in SOFT_UPDATES for prefix in ((), ("plain",))],
              *[("keyword_batches.py", "--call", call) for call in CALLS],
              *[("keyword_batches.py", "--data", "slices", "--memorise", "--call", call) for call in CALLS],
              ("plain", "keyword_batches.py", "--call", "dict"),
              ("ranking_terms.py",), ("ranking_terms.py", "--term", "relu"), ("ranking_terms.py", "--prune-step", "150"),
              ("plain", "ranking_terms.py", "--prune-step", "150"), ("lr_sweep.py",), ("plain", "lr_sweep.py"),
              ("moco_queue.py", "--steps", "22"), ("plain", "moco_queue.py", "--steps", "22"), ("moco_queue.py",),
              ("flow_running_norm.py",), ("flow_running_norm.py", "--eval-left-on"),
              ("flow_running_norm.py", "--eval-left-on", "--tracker"), ("plain", "flow_running_norm.py")]


def _kinds(events: list[dict[str, object]]) -> list[object]:
    return [event["kind"] for event in events]


def test_a_target_network_rebuilt_by_deepcopy_is_one(script_runs: ScriptRuns) -> None:
    """Each sync made the TD loss jump: a loss_spike and a grad_spike at step 201 when the
    copy was not seen as a target network."""
    run = script_runs.get("dqn_rebuilt_target.py")
    plain = script_runs.plain("dqn_rebuilt_target.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()
    notes = run.report["summary"]["notes"]
    assert any("target network" in note and "not judged" in note for note in notes), notes


@pytest.mark.parametrize("how", ["data", "lerp"])
def test_target_networks_moved_by_soft_updates_are_healthy(script_runs: ScriptRuns, how: str) -> None:
    """DDPG's targets: second instances loaded with the trained weights, then moved towards
    them at every step through `.data` or by `lerp_` under no_grad. Nothing to report."""
    run = script_runs.get("soft_target.py", how)
    plain = script_runs.plain("soft_target.py", how)
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()


def test_a_soft_update_with_gradients_on_leaks_at_the_update(script_runs: ScriptRuns) -> None:
    """The same update written without no_grad() into frozen target parameters: a leak of
    each target network. It was located at `p.requires_grad_(False)` (a loop over the
    parameters calling a method ending in `_`, which changes no value), and the sanitizer
    read `.grad` of the parameters the update had made non-leaves: torch's warning about it
    reached the script's stderr."""
    run = script_runs.get("soft_target.py", "leaky")
    plain = script_runs.plain("soft_target.py", "leaky")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert "Warning" not in run.stderr and "Warning" not in plain.stderr, run.stderr
    events = run.events()
    assert [(e["kind"], e["holder"]) for e in events] == [("tensor_leak", "actor_target"),
                                                          ("tensor_leak", "critic_target")], events
    # the update of `soft_update` (which main hands the targets to) that made their graphs: not
    # the first one, through `.data`, which autograd does not record, whose ops are the same
    assert {e["where"] for e in events} == {f"soft_target.py:{line_of('soft_target.py', 'tp.mul_(')}"}, events


@pytest.mark.parametrize("call", CALLS)
def test_a_batch_given_by_keyword_or_after_a_cache_or_in_a_dict_has_its_size(script_runs: ScriptRuns,
                                                                             call: str) -> None:
    """Each epoch ends on a batch of one sequence: its gradient was judged a spike of the
    full batches' (a grad_spike at step 63) while the batch's size was unknown."""
    run = script_runs.get("keyword_batches.py", "--call", call)
    assert run.returncode == 0, run.stderr
    assert _kinds(run.events()) == ["overfitting"], run.events()
    if call == "dict":
        plain = script_runs.plain("keyword_batches.py", "--call", "dict")
        assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout)


@pytest.mark.parametrize("call", CALLS)
def test_a_batch_given_by_keyword_tells_an_evaluation_on_the_training_data(script_runs: ScriptRuns,
                                                                          call: str) -> None:
    """The evaluation on the training tensor was taken for validation and averaged
    into it: the overfitting's last validation loss was half the one printed."""
    run = script_runs.get("keyword_batches.py", "--data", "slices", "--memorise", "--call", call)
    assert run.returncode == 0, run.stderr
    (event,) = run.events()
    assert event["kind"] == "overfitting" and event["val_end"] == pytest.approx(
        float(run.stdout.split("val ")[-1]), abs=1e-4), event


@pytest.mark.parametrize("term", ["module", "relu"])
def test_a_hinge_term_held_at_zero_beside_a_training_loss_is_no_stopped_learning(script_runs: ScriptRuns,
                                                                                term: str) -> None:
    """From step 83 on every pair meets the margin and the scorer's gradients are all
    zero, while the cross-entropy trains on: it was reported as stopped learning."""
    run = script_runs.get(*(("ranking_terms.py",) if term == "module" else ("ranking_terms.py", "--term", term)))
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


def test_a_layer_pruned_under_a_hinge_term_stopped_learning_when_it_was_pruned(script_runs: ScriptRuns) -> None:
    """The scorer is pruned at step 150: the ranking term stays at the margin, and the
    scorer's zero gradients are no margin met (they were dated from step 83)."""
    run = script_runs.get("ranking_terms.py", "--prune-step", "150")
    plain = script_runs.plain("ranking_terms.py", "--prune-step", "150")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    (event,) = run.events()
    assert (event["kind"], event["step"], event["since"], event["module"]) == ("unused_parameter", 150, 150, "scorer")
    assert {"scorer.0.weight", "scorer.0.bias"} <= set(event["params"]), event


def test_each_configuration_of_a_sweep_is_judged_for_divergence(script_runs: ScriptRuns) -> None:
    """A fresh model and optimizer per learning rate: the second and the fourth diverge;
    the fourth was not judged once the second had been reported."""
    run = script_runs.get("lr_sweep.py")
    plain = script_runs.plain("lr_sweep.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert [(event["kind"], event["step"]) for event in run.events()] == [("divergence", 82), ("divergence", 242)]


def test_a_run_that_ends_soon_after_a_warm_up_rise_is_too_short_to_judge(script_runs: ScriptRuns) -> None:
    """moco_queue.py's loss rises from 0.006 at step 1 to 0.3 at step 2 (a blow-up), then on
    to 0.9 as real keys fill the queue: a rise judged 50 losses after it, by whether the
    loss trained down from its peak. A run that ends 20 steps after it was reported as a
    divergence at step 2; it is too short to judge. Its 90 steps train down: nothing either."""
    run = script_runs.get("moco_queue.py", "--steps", "22")
    plain = script_runs.plain("moco_queue.py", "--steps", "22")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()
    assert script_runs.get("moco_queue.py").events() == []


def test_a_normalization_of_the_scripts_own_left_in_eval_mode_is_frozen(script_runs: ScriptRuns) -> None:
    """ikostrikov/pytorch-flows' BatchNormFlow: batch statistics `if self.training`,
    running ones else. Left in eval mode after the first epoch's validation, the flow
    trains on frozen statistics from step 9 on; a scale that keeps a `running_` buffer
    but reads no `self.training` changes nothing in eval mode."""
    healthy = script_runs.get("flow_running_norm.py")
    assert healthy.events() == [] and healthy.stdout == script_runs.plain("flow_running_norm.py").stdout
    [event] = script_runs.get("flow_running_norm.py", "--eval-left-on").events("train_in_eval_mode")
    assert event["step"] == 9 and "3 RunningNorm" in event["message"], event
    assert "frozen normalization statistics" in event["message"] and event["module"] == "layers.1", event
    assert script_runs.get("flow_running_norm.py", "--eval-left-on", "--tracker").events() == []
