"""Parameters that are never trained: unused in forward, or outside every optimizer;
and the fitting verdicts of the decision table."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PERTURBATIONS = ("data", "param-data", "add")
FREE_TENSORS = ("temperature", "healthy", "scale", "by-hand", "saliency", "probe", "pinn")

PRELAUNCH += [("inline_layers.py",), ("inline_layers.py", "--registered"), ("plain", "inline_layers.py"),
              *[("late_layers.py", mode) for mode in ("experts", "growing", "task-head", "inline")],
              ("pruned_midrun.py", "--fault"), ("pruned_midrun.py",), ("unused_parameter.py",), ("unused_parameter.py", "saturated"), ("unused_in_main.py",), ("param_not_in_optimizer.py",), ("param_not_in_optimizer.py", "stale"), ("param_not_in_optimizer.py", "masters"), ("param_not_in_optimizer.py", "masters-not-copied"),
              ("param_not_in_optimizer.py", "masters-overflow"),
              *[("param_not_in_optimizer.py", variant, "flat") for variant in ("masters", "masters-not-copied",
                                                                               "masters-overflow")],
              ("fitting.py", "overfit"),
              ("fitting.py", "underfit"), *[("single_logit_loss.py", "--loss", loss) for loss in ("ce", "masked", "bce", "ramp")],
              ("birnn_last_step.py",), ("birnn_last_step.py", "--read", "both"), ("birnn_last_step.py", "--one-way"), ("replaced_parameters.py",), ("fitting.py", "mismatch"),
              ("two_stage.py",), ("two_stage.py", "--unfreeze-at", "10", "--rebuild"),
              ("two_stage.py", "--unfreeze-at", "10"), ("scripted_submodule.py",),
              ("scripted_submodule.py", "whole"),
              ("two_stage.py", "--steps", "100", "--unfreeze-at", "71"),
              ("two_stage.py", "--steps", "100", "--unfreeze-at", "71", "--add-group"),
              *[(*args, variant) for args in (("free_parameter.py",), ("plain", "free_parameter.py"))
                for variant in ("fault", "healthy")],
              *[(*args, "--perturb", how) for args in (("free_parameter.py",), ("plain", "free_parameter.py"))
                for how in PERTURBATIONS],
              *[(*args, mode) for args in (("free_tensor.py",), ("plain", "free_tensor.py")) for mode in FREE_TENSORS]]


def test_branch_never_called_is_unused(script_runs: ScriptRuns) -> None:
    run = script_runs.get("unused_parameter.py")
    event = run.first("unused_parameter")
    assert event["module"] == "aux" and event["param"] == "aux.weight"
    assert event["params"] == ["aux.weight", "aux.bias"]
    assert "never called in forward" in event["message"]
    assert len(run.events("unused_parameter")) == 1


@pytest.mark.parametrize("loss", ["ce", "masked"])
def test_a_loss_exactly_zero_from_the_first_step_is_a_model_that_never_trains(script_runs: ScriptRuns,
                                                                               loss: str) -> None:
    """pytorch/examples' DDP tutorial: cross_entropy over one logit per sample, so every loss
    is 0 and every gradient zero from step 1. No fit learned (it began so): the whole model
    is reported once, with the single class named where that is the cause."""
    run = script_runs.get("single_logit_loss.py", "--loss", loss)
    assert run.returncode == 0, run.stderr
    [event] = run.events()
    assert (event["kind"], event["step"], event["module"]) == ("unused_parameter", 1, "Regressor"), event
    assert event["params"] == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert "exactly 0 at every one of the 24 steps, from the first" in event["message"]
    assert ("cross_entropy was given a single class" in event["message"]) is (loss == "ce")
    assert "binary_cross_entropy_with_logits" in run.report["summary"]["problems"][0]["advice"]


@pytest.mark.parametrize("loss", ["bce", "ramp"])
def test_a_loss_that_trains_or_is_held_at_zero_for_a_while_is_no_zero_run(script_runs: ScriptRuns,
                                                                          loss: str) -> None:
    """The ramp holds the loss at exactly 0 for the first 12 steps (more than a zero run
    needs), then the model trains: the run was not zero to its last step."""
    run = script_runs.get("single_logit_loss.py", "--loss", loss)
    assert run.returncode == 0 and run.events() == [], run.events()


def test_layers_that_stop_learning_mid_run_are_reported_from_that_step(script_runs: ScriptRuns) -> None:
    run = script_runs.get("pruned_midrun.py", "--fault")
    assert run.returncode == 0 and run.stdout == script_runs.plain("pruned_midrun.py", "--fault").stdout
    events = run.events("unused_parameter")
    assert {e["step"] for e in events} == {16} and all(e["since"] == 16 for e in events), events
    assert {p for e in events for p in e["params"]} == {"0.weight", "0.bias", "2.weight_orig"}
    assert "received only all-zero gradients from step 16 on (45 of 60 steps)" in events[0]["message"]
    assert "what changed then" in run.report["summary"]["problems"][0]["advice"]
    assert script_runs.get("pruned_midrun.py").events() == []


def test_a_scripted_submodule_leaves_the_names_as_the_model_has_them(script_runs: ScriptRuns) -> None:
    run = script_runs.get("scripted_submodule.py")
    assert run.returncode == 0, run.stderr
    event = run.first("unused_parameter")
    assert (event["module"], event["params"]) == ("spare", ["spare.weight", "spare.bias"]), event


def test_a_scripted_model_is_named_by_the_class_it_was_scripted_from(script_runs: ScriptRuns) -> None:
    """`torch.jit.script(Net())`: the model itself is `Net`, not torch's `RecursiveScriptModule`."""
    run = script_runs.get("scripted_submodule.py", "whole")
    activation = run.first("nonfinite_activation")
    assert activation["module"] == "Net" and "output of Net" in activation["message"], activation
    assert "RecursiveScriptModule" not in run.stderr
    assert run.first("nonfinite_param")["param"] == "head.weight"


def test_head_added_after_the_optimizer(script_runs: ScriptRuns) -> None:
    run = script_runs.get("param_not_in_optimizer.py")
    event = run.first("param_not_in_optimizer")
    assert event["step"] == 1 and event["module"] == "head" and event["param"] == "head.weight"
    assert event["params"] == ["head.weight", "head.bias"]


def test_parameters_only_a_stopped_optimizer_holds(script_runs: ScriptRuns) -> None:
    run = script_runs.get("param_not_in_optimizer.py", "stale")
    assert run.returncode == 0, run.stderr
    events = run.events("param_not_in_optimizer")
    assert [(e["module"], e["params"]) for e in events] == [("0", ["0.weight", "0.bias"])], events
    assert "only an optimizer that stopped stepping holds them" in events[0]["message"]


@pytest.mark.parametrize("layout", [(), ("flat",)], ids=["tensors", "flat"])
def test_fp32_master_weights_train_the_fp16_model(script_runs: ScriptRuns, layout: tuple[str, ...]) -> None:
    """The optimizer steps fp32 copies of the fp16 model's parameters, copied back after
    each step: the model is trained; copies never copied back leave it as it was. The
    copies may lie end to end in one flat tensor (fairseq)."""
    run = script_runs.get("param_not_in_optimizer.py", "masters", *layout)
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()
    stale = script_runs.get("param_not_in_optimizer.py", "masters-not-copied", *layout)
    events = stale.events("param_not_in_optimizer")
    assert [(e["step"], e["params"]) for e in events] == [(2, ["0.weight", "0.bias"]), (2, ["2.weight", "2.bias"])], events
    assert "not copied back into the model" in events[0]["message"], events[0]


def test_a_master_copy_is_named_after_the_models_parameter(script_runs: ScriptRuns) -> None:
    run = script_runs.get("param_not_in_optimizer.py", "masters-overflow")
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 1 and grad["param"] in ("0.weight", "0.bias", "2.weight", "2.bias"), grad
    assert grad["module"] in ("0", "2") and "unnamed" not in grad["message"], grad
    assert run.first("nonfinite_param")["param"] in ("0.weight", "0.bias", "2.weight", "2.bias")
    assert run.events("param_not_in_optimizer") == []


def test_a_flat_master_copy_with_overflowing_gradients(script_runs: ScriptRuns) -> None:
    """One flat copy of every parameter stands for no single one: its non-finite
    gradient is found, and is no parameter outside the optimizer."""
    run = script_runs.get("param_not_in_optimizer.py", "masters-overflow", "flat")
    assert run.first("nonfinite_grad")["step"] == 1
    assert run.events("param_not_in_optimizer") == []


def test_parameters_replaced_in_forward_are_one_problem(script_runs: ScriptRuns) -> None:
    """A module that assigns new nn.Parameters in its forward (an EMA codebook): the
    event says they were replaced, not that they never change, and the old ones'
    missing gradients are folded under it."""
    from sanitizer.report.diagnosis import diagnose

    run = script_runs.get("replaced_parameters.py")
    assert run.returncode == 0, run.stderr
    events = run.events("param_not_in_optimizer")
    assert {e["module"] for e in events} == {"1", "1.codebook"} and all(e["replaced"] for e in events), events
    assert all("ever updates" not in e["message"] and e["step"] == 1 for e in events)
    assert run.first("unused_parameter")["replaced"]
    problems = diagnose(run.report)
    assert [p.kind for p in problems] == ["param_not_in_optimizer"], problems
    assert any("unused_parameter" in line for line in problems[0].symptoms)


def test_layers_built_inside_forward_at_every_call_are_named_with_their_line(script_runs: ScriptRuns) -> None:
    """`nn.LayerNorm(d)(nn.Linear(d, d)(h) + x)` written in a block's forward: two new layers
    at every call, trained by no optimizer. Nothing was reported (their parameters are freed
    with the step's graph before any check sees them). Both blocks of the stack run that
    line: each event names both, where blocks.1 was left out."""
    run = script_runs.get("inline_layers.py")
    plain = script_runs.plain("inline_layers.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    events = run.events()
    site = f"inline_layers.py:{line_of('inline_layers.py', 'return nn.LayerNorm(')}"
    assert [(e["kind"], e["step"], e["module"], e["where"], e["built_in_forward"]) for e in events] == [
        ("param_not_in_optimizer", 3, "blocks.0", site, "Linear"),
        ("param_not_in_optimizer", 3, "blocks.0", site, "LayerNorm")], events
    assert events[0]["message"].startswith("the forwards of blocks.0, blocks.1 (Block) build a new Linear at every "
                                           "call"), events[0]["message"]
    assert all(e["modules"] == ["blocks.0", "blocks.1"] and e["layers"] == 2 for e in events), events
    assert events[0]["first_built_at"] == 2
    problem = run.report["summary"]["problems"][0]
    assert "written inside forward" in problem["advice"], problem


PRELAUNCH += [("built_layers.py", mode) for mode in ("loop", "handed", "registered")]


def test_several_layers_built_at_one_line_of_forward_are_counted(script_runs: ScriptRuns) -> None:
    """A refiner's forward loops three times over `nn.Linear(D, D)(h)`: one event for the
    line, which says three layers were built, where it read as one new Linear."""
    run = script_runs.get("built_layers.py", "loop")
    site = f"built_layers.py:{line_of('built_layers.py', 'h = torch.tanh(nn.Linear(D, D)(h))')}"
    [event] = run.events()
    assert (event["kind"], event["step"], event["module"], event["where"], event["layers"]) == (
        "param_not_in_optimizer", 3, "model", site, 3), event
    assert "builds new Linear layers (3 in step 3) at every call" in event["message"], event["message"]
    assert "their weights are a new random draw" in event["message"] and "so they never train; build each once" in (
        event["message"]), event["message"]


def test_a_head_the_loop_builds_and_hands_to_the_forward_is_not_said_built_in_forward(
        script_runs: ScriptRuns) -> None:
    """A head built in the training loop at each step, handed to `model(x, head)`, no
    optimizer holding it: named once, by the loop's variable, as weights no optimizer holds;
    it was also said to be built by the model's forward at every call."""
    run = script_runs.get("built_layers.py", "handed")
    [event] = run.events()
    assert (event["kind"], event["step"], event["module"]) == ("param_not_in_optimizer", 1, "head"), event
    assert "built_in_forward" not in event and "forward" not in event["message"], event


def test_layers_built_once_and_looped_over_are_no_problem(script_runs: ScriptRuns) -> None:
    run = script_runs.get("built_layers.py", "registered")
    assert run.returncode == 0 and run.events() == [], run.events()


def test_layers_built_in_init_a_lazy_head_and_an_inline_softmax_are_no_problem(script_runs: ScriptRuns) -> None:
    """The same block with its layers built in __init__; a parameter-free `nn.Softmax` made
    inline; a head built at the first call and added to the optimizer then."""
    run = script_runs.get("inline_layers.py", "--registered")
    assert run.returncode == 0 and run.events() == [], run.events()


@pytest.mark.parametrize("mode", ["experts", "growing", "task-head"])
def test_layers_first_called_at_a_later_step_and_trained_are_no_problem(script_runs: ScriptRuns, mode: str) -> None:
    """An expert the router picks for the first time, a block a growing depth enables, both
    built in __init__; a head built per episode, handed to the forward and trained by the
    episode's optimizer. Each was said to be built in the forward and trained by no optimizer."""
    run = script_runs.get("late_layers.py", mode)
    assert run.returncode == 0 and run.events() == [], run.events()


def test_a_layer_built_in_the_outermost_forward_names_the_model_once(script_runs: ScriptRuns) -> None:
    """The outermost model is named by its class: `the forward of Backbone`, not `Backbone (Backbone)`."""
    event = script_runs.get("late_layers.py", "inline").first("param_not_in_optimizer")
    assert (event["step"], event["module"], event["built_in_forward"]) == (3, "Backbone", "Linear"), event
    assert event["message"].startswith("the forward of Backbone builds a new Linear at every call"), event
    # one layer: its weights, it never trains
    assert "its weights are a new random draw" in event["message"] and "so it never trains; build it once" in (
        event["message"]), event["message"]


def test_a_momentum_encoder_and_a_second_stage_optimizer_are_no_problem(script_runs: ScriptRuns) -> None:
    """A target encoder updated by EMA requires grad and no optimizer holds it, by
    design: it gets no gradients. An optimizer built for the second stage holds the
    unfrozen backbone."""
    for args in ((), ("--unfreeze-at", "10", "--rebuild")):
        run = script_runs.get("two_stage.py", *args)
        assert run.returncode == 0 and run.events() == [], (args, run.events())


def test_a_backbone_unfrozen_later_outside_the_optimizer(script_runs: ScriptRuns) -> None:
    """Unfrozen at step 10 with the head's optimizer kept: its gradients are never
    applied, found at the next check (steps 1, 2, 4, 8, 16, ...)."""
    run = script_runs.get("two_stage.py", "--unfreeze-at", "10")
    events = run.events("param_not_in_optimizer")
    assert [(e["step"], e["module"]) for e in events] == [(16, "backbone.0"), (16, "backbone.2")], events
    assert all("receive gradients" in e["message"] for e in events)


def test_a_backbone_unfrozen_after_the_last_doubling_check_is_found_at_the_end(script_runs: ScriptRuns) -> None:
    """Unfrozen at step 71 of 100: no check of steps 1, 2, 4, ..., 64, 128 sees it; the
    check at the end does, and says the step before which it began. Given to the
    optimizer with `add_param_group` instead, it is no problem, though that optimizer,
    local to a function, is gone when the run ends."""
    run = script_runs.get("two_stage.py", "--steps", "100", "--unfreeze-at", "71")
    events = run.events("param_not_in_optimizer")
    assert [(e["step"], e["module"], e["unseen_at"]) for e in events] == [(100, "backbone.0", 64),
                                                                        (100, "backbone.2", 64)], events
    assert "(seen at step 100, not yet at step 64)" in events[0]["message"]
    run = script_runs.get("two_stage.py", "--steps", "100", "--unfreeze-at", "71", "--add-group")
    assert run.returncode == 0 and run.events() == [], run.events()


def test_a_parameter_outside_the_optimizer_is_no_replacement(script_runs: ScriptRuns) -> None:
    event = script_runs.get("param_not_in_optimizer.py").first("param_not_in_optimizer")
    assert "replaced" not in event and "no optimizer step ever updates" in event["message"]


def test_a_free_parameter_no_optimizer_holds_is_named_by_its_variable(script_runs: ScriptRuns) -> None:
    """A CLIP temperature `logit_scale = nn.Parameter(...)` in no module, trained by no
    optimizer: nothing was reported. Named at the second check, when it got a new
    gradient and its value had not moved; in a parameter group of the optimizer, nothing."""
    run = script_runs.get("free_parameter.py", "fault")
    assert (run.returncode, run.stdout) == (0, script_runs.plain("free_parameter.py", "fault").stdout), run.stderr
    [event] = run.events()
    assert (event["kind"], event["step"], event["param"], event["params"]) == (
        "param_not_in_optimizer", 2, "logit_scale", ["logit_scale"]), event
    assert event["module"] is None and event["free"] is True
    assert event["where"] == f"free_parameter.py:{line_of('free_parameter.py', 'optimizer.step()  # the encoders')}"
    assert "no optimizer holds it and its value never changed" in event["message"]
    healthy = script_runs.get("free_parameter.py", "healthy")
    assert healthy.stdout == script_runs.plain("free_parameter.py", "healthy").stdout
    assert healthy.returncode == 0 and healthy.events() == [], healthy.events()


@pytest.mark.parametrize("how", PERTURBATIONS)
def test_a_perturbation_updated_by_hand_is_no_parameter_outside_the_optimizer(script_runs: ScriptRuns,
                                                                              how: str) -> None:
    """Adversarial training: a perturbation that requires grad, in no optimizer by design,
    moved by hand from its gradient at every step (through `.data`, or in place)."""
    run = script_runs.get("free_parameter.py", "--perturb", how)
    assert run.stdout == script_runs.plain("free_parameter.py", "--perturb", how).stdout
    assert run.returncode == 0 and run.events() == [], run.events()


@pytest.mark.parametrize(("mode", "name", "line"), [("temperature", "temperature", "optimizer.step()  # the model only"),
                                                    ("scale", "w", "optimizer.step()")])
def test_a_plain_tensor_that_requires_grad_in_no_optimizer_is_named(script_runs: ScriptRuns, mode: str, name: str,
                                                                   line: str) -> None:
    """`temperature = torch.ones(1, requires_grad=True)` in the loss, or a local `w`
    meant to be trained by hand, in no optimizer: only `nn.Parameter`s were looked at,
    and nothing was reported. Named by its variable at the second check, with its shape."""
    run = script_runs.get("free_tensor.py", mode)
    assert (run.returncode, run.stdout) == (0, script_runs.plain("free_tensor.py", mode).stdout), run.stderr
    [event] = run.events()
    assert (event["kind"], event["step"], event["param"], event["params"], event["free"], event["tensor"]) == (
        "param_not_in_optimizer", 2, name, [name], True, True), event
    shape = "(1,)" if mode == "temperature" else "(8, 1)"
    assert event["message"].startswith(f"{name}, a float32 tensor of shape {shape} with requires_grad=True "), event
    assert "no optimizer holds it and its value never changed" in event["message"]
    if mode == "temperature":
        assert event["where"] == f"free_tensor.py:{line_of('free_tensor.py', line)}"


@pytest.mark.parametrize("mode", ["healthy", "by-hand", "saliency", "probe", "pinn"])
def test_plain_tensors_that_require_grad_trained_or_used_as_data_are_no_finding(script_runs: ScriptRuns,
                                                                              mode: str) -> None:
    """In the optimizer; updated by hand; a batch made to require grad each step (a
    saliency map); a fixed probe input given to the model; a PINN's collocation points,
    differentiated against with `torch.autograd.grad` (their `.grad` fills and they
    never move: the last two were named before they were told apart as data)."""
    run = script_runs.get("free_tensor.py", mode)
    assert run.stdout == script_runs.plain("free_tensor.py", mode).stdout
    assert run.returncode == 0 and run.events() == [], (run.events(), run.stderr)


def test_validation_never_near_training_is_a_mismatch(script_runs: ScriptRuns) -> None:
    """Validation inputs prepared unlike the training ones: validation is far worse
    than an untrained model at every evaluation while training learns. That is a
    mismatch, whatever the last evaluation did, not overfitting."""
    run = script_runs.get("fitting.py", "mismatch")
    assert [e["kind"] for e in run.events() if e["kind"] in ("overfitting", "train_val_mismatch")] == \
        ["train_val_mismatch"], run.events()
    assert "evaluation differs from training" in run.first("train_val_mismatch")["message"]


def test_memorising_random_labels_is_overfitting(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fitting.py", "overfit")
    event = run.first("overfitting")
    assert event["val_end"] > 2 * event["train_end"]
    assert run.events("underfitting") == []


def test_frozen_loss_is_underfitting(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fitting.py", "underfit")
    assert run.first("underfitting")["severity"] == "warning"
    assert run.events("overfitting") == []


def test_layers_the_forward_runs_whose_gradient_vanishes_are_not_called_unused(script_runs: ScriptRuns) -> None:
    """Saturated sigmoids: the first layers run in every forward, but their gradients are
    exactly zero. Said so, with advice about the way back, not "remove them"."""
    run = script_runs.get("unused_parameter.py", "saturated")
    first = run.events("unused_parameter")[0]
    assert first["param"] == "0.weight" and first["gradients"] == "zero" and first["called"] is True, first
    assert "though the forward runs them" in first["message"]
    problem = run.report["summary"]["problems"][0]
    assert problem["kind"] == "unused_parameter" and "saturated activations" in problem["advice"], problem
    plain = script_runs.get("unused_parameter.py").first("unused_parameter")
    assert "called" not in plain and "though the forward" not in plain["message"]


def test_a_bidirectional_rnn_read_at_its_last_step_leaves_the_reverse_recurrence_unused(script_runs: ScriptRuns) -> None:
    """yunjey's bidirectional RNN tutorial: `out[:, -1, :]` is the reverse direction's first
    step, from its zero state, so the last layer's reverse `weight_hh` never counts. Said so,
    with advice on reading both directions, not about saturated activations."""
    [event] = script_runs.get("birnn_last_step.py").events()
    assert (event["module"], event["params"]) == ("lstm", ["lstm.weight_hh_l1_reverse"]), event
    assert event["reverse_first_step"] is True and "reverse direction has seen one input" in event["message"]
    advice = script_runs.get("birnn_last_step.py").report["summary"]["problems"][0]["advice"]
    assert "both directions" in advice and "saturated" not in advice


@pytest.mark.parametrize("args", [("--read", "both"), ("--one-way",)])
def test_rnns_read_where_each_direction_has_seen_the_sequence_are_silent(script_runs: ScriptRuns,
                                                                           args: tuple[str, ...]) -> None:
    run = script_runs.get("birnn_last_step.py", *args)
    assert run.returncode == 0 and run.events() == [], run.events()


def test_unused_parameters_of_a_model_gone_at_the_end_are_still_told_apart(script_runs: ScriptRuns) -> None:
    events = {e["module"]: e for e in script_runs.get("unused_in_main.py").events("unused_parameter")}
    assert set(events) == {"gate", "aux"}, events
    assert events["gate"]["called"] is True and "though the forward runs them" in events["gate"]["message"]
    assert "aux is never called in forward" in events["aux"]["message"]
