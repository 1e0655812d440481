"""NaN/Inf localization: the step, the first non-finite module, the culprit, the parameter."""
from __future__ import annotations

import io

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from sanitizer import Sanitizer
from sanitizer.core import locations
from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("own_feature_inf.py",), ("nonfinite_target.py",), ("aux_loss_inf.py",), ("aux_loss_inf.py", "healthy"), ("nonfinite_culprit.py",), ("nonfinite_culprit.py", "frozen"), ("nonfinite_backward.py",), ("nonfinite_input.py",), ("nonfinite_input.py", "background"), ("nonfinite_input.py", "masked"),
              ("nonfinite_param.py",), ("param_written.py",), ("validation_nan.py", "data"),
              ("validation_nan.py", "train"), ("validation_nan.py", "healthy"),
              ("validation_nan.py", "per_sample"), ("validation_nan.py", "checkpoint"), ("loss_from_finite.py",), ("loss_from_finite.py", "masked"),
              ("goodness_layers.py",), ("goodness_layers.py", "--lr-scale", "1e4"), ("plain", "goodness_layers.py"),
              ("zero_head_ignored.py",), ("zero_head_ignored.py", "int32"), ("masked_helper_loss.py",), ("masked_helper_loss.py", "counted"), ("masked_helper_loss.py", "timed"),
              ("backward_born_nan.py",), ("backward_born_nan.py", "healthy"),
              ("hooked_outputs.py",), ("hooked_outputs.py", "observed"),
              ("lbfgs_closure_nan.py", "--fault", "4"), ("lbfgs_closure_nan.py",),
              *[("hand_written_nan.py", mode) for mode in ("nan", "fill", "late", "healthy")],
              *[("normalized_update.py", *mode) for mode in (("hand",), ("data",), ("optimizer",), ("outside",),
                                                             ("hand", "healthy"), ("optimizer", "healthy"),
                                                             ("outside", "healthy"))],
              *[("plain", "normalized_update.py", mode, "healthy") for mode in ("hand", "optimizer", "outside")]]


@pytest.mark.parametrize("frozen", [(), ("frozen",)])
def test_overflowing_linear_is_named_as_the_culprit(script_runs: ScriptRuns, frozen: tuple[str, ...]) -> None:
    run = script_runs.get("nonfinite_culprit.py", *frozen)
    assert run.returncode == 0, run.stderr
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 8
    assert activation["culprit"] == "encoder.fc1"
    assert activation["first_nonfinite_module"] == activation["module"]
    assert activation["module"] in ("encoder.fc1", "encoder.fc2", "encoder.norm")
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 8 and loss["module"] == "encoder.fc1" and loss["value"] in ("nan", "inf")
    assert loss["where"] == f"nonfinite_culprit.py:{line_of('nonfinite_culprit.py', 'loss = nn.functional')}"
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 8 and grad["param"] == "encoder.fc1.weight" and grad["module"] == "encoder.fc1"
    assert "sanitizer: nonfinite_loss at step 8" in run.stderr
    assert run.stdout == "finished\n"


def test_nan_born_in_backward_is_pinned_on_the_gradient(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_backward.py")
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 6
    assert grad["module"] == "gate.proj" and grad["param"] in ("gate.proj.weight", "gate.proj.bias")
    assert run.first("nonfinite_activation")["step"] == 7  # only after the NaN update
    assert run.first("nonfinite_param")["step"] == 6


@pytest.mark.parametrize("mode", ["ignored", "masked"])
def test_a_loss_made_non_finite_by_its_own_computation_says_so(script_runs: ScriptRuns, mode: str) -> None:
    """Model outputs and target finite: a mean over zero items (every label ignore_index, an
    empty mask). The event says so and points at the loss line; the advice is the loss's."""
    run = script_runs.get("loss_from_finite.py", *(["masked"] if mode == "masked" else []))
    event = run.first("nonfinite_loss")
    assert event["step"] == 4 and event["module"] is None and event["origin"] == "loss_computation", event
    assert "the model's outputs are finite: the loss computation made it, itself or from a tensor it used" in event["message"]
    text = "return criterion(" if mode == "ignored" else "loss = compute_loss("
    assert event["where"] == f"loss_from_finite.py:{line_of('loss_from_finite.py', text)}"
    if mode == "ignored":
        assert "every target of F.cross_entropy equals ignore_index (-100)" in event["message"], event
    # the NaN update makes the next forward NaN: a consequence, folded under the loss
    assert all(e["step"] > 4 for e in run.events("nonfinite_activation")) and run.events("nonfinite_input") == []
    problem = run.report["summary"]["problems"][0]
    assert problem["kind"] == "nonfinite_loss" and "mean over zero items" in problem["advice"]
    assert "lower the learning rate" not in problem["advice"]
    assert run.stdout == "finished\n"


PRELAUNCH += [("token_normalized_loss.py", "--padding-batch", "6"), ("token_normalized_loss.py", "--padding-batch", "6",
                                                                   "--clamped"),
              ("token_normalized_loss.py", "--padding-batch", "6", "--mean"), ("token_normalized_loss.py",),
              ("plain", "token_normalized_loss.py")]


def test_a_loss_made_non_finite_after_a_finite_functional_loss_points_at_that_line(
        script_runs: ScriptRuns) -> None:
    """The model returns its cross-entropy summed over real tokens; the loop divides it by
    the batch's token count. A batch of padding only: the sum is 0, finite, the division
    0 / 0. The event points at the division, not at the cross-entropy in the model, which
    it used to name though its value was finite."""
    run = script_runs.get("token_normalized_loss.py", "--padding-batch", "6")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_loss")
    assert (event["step"], event["origin"]) == (6, "loss_computation"), event
    division = line_of("token_normalized_loss.py", "loss = loss_sum / normaliser")
    assert event["where"] == f"token_normalized_loss.py:{division}", event
    clamped = script_runs.get("token_normalized_loss.py", "--padding-batch", "6", "--clamped")
    assert clamped.returncode == 0 and clamped.events() == [], clamped.events()
    healthy = script_runs.get("token_normalized_loss.py")
    assert healthy.events() == [] and healthy.stdout == script_runs.plain("token_normalized_loss.py").stdout


PRELAUNCH += [("token_normalized_loss.py", "--padding-batch", "6", "--in-forward"),
              ("token_normalized_loss.py", "--in-forward")]


def test_a_loss_a_forward_returns_in_a_dict_points_at_the_model_call(script_runs: ScriptRuns) -> None:
    """The model divides its summed cross-entropy by its token count and returns it in a dict;
    the loop calls `out["loss"].backward()`. A batch of padding only: 0 / 0 in the forward.
    The event points at the line that called the model, which assigned `out`, not at the
    backward's line."""
    run = script_runs.get("token_normalized_loss.py", "--padding-batch", "6", "--in-forward")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_loss")
    called = line_of("token_normalized_loss.py", "out = model(tokens, tags)")
    assert (event["step"], event["where"]) == (6, f"token_normalized_loss.py:{called}"), event
    assert script_runs.get("token_normalized_loss.py", "--in-forward").events() == []


def test_a_functional_loss_that_was_non_finite_itself_stays_named_when_scaled_later(
        script_runs: ScriptRuns) -> None:
    """The model averages its cross-entropy over zero real tokens (NaN) and the loop only
    divides it by the accumulation count: the cross-entropy made the NaN, and is named."""
    run = script_runs.get("token_normalized_loss.py", "--padding-batch", "6", "--mean")
    event = run.first("nonfinite_loss")
    cross_entropy = line_of("token_normalized_loss.py", "loss = F.cross_entropy(")
    assert (event["step"], event["where"]) == (6, f"token_normalized_loss.py:{cross_entropy}"), event


def test_a_loss_overflowing_on_outputs_an_update_blew_up_names_the_module_not_the_loss(
        script_runs: ScriptRuns) -> None:
    """Layer-local training with log(1 + exp(margin)) and a learning rate 10^4 too high: the
    first update makes the layer's outputs 3000 times larger (about 1e3, finite, far below the
    culprit floor), exp() overflows at step 2. It was told the loss computation made it and
    that a smaller learning rate would not fix it."""
    run = script_runs.get("goodness_layers.py", "--lr-scale", "1e4")
    event = run.first("nonfinite_loss")
    assert (event["step"], event["module"], event["origin"]) == (2, "stack.0", "outputs_jumped"), event
    assert "stack.0's grew to" in event["message"] and "times its level of the steps before" in event["message"]
    assert event["where"] == f"goodness_layers.py:{line_of('goodness_layers.py', 'loss = torch.log1p(')}"
    problem = run.report["summary"]["problems"][0]
    assert problem["kind"] == "nonfinite_loss" and "lower the learning rate" in problem["advice"], problem
    assert "will not fix" not in problem["advice"]


def test_a_loss_a_helper_of_another_module_made_non_finite_points_at_the_helper(script_runs: ScriptRuns) -> None:
    """The loop's `loss = masked_token_loss(logits, tags, mask)` calls a helper of
    token_losses.py, whose masked mean is 0 / 0 on a batch of padding only: the event
    points at the helper's line computing that mean (it pointed at the loop's call). A
    helper in the script itself keeps its call's line (`loss = compute_loss(` above)."""
    event = script_runs.get("masked_helper_loss.py").first("nonfinite_loss")
    assert (event["step"], event["origin"]) == (5, "loss_computation"), event
    assert event["where"] == f"token_losses.py:{line_of('token_losses.py', 'return kept.sum() / mask.sum()')}", event


def test_a_loss_a_decorated_helper_made_non_finite_points_at_the_helper_not_its_wrapper(
        script_runs: ScriptRuns) -> None:
    """The same helper under a `functools.wraps` decorator counting its calls: the event
    points at the helper's own line computing the mean, not at the wrapper's `return
    function(*args, **kwargs)`."""
    event = script_runs.get("masked_helper_loss.py", "counted").first("nonfinite_loss")
    assert (event["step"], event["origin"]) == (5, "loss_computation"), event
    assert event["where"] == \
        f"token_losses.py:{line_of('token_losses.py', 'return (per_token * mask).sum() / mask.sum()')}", event


def test_a_loss_behind_a_wrapper_that_hides_its_helper_points_at_the_loop(script_runs: ScriptRuns) -> None:
    """The same helper under a decorator with no `functools.wraps`: what runs is the
    decorator's closure, which says nothing of the helper, so the event points at the loop's
    call, not at the closure's `result = function(*args, **kwargs)`."""
    event = script_runs.get("masked_helper_loss.py", "timed").first("nonfinite_loss")
    assert (event["step"], event["origin"]) == (5, "loss_computation"), event
    assert event["where"] == \
        f"masked_helper_loss.py:{line_of('masked_helper_loss.py', 'loss = token_loss(logits, tags, mask)')}", event


@pytest.mark.parametrize("labels", [(), ("int32",)])
def test_all_targets_ignored_under_a_zero_initialised_head_is_the_loss_computation(
        script_runs: ScriptRuns, labels: tuple[str, ...]) -> None:
    """A last layer initialised at zero gives outputs of exactly 0 at step 1 and of about
    0.2 at step 2, when every label is ignore_index: that growth is learning from zero, and
    the NaN is the loss's mean over zero items. It was said the outputs had jumped 10^5-fold.
    `int32`: the labels the loss read were made in its call (`tags.int().long()`), gone
    once the backward pass freed its graph: the note was left out."""
    event = script_runs.get("zero_head_ignored.py", *labels).first("nonfinite_loss")
    assert (event["step"], event["module"], event["origin"]) == (2, None, "loss_computation"), event
    assert "every target of F.cross_entropy equals ignore_index (-100)" in event["message"], event


def test_layer_local_training_at_its_learning_rate_is_healthy(script_runs: ScriptRuns) -> None:
    run = script_runs.get("goodness_layers.py")
    plain = script_runs.plain("goodness_layers.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()


def test_nan_born_in_a_parameter_free_modules_backward_names_that_module(script_runs: ScriptRuns) -> None:
    """A custom autograd.Function's backward makes Inf from finite gradients: the module
    before it only receives the NaN; the one after it got finite gradients. The order
    cannot tell that from the module before making its own NaN: both are named."""
    run = script_runs.get("backward_born_nan.py")
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 1 and grad["suspect"] == "act", grad
    assert grad["param"] in ("enc.weight", "enc.bias") and grad["module"] == "enc"
    assert ("either the backward of act (no parameters; run between enc and head, which got finite gradients) "
            "turned finite gradients into non-finite ones, or the backward of enc made them") in grad["message"], grad
    # the forward of step 1 was finite; the NaN update breaks the next one
    assert all(e["step"] > 1 for e in run.events("nonfinite_loss") + run.events("nonfinite_activation"))
    assert script_runs.get("backward_born_nan.py", "healthy").events() == []


def test_a_value_the_model_computes_itself_is_not_called_its_output(script_runs: ScriptRuns) -> None:
    run = script_runs.get("own_feature_inf.py")
    assert run.returncode == 0 and run.stdout.startswith("finite output True\n"), run.stderr
    event = run.first("nonfinite_activation")
    assert event["step"] == 1 and event["module"] == "FeatureNet"
    assert event["message"].startswith("the code of FeatureNet's own forward (not one of its child modules) "
                                       "computed a value that is Inf and handed it to a child module")
    assert "output of" not in event["message"]


def test_corrupt_batch_is_reported_as_input(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_input.py")
    event = run.first("nonfinite_input")
    assert event["step"] == 5 and event["severity"] == "error"
    assert event["where"] == f"nonfinite_input.py:{line_of('nonfinite_input.py', 'loss = nn.functional')}"
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 5 and loss["module"] is None and "input batch" in loss["message"]


def test_nan_the_model_masks_on_purpose_is_no_error(script_runs: ScriptRuns) -> None:
    """NaN as "missing" (an isnan mask and a learned fill): nothing downstream of the batch
    is non-finite, so nothing is reported; a note says the batch held NaN."""
    run = script_runs.get("nonfinite_input.py", "masked")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()
    assert "holds NaN values that the model masks" in run.stderr, run.stderr


def test_a_forward_running_in_another_thread_is_no_caller_of_the_training_forward(script_runs: ScriptRuns) -> None:
    """Each thread has its own nesting of module calls: the monitor's forward, blocked in
    another thread, takes no blame for the corrupt batch."""
    run = script_runs.get("nonfinite_input.py", "background")
    assert run.returncode == 0, run.stderr
    assert run.first("nonfinite_input")["step"] == 5
    assert not run.events("sanitizer_error"), run.events("sanitizer_error")
    assert all("Monitor" not in str(event.get("module")) and "Monitor" not in event["message"]
               for event in run.events()), run.events()


def test_weights_written_between_steps_are_not_blamed_on_the_update_alone(script_runs: ScriptRuns) -> None:
    run = script_runs.get("param_written.py")
    event = run.first("nonfinite_param")
    assert event["step"] == 3 and event["param"] == "0.weight"
    # the weights were read right after step 3's update, finite: the code after it wrote them
    assert event["origin"] == "outside_optimizer" and event["where"] is None, event
    assert "whose optimizer step() left it finite: code outside the optimizer changed it before step 4's forward" \
        in event["message"]
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_param"


PRELAUNCH += [("frozen_hooked.py", mode) for mode in ("post", "global-pre", "look-alike")]


@pytest.mark.parametrize("mode", ["post", "global-pre"])
def test_frozen_weights_a_step_hook_writes_are_named_at_that_step(script_runs: ScriptRuns, mode: str) -> None:
    """A frozen layer that a step hook of the script's (the optimizer's post-step hook, a
    global pre-step hook running after the sanitizer's) divides by zero inside step 3's
    step(): the weights were read before step() and taken as untouched by it, so the NaN was
    put at step 2, "Inf already before the update"; now a step hook not the sanitizer's
    keeps them read after the update, which names step 3."""
    run = script_runs.get("frozen_hooked.py", mode)
    event = run.first("nonfinite_param")
    assert (event["step"], event["param"]) == (3, "0.weight"), event
    assert "already" not in event["message"], event
    # read after the hook returned: the update is not claimed to have made it on its own
    assert "own arithmetic" not in event["message"], event
    hook_site = f"frozen_hooked.py:{line_of('frozen_hooked.py', 'def hook(')}"
    assert f"the optimizer's step() or a step hook of the script (hook ({hook_site}))" in event["message"], event
    assert script_runs.get("frozen_hooked.py", "look-alike").report["events"] == []


def test_parameter_broken_by_the_update(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_param.py")
    event = run.first("nonfinite_param")
    assert event["step"] == 1 and event["param"] == "embed.weight" and event["module"] == "embed"
    # read as the step() left it, though no forward reads the NaN rows
    assert event["origin"] == "optimizer_step" and "from finite gradients" in event["message"], event
    assert event["where"] == f"nonfinite_param.py:{line_of('nonfinite_param.py', 'opt.step()')}"
    assert run.first("nonfinite_activation")["step"] == 2


def test_nan_only_in_validation_is_reported_once(script_runs: ScriptRuns) -> None:
    """A validation loss that is NaN while training stays finite (a corrupt validation
    sample) is a problem of its own, reported at the first validation."""
    run = script_runs.get("validation_nan.py", "data")
    assert run.returncode == 0, run.stderr
    assert [e["kind"] for e in run.report["events"]] == ["nonfinite_validation"]
    event = run.first("nonfinite_validation")
    assert event["step"] == 9 and event["value"] == "nan" and "after step 8" in event["message"]
    assert event["where"] == f"validation_nan.py:{line_of('validation_nan.py', 'total += F.cross_entropy(model(x), y).item()')}"


def test_a_nan_among_per_sample_validation_losses_is_reported(script_runs: ScriptRuns) -> None:
    """`reduction="none"` (SAM's smoothed cross-entropy): no validation level to compare
    with training, but a NaN among the per-sample losses is still a NaN validation."""
    run = script_runs.get("validation_nan.py", "per_sample")
    assert [e["kind"] for e in run.report["events"]] == ["nonfinite_validation"], run.report["events"]
    event = run.first("nonfinite_validation")
    assert event["step"] == 9 and "after step 8" in event["message"]
    assert event["where"] == f"validation_nan.py:{line_of('validation_nan.py', 'total += F.cross_entropy(model(x), y, reduction')}"


def test_a_nan_weight_of_an_evaluated_checkpoint_is_named(script_runs: ScriptRuns) -> None:
    """An evaluation-only script whose checkpoint holds a NaN weight: the event names
    the weight and says no training ran; the advice is the checkpoint's, not the data's."""
    run = script_runs.get("validation_nan.py", "checkpoint")
    assert run.returncode == 0 and run.stdout == "validation nan\n", run.stderr
    event = run.first("nonfinite_validation")
    assert (event["module"], event["param"]) == ("model", "model.2.weight"), event
    assert "(no training step ran)" in event["message"] and "training stays finite" not in event["message"]
    problem = run.report["summary"]["problems"][0]
    assert "checkpoint" in problem["advice"] and "validation data" not in problem["advice"], problem


def test_validation_after_a_nan_in_training_is_no_problem_of_its_own(script_runs: ScriptRuns) -> None:
    run = script_runs.get("validation_nan.py", "train")
    assert run.first("nonfinite_loss")["step"] == 14
    assert not run.events("nonfinite_validation")
    assert not script_runs.get("validation_nan.py", "healthy").report["events"]


def test_a_nan_target_is_reported_as_the_data_not_the_model(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_target.py")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_input")
    assert event["step"] == 6 and event["operand"] == "target"
    assert "target passed to F.mse_loss contains NaN values (1 of 8)" in event["message"]
    assert event["where"] == f"nonfinite_target.py:{line_of('nonfinite_target.py', 'loss = criterion(')}"
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 6 and loss["module"] is None and "the target passed to F.mse_loss" in loss["message"]
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_input"


PRELAUNCH += [("nonfinite_target.py", "accumulate")]


def test_a_nan_target_is_named_when_the_loss_is_halved_for_accumulation(script_runs: ScriptRuns) -> None:
    """`(loss / 2).backward()` runs on a tensor computed from the MSE loss, not on it: the
    NaN target of the 6th batch (in step 3, two batches a step) is still named."""
    run = script_runs.get("nonfinite_target.py", "accumulate")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_input")
    assert event["step"] == 3 and "target passed to F.mse_loss contains NaN values (1 of 8)" in event["message"]
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 3 and "the target passed to F.mse_loss holds NaN" in loss["message"], loss


PRELAUNCH += [("nonfinite_target.py", "penalty")]


def test_a_nan_target_is_named_when_a_second_functional_loss_is_added_after_it(script_runs: ScriptRuns) -> None:
    """`loss = mse + 1e-3 * F.l1_loss(weight, 0)`: the loss backward ran on came from two
    functional losses; the MSE loss, the first and the one that was NaN, is named with its
    target, at its own line. Only the latest, the finite L1 penalty, was kept: the NaN was
    'the loss computation', at the backward's line."""
    run = script_runs.get("nonfinite_target.py", "penalty")
    assert run.returncode == 0, run.stderr
    mse = f"nonfinite_target.py:{line_of('nonfinite_target.py', 'loss = criterion(')}"
    event = run.first("nonfinite_input")
    assert event["step"] == 6 and "target passed to F.mse_loss contains NaN values (1 of 8)" in event["message"]
    assert event["where"] == mse, event
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 6 and "the target passed to F.mse_loss holds NaN" in loss["message"], loss
    assert loss["where"] == mse, loss


def _format_site_calls(monkeypatch: pytest.MonkeyPatch, divisor: float | None) -> int:
    """How many sites a short run formats, its loss `F.mse_loss(...)`, divided by `divisor`."""
    calls = []
    format_site = locations.format_site
    monkeypatch.setattr(locations, "format_site", lambda *site: calls.append(site) or format_site(*site))
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(stream=io.StringIO(), report=None):
        for _ in range(12):
            loss = F.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
            loss = loss / divisor if divisor is not None else loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    monkeypatch.undo()
    return len(calls)


def test_a_loss_computed_from_a_functional_loss_costs_no_line_lookup_per_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most loops run backward on a loss computed from a functional loss (`loss / accumulation`,
    `ce + aux`): the backward's line is found only when a non-finite loss needs it, not at
    every step (it was, one more site formatted a step)."""
    assert _format_site_calls(monkeypatch, 2.0) == _format_site_calls(monkeypatch, None)


def test_an_auxiliary_loss_a_layer_returns_is_traced(script_runs: ScriptRuns) -> None:
    run = script_runs.get("aux_loss_inf.py")
    assert run.returncode == 0, run.stderr
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 11 and loss["module"] == "moe", loss
    assert run.first("nonfinite_activation")["module"] == "moe"
    healthy = script_runs.get("aux_loss_inf.py", "healthy")
    assert healthy.returncode == 0 and healthy.events() == [], healthy.events()


PRELAUNCH += [("input_sources.py", "gan"), ("input_sources.py", "views"), ("input_sources.py", "transform"),
              ("input_sources.py", "head")]


def test_a_corrupt_batch_names_the_model_and_the_call_that_got_it(script_runs: ScriptRuns) -> None:
    """The discriminator's real batch, not the generator's call before it; the second
    view's call, not the first view's."""
    gan = script_runs.get("input_sources.py", "gan").first("nonfinite_input")
    assert gan["step"] == 11 and gan["module"] == "D" and "passed to D" in gan["message"], gan
    assert gan["where"] == f"input_sources.py:{line_of('input_sources.py', 'loss_d = bce(D(real)')}"
    views = script_runs.get("input_sources.py", "views").first("nonfinite_input")
    assert views["step"] == 6 and "passed to the model" in views["message"] and not views.get("module"), views
    assert views["where"] == f"input_sources.py:{line_of('input_sources.py', 'second = net(view)')}"


def test_a_data_transform_module_is_not_taken_for_the_model(script_runs: ScriptRuns) -> None:
    run = script_runs.get("input_sources.py", "transform")
    event = run.first("train_in_eval_mode")
    assert event["where"] == f"input_sources.py:{line_of('input_sources.py', 'out = model(x)')}", event
    assert run.stdout == "done\n"


def test_a_parameter_free_head_on_the_models_output_is_traced(script_runs: ScriptRuns) -> None:
    """Called by keyword on what the model computed: no data transform, its NaN is its own."""
    event = script_runs.get("input_sources.py", "head").first("nonfinite_activation")
    assert event["step"] == 6 and event["module"] == "LogHead", event


PRELAUNCH += [("batch_arguments.py", mode) for mode in ("weights", "keyword", "dict", "mask", "mask_overflow", "state")]


@pytest.mark.parametrize(("mode", "argument", "call"), [
    ("weights", "weights", "out, y = model(ids, weights)"), ("keyword", "x", "out, y = model(x=x)"),
    ("dict", "batch['x']", "out, y = model({")])
def test_a_corrupt_batch_among_the_models_other_arguments_is_the_input(
        script_runs: ScriptRuns, mode: str, argument: str, call: str) -> None:
    """Not the model's first argument (token ids, then per-sample weights), by keyword, or
    inside a dict: the batch is blamed and its argument named, not the first module."""
    run = script_runs.get("batch_arguments.py", mode)
    assert run.returncode == 0 and run.stdout == "done\n", run.stderr
    event = run.first("nonfinite_input")
    assert event["step"] == 3 and event["argument"] == argument, event
    assert f"(its argument {argument})" in event["message"]
    assert event["where"] == f"batch_arguments.py:{line_of('batch_arguments.py', call)}", event
    assert all(e["step"] > 3 for e in run.events("nonfinite_activation")), run.events()
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_input"


@pytest.mark.parametrize("mode", ["mask", "mask_overflow"])
def test_an_additive_mask_beside_the_batch_is_no_bad_data(script_runs: ScriptRuns, mode: str) -> None:
    """A padding mask of 0 and -inf given beside the batch, padded on some steps only: no
    event and no note in a healthy run; when the model's own scores overflow, the blame
    is the model's, not the mask's."""
    run = script_runs.get("batch_arguments.py", mode)
    assert run.returncode == 0, run.stderr
    assert "masks" not in run.stderr and run.events("nonfinite_input") == [], run.events()
    if mode == "mask":
        assert run.events() == [], run.events()
    else:
        assert run.first("nonfinite_activation")["step"] == 4
        assert run.first("nonfinite_loss")["module"] == "q"


def test_a_recurrent_state_carried_from_a_non_finite_step_is_no_bad_data(script_runs: ScriptRuns) -> None:
    """model(x, h), h the model's own output of the step before: its NaN after the model's
    overflow is that overflow's consequence, no corrupt batch."""
    run = script_runs.get("batch_arguments.py", "state")
    assert run.returncode == 0, run.stderr
    assert run.events("nonfinite_input") == [], run.events()
    assert run.first("nonfinite_activation")["step"] == 3
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_activation"


@pytest.mark.parametrize("mode", ["guarded", "observed"])
def test_an_output_replaced_by_the_scripts_own_hook_is_judged_as_the_model_uses_it(
        script_runs: ScriptRuns, mode: str) -> None:
    """torch runs the sanitizer's global hooks before a module's own: a hook that turns a
    layer's NaN rows into zeros leaves nothing non-finite; one that only looks does not."""
    run = script_runs.get("hooked_outputs.py", *(["observed"] if mode == "observed" else []))
    assert run.returncode == 0, run.stderr
    hooks = "hooks [0, 0, 0, 0, 1, 1, 0, 0]\n"  # only the script's own hooks, after every call
    if mode == "guarded":
        assert not [e for e in run.events() if e["kind"].startswith("nonfinite")], run.report["events"]
        assert run.stdout == hooks
    else:
        activation = run.first("nonfinite_activation")
        assert activation["step"] == 3 and activation["module"] == "0.2", activation
        assert run.stdout == "non-finite at step 3\n" + hooks


def test_a_nan_batch_under_lbfgs_is_the_batch_whatever_the_iterations_before(script_runs: ScriptRuns) -> None:
    """LBFGS calls the closure up to 20 times a step; the calls after the measured one
    ran before the next step's forward and must not crowd its trail out: the NaN batch
    of step 4 is named, not a loss computation."""
    run = script_runs.get("lbfgs_closure_nan.py", "--fault", "4")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_input")
    assert event["step"] == 4, event
    assert event["where"] == f"lbfgs_closure_nan.py:{line_of('lbfgs_closure_nan.py', 'loss = criterion(')}"
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 4 and "because the input batch is non-finite" in loss["message"], loss
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_input"
    healthy = script_runs.get("lbfgs_closure_nan.py")
    assert healthy.returncode == 0 and healthy.report["events"] == [], healthy.report["events"]
    assert run.stdout == healthy.stdout == "finished\n"


@pytest.mark.parametrize("mode, param, line", [
    ("nan", "head.weight", 'model.head.weight[0, 2] = float("nan") if'),
    ("fill", "head.bias", "model.head.bias.fill_("),
])
def test_a_weight_written_non_finite_by_hand_is_reported_at_the_writing_line(
        script_runs: ScriptRuns, mode: str, param: str, line: str) -> None:
    run = script_runs.get("hand_written_nan.py", mode)
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    site = f"hand_written_nan.py:{line_of('hand_written_nan.py', line)}"
    assert event["step"] == 3 and event["param"] == param and event["module"] == "head", event
    assert event["where"] == site and event["written"] is True, event
    assert f"the script wrote a non-finite value into it at {site}" in event["message"]
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_param"


def test_a_weight_written_non_finite_before_the_update_is_the_update_s(script_runs: ScriptRuns) -> None:
    """The update wrote the weight after the script's NaN: what it holds is the update's
    work, reported at the update as before, not at the line of the NaN."""
    run = script_runs.get("hand_written_nan.py", "late")
    event = run.first("nonfinite_param")
    assert event["step"] == 3 and event["param"] == "head.weight", event
    assert "written" not in event and event["where"] == f"hand_written_nan.py:{line_of('hand_written_nan.py', 'opt.step()')}"
    # the update kept the NaN the script wrote: not the update's own arithmetic
    site = f"hand_written_nan.py:{line_of('hand_written_nan.py', 'model.head.weight[0, 2] = ')}"
    assert f"keeping the non-finite value the script wrote into it at {site} before the update" in event["message"], event
    assert "own arithmetic" not in event["message"], event


def test_weights_written_finite_by_hand_are_healthy(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hand_written_nan.py", "healthy")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


PRELAUNCH += [("data_written_nan.py", mode) for mode in ("unused", "used", "added", "healthy")]


@pytest.mark.parametrize("mode, head, until", [
    ("unused", "aux", "before step 4's update, which had no gradient for it and found it NaN already"),
    ("used", "main", "before step 4's forward"),
])
def test_a_weight_written_through_data_after_an_update_is_not_blamed_on_the_next_update(
        script_runs: ScriptRuns, mode: str, head: str, until: str) -> None:
    """A NaN written through `.data` after step 3's update (no hook sees it) into a head
    that step 4 does not use: step 4's update, which had no gradient for it, is not said
    to have made it; the weight is named at step 3 as changed outside the optimizer, as
    when step 4's forward reads it (`used`)."""
    run = script_runs.get("data_written_nan.py", mode)
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    assert (event["step"], event["module"], event["param"]) == (3, head, f"{head}.weight"), event
    assert event["origin"] == "outside_optimizer" and event["where"] is None, event
    assert f"after step 3, whose optimizer step() left it finite: code outside the optimizer changed it {until}" \
        in event["message"], event
    assert run.report["summary"]["problems"][0]["kind"] == "nonfinite_param"


def test_a_weight_no_update_measured_before_is_not_blamed_on_an_update_that_left_it(
        script_runs: ScriptRuns) -> None:
    """A head added to the optimizer after step 3 gets a NaN through `.data` and no
    gradient at step 4: the update of step 4, the first to hold it, found it NaN."""
    run = script_runs.get("data_written_nan.py", "added")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    assert (event["step"], event["param"], event["origin"], event["where"]) == (4, "extra.weight",
                                                                                "outside_optimizer", None), event
    assert ("code outside the optimizer wrote it before step 4's update, which had no gradient for it and found it "
            "NaN already") in event["message"], event


PRELAUNCH += [*[("missing_grad_optimizer.py", mode) for mode in ("zero", "written", "healthy")],
              ("plain", "missing_grad_optimizer.py", "healthy")]


def test_a_hand_written_optimizer_that_updates_weights_without_a_gradient_is_blamed_for_its_nan(
        script_runs: ScriptRuns) -> None:
    """A hand-written optimizer takes aux's missing gradient at step 1 as zero and
    divides it by its zero norm: the weight had no gradient, but it was finite as that
    step() began, so the update made the NaN (torch's optimizers would have skipped it)."""
    run = script_runs.get("missing_grad_optimizer.py", "zero")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    assert (event["step"], event["param"], event["origin"]) == (1, "aux.weight", "optimizer_step"), event
    assert event["where"] == f"missing_grad_optimizer.py:{line_of('missing_grad_optimizer.py', 'opt.step()')}", event
    assert ("as the optimizer's step() of step 1 left it, from finite gradients: the update's own arithmetic made it"
            in event["message"]), event


def test_a_nan_a_hand_written_optimizer_finds_without_a_gradient_is_not_its_own(script_runs: ScriptRuns) -> None:
    """The same optimizer, its norm floored: a NaN written through `.data` after step 2
    is still there as step 3's update, with no gradient for it, begins: written outside."""
    run = script_runs.get("missing_grad_optimizer.py", "written")
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    assert (event["step"], event["param"], event["origin"], event["where"]) == (2, "aux.weight",
                                                                                "outside_optimizer", None), event
    assert ("after step 2, whose optimizer step() left it finite: code outside the optimizer changed it before "
            "step 3's update, which had no gradient for it and found it NaN already") in event["message"], event
    healthy = script_runs.get("missing_grad_optimizer.py", "healthy")
    assert healthy.report["events"] == [], healthy.report["events"]
    assert healthy.stdout == script_runs.plain("missing_grad_optimizer.py", "healthy").stdout


def test_a_finite_value_written_through_data_is_healthy(script_runs: ScriptRuns) -> None:
    run = script_runs.get("data_written_nan.py", "healthy")
    assert run.returncode == 0 and run.report["events"] == [], run.report["events"]


PRELAUNCH += [("vae_logvar.py", "--fault"), ("vae_logvar.py",)]


def test_a_non_finite_later_output_of_the_model_is_the_models_not_the_loss_computations(
        script_runs: ScriptRuns) -> None:
    """pytorch/examples' VAE returns (reconstruction, mu, logvar): a log-variance of -Inf in
    the third output is the VAE's, though the first output is finite; the loss that reads
    it is not what made it."""
    run = script_runs.get("vae_logvar.py", "--fault")
    first = run.events()[0]
    assert (first["kind"], first["step"], first["module"]) == ("nonfinite_activation", 1, "VAE"), first
    loss = run.first("nonfinite_loss")
    assert "the loss computation made it" not in loss["message"] and loss.get("origin") is None, loss
    assert script_runs.get("vae_logvar.py").events() == []


@pytest.mark.parametrize("mode, origin, words", [
    ("hand", "script_update", "no optimizer steps in this loop, so the script's own update of the weights after "
                              "step 2's backward pass wrote it"),
    ("data", "script_update", "the script's own update of the weights after step 2's backward pass wrote it"),
    ("optimizer", "optimizer_step", "as the optimizer's step() of step 2 left it, from finite gradients"),
    ("outside", "outside_optimizer", "whose optimizer step() left it finite: code outside the optimizer changed it"),
])
def test_a_weight_made_non_finite_between_forwards_names_what_wrote_it(
        script_runs: ScriptRuns, mode: str, origin: str, words: str) -> None:
    """A normalised update divides a zero gradient by its zero norm at step 2: the weight
    is named at step 2 with what wrote it, the script's own update (no optimizer), the
    optimizer's step() (read as it returned), or the script's code after the step."""
    run = script_runs.get("normalized_update.py", mode)
    assert run.returncode == 0, run.stderr
    event = run.first("nonfinite_param")
    assert (event["step"], event["param"], event["origin"]) == (2, "aux.weight", origin), event
    assert words in event["message"], event
    step_line = f"normalized_update.py:{line_of('normalized_update.py', 'opt.step()')}"
    assert event["where"] == (step_line if origin == "optimizer_step" else None), event
    problem = run.report["summary"]["problems"][0]
    assert problem["kind"] == "nonfinite_param"
    advice = {"script_update": "the loop updates the weights itself",
              "outside_optimizer": "no optimizer update wrote the non-finite value",
              "optimizer_step": "an exploding or non-finite update"}[origin]
    assert advice in problem["advice"], problem


@pytest.mark.parametrize("mode", ["hand", "optimizer", "outside"])
def test_a_floored_normalised_update_is_healthy_and_unchanged(script_runs: ScriptRuns, mode: str) -> None:
    run = script_runs.get("normalized_update.py", mode, "healthy")
    assert run.returncode == 0 and run.report["events"] == [], run.report["events"]
    assert run.stdout == script_runs.plain("normalized_update.py", mode, "healthy").stdout


PRELAUNCH += [*[("buffer_nan.py", mode) for mode in ("zero-scale", "copied", "critic", "nan-batch", "healthy", "meta",
                                                     "odd", "by-design", "by-design-lr", "loss-nan",
                                                     "ema-weight", "reset")],
              *[("plain", "buffer_nan.py", mode) for mode in ("zero-scale", "copied", "critic", "reset")]]


@pytest.mark.parametrize("mode, written, module", [("zero-scale", 3, "norm"), ("copied", 2, "norm"),
                                                   ("critic", 3, "critic.0")])
def test_a_buffer_turned_nan_is_named_with_the_step_that_wrote_it(
        script_runs: ScriptRuns, mode: str, written: int, module: str) -> None:
    """An EMA buffer its forward updates after using it (0 / 0 on an all-zero batch at step 3),
    or one the script `.copy_()`s a NaN into after step 2, or the EMA of a critic run second
    in the step: the next forward's NaN output named the module's output; now the buffer,
    with the step that wrote it, is the root, and the outputs, loss and gradients of the
    step after are its symptoms."""
    run = script_runs.get("buffer_nan.py", mode)
    assert (run.returncode, run.stdout) == (0, script_runs.plain("buffer_nan.py", mode).stdout), run.stderr
    event = run.first("nonfinite_buffer")
    assert (event["step"], event["module"], event["buffer"], event["found_at"]) == (
        written, module, f"{module}.scale", written + 1), event
    assert f"buffer {module}.scale is NaN as step {written + 1}'s forward begins" in event["message"], event
    assert f"written after step {written}'s forward began and before step {written + 1}'s" in event["message"]
    assert event["message"].endswith("; that forward gave non-finite outputs"), event
    assert "taken_in" not in event, event  # written by a step that was finite: the root
    problems = run.report["summary"]["problems"]
    assert [p["kind"] for p in problems] == ["nonfinite_buffer"], problems
    assert any(line.startswith(f"nonfinite_activation at step {written + 1}: output of {module}")
               for line in problems[0]["symptoms"]), problems[0]


def test_a_buffer_the_script_reset_is_reported_again_when_it_breaks_again(script_runs: ScriptRuns) -> None:
    """The EMA breaks on the all-zero batch of step 3, the script's guard resets it after
    step 4's NaN loss, and it breaks again on step 6's: both breakages are reported, the
    second dated from the step that found it finite again. Left broken (zero-scale), it
    is reported once, however many forwards read it."""
    run = script_runs.get("buffer_nan.py", "reset")
    assert (run.returncode, run.stdout) == (0, script_runs.plain("buffer_nan.py", "reset").stdout), run.stderr
    found = [(event["step"], event["buffer"], event["found_at"]) for event in run.events("nonfinite_buffer")]
    assert found == [(3, "norm.scale", 4), (6, "norm.scale", 7)], run.events("nonfinite_buffer")
    assert len(script_runs.get("buffer_nan.py", "zero-scale").events("nonfinite_buffer")) == 1


def test_a_buffer_a_nan_batch_reached_is_its_consequence(script_runs: ScriptRuns) -> None:
    """The NaN batch of step 3 is taken into the EMA buffer: the batch is the root, the
    buffer one of its symptoms."""
    run = script_runs.get("buffer_nan.py", "nan-batch")
    problems = run.report["summary"]["problems"]
    assert [(p["kind"], p["step"]) for p in problems] == [("nonfinite_input", 3)], problems
    assert any(line.startswith("nonfinite_buffer at step 3: buffer norm.scale") for line in problems[0]["symptoms"])
    # the EMA took the batch in: said so, not put down to an overflow of its own
    assert run.first("nonfinite_buffer")["taken_in"] == "batch", run.first("nonfinite_buffer")


def test_an_inf_mask_buffer_and_a_healthy_ema_are_not_reported(script_runs: ScriptRuns) -> None:
    """A causal mask buffer of -inf (non-finite from the start, by design) beside the EMA."""
    run = script_runs.get("buffer_nan.py", "healthy")
    assert run.returncode == 0 and run.report["events"] == [], run.report["events"]


def test_buffers_non_finite_by_design_with_finite_outputs_are_not_reported(script_runs: ScriptRuns) -> None:
    """A causal mask buffer registered as zeros and rebuilt with -inf at each forward, a
    NaN placeholder, a float16 Inf sentinel: each turns non-finite after the first step,
    and every output, the loss and the gradients stay finite. Each was reported as a
    buffer that makes every forward reading it non-finite."""
    run = script_runs.get("buffer_nan.py", "by-design")
    assert (run.returncode, run.report["events"]) == (0, []), run.report["events"]


@pytest.mark.parametrize("mode, root", [("by-design-lr", ("nonfinite_activation", 3)),
                                        ("loss-nan", ("nonfinite_loss", 3))])
def test_a_buffer_whose_first_forward_stays_finite_is_not_the_root(
        script_runs: ScriptRuns, mode: str, root: tuple[str, int]) -> None:
    """Buffers non-finite by design, then a learning rate that blows the weights up a step
    later; a NaN "not measured yet" buffer, then a NaN the loss code makes from finite
    outputs: each buffer was the root of what came after it, at step 1. The forward that
    first read it gave finite outputs: it poisoned nothing, and is not reported."""
    run = script_runs.get("buffer_nan.py", mode)
    assert not run.events("nonfinite_buffer"), run.events("nonfinite_buffer")
    problems = run.report["summary"]["problems"]
    assert [(p["kind"], p["step"]) for p in problems] == [root], problems


def test_a_buffer_copying_a_weight_the_update_broke_follows_the_weight(script_runs: ScriptRuns) -> None:
    """An EMA of a weight kept by the script after step(): step 3's update breaks the weight
    and the EMA copies it, both at step 3. The buffer was put first, as the root; the weight
    is, the buffer one of its symptoms."""
    run = script_runs.get("buffer_nan.py", "ema-weight")
    problems = run.report["summary"]["problems"]
    assert [(p["kind"], p["step"]) for p in problems] == [("nonfinite_param", 3)], problems
    assert any(line.startswith("nonfinite_buffer at step 3: buffer Net.ema_w") for line in problems[0]["symptoms"])
    # step 4's forward, run on the broken weight, was NaN before norm's EMA took it in: a
    # consequence, folded under the weight like the rest, not an overflow of the EMA's own
    buffers = {event["buffer"]: event for event in run.events("nonfinite_buffer")}
    assert "taken_in" not in buffers["Net.ema_w"], buffers
    assert (buffers["norm.scale"]["step"], buffers["norm.scale"]["taken_in"]) == (4, "module outputs"), buffers
    assert "may have taken that in" in buffers["norm.scale"]["message"], buffers


def test_buffers_without_readable_values_are_left_out(script_runs: ScriptRuns) -> None:
    """A buffer on the meta device (no values) and a sparse one: reading them failed the
    step's single read every step, and hid the NaN batch of step 3; now they are not
    measured, and a healthy model holding them (beside a float16 buffer near its largest
    value and one registered as None) has nothing to report."""
    run = script_runs.get("buffer_nan.py", "meta")
    problems = run.report["summary"]["problems"]
    assert [(p["kind"], p["step"]) for p in problems] == [("nonfinite_input", 3)], problems
    assert not [e for e in run.report["events"] if e["kind"] == "sanitizer_error"], run.report["events"]
    healthy = script_runs.get("buffer_nan.py", "odd")
    assert healthy.returncode == 0 and healthy.report["events"] == [], healthy.report["events"]
