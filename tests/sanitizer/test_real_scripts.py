"""Real-style training scripts, one per pattern that fooled the sanitizer on public
examples: every dtype torch trains in, a culprit behind `return self.dropout(h)`,
a model left in eval mode, blow-ups and climbs of the loss, summed validation
losses, module names with a second model, a loss module and a transform, and a
GAN whose two optimizers take turns, policy-gradient training, optimizers
stepped inside the backward pass, activation checkpointing, a student
distilled from a teacher in eval mode, an encoder and a decoder with an
optimizer each, gradient accumulation, and k-fold cross-validation (a fresh
model per fold, epochs ending on a short batch)."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, Run, ScriptRuns, line_of

DTYPES = ["float64", "float32", "bfloat16", "float16"]
COMPLEX_DTYPES = ["cfloat", "cdouble"]
ENDINGS = ["dropout", "act", "tanh"]
HEALTHY = [("dtype_regression.py", "--dtype", dtype) for dtype in DTYPES] + [
    ("complex_filter.py", "--dtype", dtype) for dtype in COMPLEX_DTYPES] + [
    ("gated_lm.py", "--ending", ending) for ending in ENDINGS] + [
    ("eval_mode_left_on.py",), ("eval_mode_left_on.py", "--frozen-bn"), ("eval_mode_left_on.py", "--functional"),
    ("eval_mode_left_on.py", "--grad-validation"),
    *[("eval_mode_loss_source.py", flag, "--fixed")
      for flag in ("--metric", "--branches", "--validation-first", "--chunked-metric")],
    ("embedding_methods.py",), ("embedding_methods.py", "--frozen-bn"),
    ("warmup_blowup.py",),
    ("steady_climb.py",), ("summed_validation.py",), ("summed_validation.py", "--criterion", "module"),
    ("gan_ring.py",), ("gan_turns.py",), ("policy_gradient.py",), ("policy_gradient.py", "--critic"),
    ("optimizer_in_backward.py",), ("checkpointed.py",), ("checkpointed.py", "--reentrant"),
    ("distillation.py",), ("distillation.py", "--student-first"), ("encoder_decoder.py",),
    ("grad_accumulation.py",), ("grad_accumulation.py", "--dtype", "bfloat16"), ("cross_validation.py",)] + [
    ("gradient_clearing.py", "--clear", how)
    for how in ("zero_grad", "in_place", "data", "model", "none_by_hand", "after_step", "accumulate",
                "optimizers_beside_temperature")] + [
    ("dqn_own_env.py",), ("synced_eval_copy.py",), ("sparse_embeddings.py",), ("per_sample_grads.py",), ("lr_runaway.py", "healthy"),
    ("functional_clones.py",), ("mixup_likelihood.py",), ("moco_queue.py",), ("gan_levels.py",),
    ("gan_levels.py", "critic"), ("char_mlp_lr.py",), ("tied_head_lm.py",), ("padded_tokens.py",)]
PRELAUNCH += [("gan_levels.py", "fault"), ("lr_runaway.py", "outlier"), ("lr_runaway.py", "tensor-lr"), ("synced_eval_copy.py", "--blow-up")]
PRELAUNCH += [*HEALTHY, ("lr_runaway.py",), *[("dtype_regression.py", "--dtype", dtype, "--fault") for dtype in DTYPES],
              *[("gated_lm.py", "--ending", ending, "--fault") for ending in ENDINGS],
              *[("complex_filter.py", "--dtype", dtype, "--inf-imag", "12") for dtype in COMPLEX_DTYPES],
              ("complex_filter.py", "--nan-input", "10"), ("mixup_likelihood.py", "--corrupt-step", "40"),
              ("policy_gradient.py", "--multinomial"), ("drawn_feedback.py", "--corrupt-step", "40"),
              ("eval_mode_left_on.py", "--bug"), ("eval_mode_left_on.py", "--bug", "--functional"),
              ("eval_mode_left_on.py", "--bug", "--frozen-bn"), ("eval_mode_left_on.py", "--bug", "--grad-validation"),
              *[("eval_mode_loss_source.py", flag)
                for flag in ("--metric", "--branches", "--validation-first", "--chunked-metric")],
              ("warmup_blowup.py", "--peak-lr", "3"),
              ("embedding_methods.py", "--bug"), ("embedding_methods.py", "--bug", "--frozen-bn"),
              ("plain", "embedding_methods.py", "--bug"), ("plain", "embedding_methods.py", "--bug", "--frozen-bn"),
              ("plain", "embedding_methods.py", "--frozen-bn"),
              ("char_mlp_lr.py", "--lr", "25"),
              ("steady_climb.py", "--endless-warmup"), ("summed_validation.py", "--overfit"),
              ("gan_ring.py", "--fault"), ("gan_turns.py", "--corrupt"), ("optimizer_in_backward.py", "--fault", "40"),
              ("checkpointed.py", "--fault", "30"), ("checkpointed.py", "--reentrant", "--fault", "30"),
              ("checkpointed.py", "--inner-fault", "30"), ("checkpointed.py", "--reentrant", "--inner-fault", "30"),
              ("distillation.py", "--bug"), ("distillation.py", "--student-first", "--bug"),
              ("encoder_decoder.py", "--fault", "60"),
              *[("grad_accumulation.py", "--dtype", dtype, "--fault", "25") for dtype in ("float32", "bfloat16")],
              ("cross_validation.py", "--corrupt-step", "300"), ("cross_validation.py", "--lr-of-fold", "2", "30"),
              ("wgan_gp.py",), ("wgan_gp.py", "--fault", "100"),
              *[("train_set_evaluation.py", "--data", data) for data in ("loader", "slices", "split", "full-batch")],
              ("train_set_evaluation.py", "--data", "full-batch", "--val-only"),
              *[("gradient_clearing.py", "--clear", how) for how in ("never", "head_only", "accumulate_wrong",
                                                                    "model_beside_temperature",
                                                                    "model_in_place_beside_temperature")],
              ("gradient_clearing.py", "--clear", "never", "--lr", "0.5"), ("sparse_embeddings.py", "--fault", "12"),
              ("sparse_embeddings.py", "--spare"), ("per_sample_grads.py", "--fault", "12"),
              ("plain", "per_sample_grads.py"), ("plain", "sparse_embeddings.py"), ("vmapped_tasks.py",),
              ("tied_head_lm.py", "--no-zero-grad"), ("padded_tokens.py", "--no-zero-grad")]


def _where(run: Run) -> dict[str, tuple[int, str | None]]:
    """Kind -> (step, module) of the first event of each kind."""
    where: dict[str, tuple[int, str | None]] = {}
    for event in run.events():
        where.setdefault(event["kind"], (event["step"], event["module"]))
    return where


@pytest.mark.parametrize("args", HEALTHY, ids=lambda args: "-".join(a.strip("-") for a in args))
def test_healthy_real_scripts_report_nothing(script_runs: ScriptRuns, args: tuple[str, ...]) -> None:
    run = script_runs.get(*args)
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()
    assert "sanitizer: no problems found" in run.stderr


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_training_dtype_is_checked_alike(script_runs: ScriptRuns, dtype: str) -> None:
    run = script_runs.get("dtype_regression.py", "--dtype", dtype, "--fault")
    assert run.returncode == 0, run.stderr
    where = _where(run)
    assert "sanitizer_error" not in where, run.events("sanitizer_error")
    assert where["nonfinite_activation"] == (12, "body.2")
    assert where["nonfinite_grad"][0] == 12
    assert where["nonfinite_loss"][0] == 13


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_complex_parameters_are_checked_in_both_parts(script_runs: ScriptRuns, dtype: str) -> None:
    """A complex filter weight whose imaginary part alone turns Inf: found in the
    parameter, then in the output of the module that multiplies by it."""
    run = script_runs.get("complex_filter.py", "--dtype", dtype, "--inf-imag", "12")
    assert run.returncode == 0, run.stderr
    where = _where(run)
    assert "sanitizer_error" not in where, run.events("sanitizer_error")
    assert where["nonfinite_param"] == (11, "mix") and run.first("nonfinite_param")["param"] == "mix.weight"
    assert where["nonfinite_activation"] == (12, "mix")


def test_a_nan_batch_of_a_model_with_complex_parameters_is_found(script_runs: ScriptRuns) -> None:
    run = script_runs.get("complex_filter.py", "--nan-input", "10")
    assert run.returncode == 0, run.stderr
    where = _where(run)
    assert "sanitizer_error" not in where, run.events("sanitizer_error")
    assert where["nonfinite_input"][0] == 10 and where["nonfinite_loss"][0] == 10


@pytest.mark.parametrize("ending", ENDINGS)
def test_culprit_returning_a_childs_output_is_named(script_runs: ScriptRuns, ending: str) -> None:
    run = script_runs.get("gated_lm.py", "--ending", ending, "--fault")
    assert run.returncode == 0, run.stderr
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 9 and activation["culprit"] == "blocks.1.gate", activation
    assert activation["where"].startswith("gated_lm.py:")
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 9 and loss["module"] == "blocks.1.gate", loss
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 9 and grad["param"].startswith("blocks.1.gate."), grad


def test_sparse_gradients_are_read(script_runs: ScriptRuns) -> None:
    """Embeddings with sparse gradients (`SparseAdam`) are used, not unused (the
    healthy run reports nothing), and a NaN in their gradient is caught at its step,
    before either optimizer applies it; the NaN weights it leaves are explained by it."""
    run = script_runs.get("sparse_embeddings.py", "--fault", "12")
    assert run.returncode == 0, run.stderr
    grad = run.first("nonfinite_grad")
    assert (grad["step"], grad["param"], grad["module"]) == (12, "users.weight", "users"), grad
    param = run.first("nonfinite_param")
    assert param["step"] == 12 and "whose gradients were finite" not in param["message"], param
    assert run.events("unused_parameter") == []


def test_forward_passes_inside_torch_func_transforms_are_left_alone(script_runs: ScriptRuns) -> None:
    """`vmap(grad(loss))` runs the model on the transforms' stand-in tensors: the
    sanitizer reads nothing of them (the healthy run reports nothing, no internal
    error), still checks the gradients the script writes, and changes no number."""
    run = script_runs.get("per_sample_grads.py", "--fault", "12")
    assert run.returncode == 0, run.stderr
    assert run.events("sanitizer_error") == []
    grad = run.first("nonfinite_grad")
    assert (grad["step"], grad["param"]) == (12, "0.weight"), grad
    for script in ("per_sample_grads.py", "sparse_embeddings.py"):
        assert script_runs.get(script).stdout == script_runs.plain(script).stdout


def test_a_module_called_inside_a_torch_func_transform_is_called(script_runs: ScriptRuns) -> None:
    run = script_runs.get("vmapped_tasks.py")
    assert run.returncode == 0, run.stderr
    events = run.events("unused_parameter")
    assert [(e["module"], e["params"]) for e in events] == [("aux", ["aux.weight", "aux.bias"])], events
    assert "all-zero gradients" in events[0]["message"] and "never called" not in events[0]["message"]


def test_two_optimizers_on_one_backward_count_one_step(script_runs: ScriptRuns) -> None:
    run = script_runs.get("sparse_embeddings.py", "--spare")
    assert run.returncode == 0, run.stderr
    events = run.events("unused_parameter")
    assert len(events) == 1, events
    assert events[0]["message"] == ("spare.weight, spare.bias never received a gradient in 30 steps; "
                                    "spare is never called in forward"), events


def test_training_left_in_eval_mode(script_runs: ScriptRuns) -> None:
    run = script_runs.get("eval_mode_left_on.py", "--bug")
    assert run.returncode == 0, run.stderr
    events = run.events("train_in_eval_mode")
    assert len(events) == 1 and events[0]["step"] == 9, events
    assert events[0]["severity"] == "warning"
    assert set(events[0]["modules"]) == {"features.1", "features.5", "dropout"}
    assert "model.train()" in events[0]["message"]


def test_training_left_in_eval_mode_points_at_the_training_call(script_runs: ScriptRuns) -> None:
    """The validation runs with gradients on: its model call comes first after each step,
    and the call a training loss came from is the later one in the training loop."""
    run = script_runs.get("eval_mode_left_on.py", "--bug", "--grad-validation")
    events = run.events("train_in_eval_mode")
    training_call = line_of("eval_mode_left_on.py", "loss = criterion(model(images), labels)")
    assert [(e["step"], e["where"]) for e in events] == [(9, f"eval_mode_left_on.py:{training_call}")], events


@pytest.mark.parametrize(("flag", "training_call"), [("--metric", "logits = model(x)"),
                                                    ("--branches", "from_billing = billing(x[:, 4:8])"),
                                                    ("--validation-first", "logits = model(x)"),
                                                    ("--chunked-metric", "logits = model(x)")])
def test_training_left_in_eval_mode_points_at_the_call_the_loss_came_from(
        script_runs: ScriptRuns, flag: str, training_call: str) -> None:
    """Of the step's calls with gradients on, the one the loss's graph reaches: not a
    metric's call after it (nor the many calls of one line of it), not the model in
    train mode called before or after the one in eval mode, not a validation pass
    before it."""
    run = script_runs.get("eval_mode_loss_source.py", flag)
    assert run.returncode == 0, run.stderr
    events = run.events("train_in_eval_mode")
    where = f"eval_mode_loss_source.py:{line_of('eval_mode_loss_source.py', training_call)}"
    assert [(e["step"], e["where"]) for e in events] == [(1, where)], events


def test_training_left_in_eval_mode_names_no_norm_frozen_on_purpose(script_runs: ScriptRuns) -> None:
    """Batch norms the script freezes on purpose each epoch ran in eval mode while
    the model trained in train mode: when the whole model is left in eval mode,
    only the dropout is reported."""
    run = script_runs.get("eval_mode_left_on.py", "--bug", "--frozen-bn")
    assert run.returncode == 0, run.stderr
    events = run.events("train_in_eval_mode")
    assert [(e["step"], e["module"], e["modules"]) for e in events] == [(9, "dropout", ["dropout"])], events
    assert "its 1 Dropout behaves as at inference (no dropout)" in events[0]["message"], events[0]["message"]


def test_training_left_in_eval_mode_with_functional_dropout(script_runs: ScriptRuns) -> None:
    """No dropout layer: the model's own `F.dropout(h, p, training=self.training)` is
    off in eval mode, and that is reported like a layer's."""
    run = script_runs.get("eval_mode_left_on.py", "--bug", "--functional")
    assert run.returncode == 0, run.stderr
    events = run.events("train_in_eval_mode")
    assert [(e["step"], e["modules"]) for e in events] == [(9, ["FunctionalStripeNet"])], events
    assert "F.dropout" in events[0]["message"] and "no dropout" in events[0]["message"]


@pytest.mark.parametrize("frozen_bn", [False, True])
def test_training_left_in_eval_mode_through_a_method_names_the_model_s_layers(
        script_runs: ScriptRuns, frozen_bn: bool) -> None:
    """The model's `embed()` calls its layers itself: no call of the model is seen, and
    each layer is an outermost call. The model left in eval mode is judged whole (its
    batch norm and its dropout, not only the last layer the method called); its batch
    norm frozen on purpose while the model trained in train mode is not reported."""
    flags = ("--bug", "--frozen-bn") if frozen_bn else ("--bug",)
    run = script_runs.get("embedding_methods.py", *flags)
    assert (run.returncode, run.stdout) == (0, script_runs.plain("embedding_methods.py", *flags).stdout), run.stderr
    events = run.events("train_in_eval_mode")
    expected = ["drop"] if frozen_bn else ["norm", "drop"]
    assert [(e["step"], e["module"], e["modules"]) for e in events] == [(5, expected[0], expected)], events


def test_a_layer_frozen_on_purpose_called_from_a_method_is_healthy(script_runs: ScriptRuns) -> None:
    run = script_runs.get("embedding_methods.py", "--frozen-bn")
    assert run.returncode == 0 and run.events() == [], run.events()
    assert run.stdout == script_runs.plain("embedding_methods.py", "--frozen-bn").stdout


def test_blow_up_during_warm_up_is_divergence_at_its_step(script_runs: ScriptRuns) -> None:
    run = script_runs.get("warmup_blowup.py", "--peak-lr", "3")
    assert run.returncode == 0, run.stderr
    event = run.first("divergence")
    assert event["step"] == 2 and event["baseline"] == pytest.approx(1.59, abs=0.01), event
    assert event["where"] == f"warmup_blowup.py:{line_of('warmup_blowup.py', 'loss = F.cross_entropy')}"
    assert len(run.events("divergence")) == 1
    # the ReLUs the blow-up killed stop getting gradients later on: its symptom, not a second cause
    dead = run.events("unused_parameter")
    assert dead and all(e["since"] > 2 for e in dead), dead
    problems = run.report["summary"]["problems"]
    assert [p["kind"] for p in problems] == ["divergence"], problems
    assert any(line.startswith("unused_parameter at step") for line in problems[0]["symptoms"]), problems


def test_a_jump_of_hundreds_of_times_that_rises_on_and_drifts_down_is_divergence(script_runs: ScriptRuns) -> None:
    """A character-level MLP at a learning rate 50,000 times its own: the loss jumps from
    3.4 to 845 at step 2 (250 times), rises on to 4,000 and drifts down through 250 to
    1,000, never under 70 times its start. No warm-up rise of a loss that starts tiny
    (a contrastive loss whose queue starts random: 30 to 50 times at its first step up)
    takes such a step: divergence at step 2, not a start the judgement restarts from
    once the loss trains down. Healthy at 5e-4 (HEALTHY)."""
    run = script_runs.get("char_mlp_lr.py", "--lr", "25")
    plain = script_runs.plain("char_mlp_lr.py", "--lr", "25")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    (event,) = run.events("divergence")
    assert event["step"] == 2 and event["rule"] == "blow-up", event
    assert event["baseline"] == pytest.approx(3.37, abs=0.01), event
    assert event["where"] == f"char_mlp_lr.py:{line_of('char_mlp_lr.py', 'loss = F.cross_entropy')}"


def test_a_blow_up_that_ends_the_run_in_inf_is_divergence_at_its_first_step(script_runs: ScriptRuns) -> None:
    """The learning rate x10 per step from step 20; the loop stops at the first Inf loss,
    so the median of 10 high losses never comes. The blow-up is the root, the Inf its end:
    the loss computation overflowing on the outputs the updates blew up."""
    run = script_runs.get("lr_runaway.py")
    assert run.returncode == 0 and run.stdout == "25\n", run.stderr
    event = run.first("divergence")
    assert event["step"] == 23 and "non-finite at step 25" in event["message"], event
    assert "learning rate rose from 0.01 to 1000" in event["message"] and event["lr"] == pytest.approx([0.01, 1000.0])
    problems = run.report["summary"]["problems"]
    assert [p["kind"] for p in problems] == ["divergence"], problems
    assert any(line.startswith("nonfinite_loss at step 25") for line in problems[0]["symptoms"])
    # the outputs were still finite: the loss overflowed on values the first layer blew up,
    # not a module that made the Inf (no "traced back to" it)
    nan = run.first("nonfinite_loss")
    assert (nan["first_nonfinite_module"], nan["culprit"], nan["origin"]) == (None, "0", "outputs_jumped"), nan
    assert "traced back" not in nan["message"] and "0's values jumped first" in nan["message"]


def test_a_learning_rate_held_in_a_tensor_is_named_in_the_blow_up(script_runs: ScriptRuns) -> None:
    """`lr=torch.tensor(0.01)` (as a compiled optimizer step wants it): read on the CPU as the
    plain number is."""
    run = script_runs.get("lr_runaway.py", "tensor-lr")
    assert run.returncode == 0 and run.stdout == "25\n", run.stderr
    event = run.first("divergence")
    assert event["step"] == 23 and "learning rate rose from 0.01 to 1e+03" in event["message"], event
    assert event["lr"] == pytest.approx([0.01, 1000.0], rel=1e-5)


def test_one_outlier_before_a_corrupt_batch_is_no_blow_up(script_runs: ScriptRuns) -> None:
    run = script_runs.get("lr_runaway.py", "outlier")
    assert run.returncode == 0 and run.stdout == "41\n", run.stderr
    assert run.events("divergence") == [], run.events("divergence")
    problems = run.report["summary"]["problems"]
    assert problems[0]["kind"] == "nonfinite_input" and problems[0]["step"] == 41, problems


def test_steady_climb_is_divergence(script_runs: ScriptRuns) -> None:
    run = script_runs.get("steady_climb.py", "--endless-warmup")
    assert run.returncode == 0, run.stderr
    event = run.first("divergence")
    assert 6 * 16 < event["step"] <= 13 * 16, event  # while the loss climbs, before it is 10x
    assert not [e for e in run.events() if e["kind"].startswith("nonfinite")]


def test_summed_validation_losses_are_compared_per_sample(script_runs: ScriptRuns) -> None:
    run = script_runs.get("summed_validation.py", "--overfit")
    assert run.returncode == 0, run.stderr
    event = run.first("overfitting")
    printed = float(run.stdout.splitlines()[-1].split("average loss ")[1].split(",")[0])
    assert event["val_end"] == pytest.approx(printed, abs=1e-4), event  # the per-sample mean, not the sum


@pytest.mark.parametrize("data", ["loader", "slices", "split"])
def test_an_evaluation_on_the_training_data_is_not_validation(script_runs: ScriptRuns, data: str) -> None:
    run = script_runs.get("train_set_evaluation.py", "--data", data)
    assert run.returncode == 0, run.stderr
    event = run.first("overfitting")
    printed = float(run.stdout.split("val ")[-1])
    assert event["val_end"] == pytest.approx(printed, abs=1e-4), event  # not blended with the train-set loss


def test_full_batch_evaluations_under_several_masks_are_not_guessed(script_runs: ScriptRuns) -> None:
    both = script_runs.get("train_set_evaluation.py", "--data", "full-batch")
    assert both.returncode == 0, both.stderr
    assert both.events() == [] and both.report["detectors"]["fitting"]["val_losses"] == []
    alone = script_runs.get("train_set_evaluation.py", "--data", "full-batch", "--val-only")
    event = alone.first("overfitting")  # one evaluation of the whole input between steps: validation
    assert event["val_end"] == pytest.approx(float(alone.stdout.split("val ")[-1]), abs=1e-4), event


def test_names_follow_each_models_named_modules(script_runs: ScriptRuns) -> None:
    run = script_runs.get("gan_ring.py", "--fault")
    assert run.returncode == 0, run.stderr
    where = _where(run)
    assert where["nonfinite_activation"] == (11, "netG.main.2")
    assert where["nonfinite_param"][1] == "netG.main.2"
    assert "nonfinite_input" not in where  # the discriminator's input is the generator's output
    for event in run.events():
        for field in ("module", "param", "culprit"):
            name = event.get(field)
            assert name is None or name.startswith(("netG.main.", "netD.main.")), event



def test_a_gans_optimizers_are_each_judged_against_their_own_steps(script_runs: ScriptRuns) -> None:
    run = script_runs.get("gan_turns.py", "--corrupt")
    assert run.returncode == 0, run.stderr
    assert [(event["kind"], event["step"]) for event in run.events()] == [("grad_spike", 54)], run.events()
    event = run.first("grad_spike")
    assert "over the last 26 steps of the optimizer of discriminator" in event["message"]
    assert event["where"] == f"gan_turns.py:{line_of('gan_turns.py', 'fake_loss = ')}"  # the discriminator's loss


def test_a_spike_of_the_discriminator_under_the_generators_level_is_its_own(script_runs: ScriptRuns) -> None:
    """The discriminator steps first, then the generator, whose loss sits 10 to 60 times
    higher (healthy: nothing, see HEALTHY). A batch of real images labelled fake lifts the
    discriminator's loss 38 times its median, still under the generator's losses: judged
    against the discriminator's own steps, it is a spike (of its loss and its gradient)."""
    run = script_runs.get("gan_levels.py", "fault")
    assert run.returncode == 0, run.stderr
    assert [(event["kind"], event["step"]) for event in run.events()] == [("loss_spike", 301), ("grad_spike", 301)]
    event = run.first("loss_spike")
    assert event["baseline"] < 0.1 and 1 < event["value"] < 3, event
    assert "over the last 50 steps of the optimizer of netD" in event["message"], event
    assert event["where"] == f"gan_levels.py:{line_of('gan_levels.py', 'errD_real = ')}", event


@pytest.mark.parametrize("variant", [(), ("--critic",), ("--multinomial",)],
                         ids=["reinforce", "actor-critic", "multinomial"])
def test_policy_gradient_training_is_not_judged_by_its_loss(script_runs: ScriptRuns, variant: tuple[str, ...]) -> None:
    """Episodes grow from about 11 steps to 200: the loss's graph grows with them (no leak: it is
    rebuilt each step), and the loss's level follows the returns (no divergence nor spike)."""
    run = script_runs.get("policy_gradient.py", *variant)
    assert run.returncode == 0, run.stderr
    first, last = (float(part.split()[-1]) for part in run.stdout.split(":")[1].split(","))
    assert first < 15 and last > 150, run.stdout
    assert run.events() == []
    assert any("policy-gradient objective" in note for note in run.report["summary"]["notes"])


def test_a_mixup_weight_drawn_from_a_distribution_is_no_action(script_runs: ScriptRuns) -> None:
    """`Beta(a, a).sample()` mixes the batches and the Gaussian log-likelihood is of the
    targets: no log-probability of a sample, so no policy gradient; a corrupt batch's
    spike is judged."""
    run = script_runs.get("mixup_likelihood.py", "--corrupt-step", "40")
    assert run.returncode == 0, run.stderr
    assert not any("policy-gradient" in note for note in run.report["summary"]["notes"]), run.report["summary"]
    assert run.first("loss_spike")["step"] == 40 and run.first("grad_spike")["step"] == 40


def test_draws_fed_back_with_a_likelihood_of_labels_are_no_policy_gradient(script_runs: ScriptRuns) -> None:
    """torch.multinomial draws from the model's softmax with gradients on, but the
    log-softmax is taken at the labels: the loss is judged (the corrupt batch's spikes)."""
    run = script_runs.get("drawn_feedback.py", "--corrupt-step", "40")
    assert run.returncode == 0, run.stderr
    assert not any("policy-gradient" in note for note in run.report["summary"]["notes"]), run.report["summary"]
    assert run.first("loss_spike")["step"] == 40 and run.first("grad_spike")["step"] == 40


def test_optimizers_stepped_inside_backward_make_one_step_per_pass(script_runs: ScriptRuns) -> None:
    """One AdamW per parameter, stepped from gradient hooks: a step is the backward
    pass (not one per parameter), its gradients are read before the hooks clear
    them, and its parameters are judged after the updates it made."""
    healthy = script_runs.get("optimizer_in_backward.py")
    assert healthy.report["steps"] == 120, healthy.report["steps"]
    run = script_runs.get("optimizer_in_backward.py", "--fault", "40")
    assert run.returncode == 0, run.stderr
    assert run.report["steps"] == 120
    where = _where(run)
    assert where["nonfinite_activation"] == (40, "norm_in")
    assert where["nonfinite_grad"][0] == 40 and where["nonfinite_param"][0] == 40, where
    grad = run.first("nonfinite_grad")
    assert "6 of 6 parameters" in grad["message"], grad
    problems = run.report["summary"]["problems"]
    assert len(problems) == 1 and problems[0]["headline"].startswith("nonfinite_activation at step 40"), problems


@pytest.mark.parametrize("variant", [(), ("--reentrant",)], ids=["non-reentrant", "reentrant"])
def test_culprit_inside_a_checkpointed_block_is_named(script_runs: ScriptRuns, variant: tuple[str, ...]) -> None:
    """The reentrant variant runs the blocks without gradients in the forward pass
    (and again, with them, inside backward): the block is still the culprit, not the model."""
    run = script_runs.get("checkpointed.py", *variant, "--fault", "30")
    assert run.returncode == 0, run.stderr
    activation = run.first("nonfinite_activation")
    assert (activation["step"], activation["module"], activation["culprit"]) == (30, "blocks.2", "blocks.2"), activation
    assert activation["where"] == f"checkpointed.py:{line_of('checkpointed.py', 'def forward(self, x):')}"  # Block's
    problems = run.report["summary"]["problems"]
    assert len(problems) == 1 and problems[0]["headline"].startswith("nonfinite_activation at step 30"), problems


@pytest.mark.parametrize("variant", [(), ("--reentrant",)], ids=["non-reentrant", "reentrant"])
def test_a_value_a_checkpointed_block_hands_its_child_is_its_own(script_runs: ScriptRuns, variant: tuple[str, ...]) -> None:
    """The block's own code makes the Inf it hands to its `down` layer: the block is the
    culprit, not `down`, also when the reentrant variant runs it without gradients."""
    run = script_runs.get("checkpointed.py", *variant, "--inner-fault", "30")
    assert run.returncode == 0, run.stderr
    activation = run.first("nonfinite_activation")
    assert (activation["step"], activation["module"], activation["culprit"]) == (30, "blocks.2", "blocks.2"), activation


@pytest.mark.parametrize("order", [(), ("--student-first",)], ids=["teacher-first", "student-first"])
def test_a_student_left_in_eval_mode_is_named_not_its_teacher(script_runs: ScriptRuns, order: tuple[str, ...]) -> None:
    """The teacher runs in eval mode without gradients, before or after the student:
    it is not what the optimizer trains (the healthy runs report nothing). The
    models are locals of `main()`: names come from there."""
    run = script_runs.get("distillation.py", *order, "--bug")
    assert run.returncode == 0, run.stderr
    assert [(e["kind"], e["step"], e["module"]) for e in run.events()] == [("train_in_eval_mode", 91, "student.1")]


def test_optimizers_stepping_on_one_backward_pass_end_one_step(script_runs: ScriptRuns) -> None:
    """`encoder_optimizer.step(); decoder_optimizer.step()` after one backward pass
    is one training step: steps are the script's iterations, and so is the series."""
    healthy = script_runs.get("encoder_decoder.py")
    assert healthy.report["steps"] == 150
    assert healthy.report["series"]["step"] == list(range(1, 151))
    run = script_runs.get("encoder_decoder.py", "--fault", "60")
    assert run.returncode == 0, run.stderr
    assert run.report["steps"] == 150
    assert {event["step"] for event in run.events()} == {60}, run.events()
    assert run.first("nonfinite_activation")["culprit"] == "decoder"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_gradient_accumulation_counts_optimizer_steps_and_names_the_blown_up_layer(script_runs: ScriptRuns,
                                                                                     dtype: str) -> None:
    """Four backward passes per step: steps are the optimizer's. A weight set to 1e30
    before iteration 25's third micro-batch is finite (its float32 squared norm is not):
    the root is the NaN its layer causes downstream, at step 25, not a parameter "Inf"."""
    healthy = script_runs.get("grad_accumulation.py", *(("--dtype", dtype) if dtype != "float32" else ()))
    assert healthy.report["steps"] == 40
    run = script_runs.get("grad_accumulation.py", "--dtype", dtype, "--fault", "25")
    assert run.returncode == 0, run.stderr
    assert run.report["steps"] == 40
    activation = run.first("nonfinite_activation")
    assert (activation["step"], activation["module"], activation["culprit"]) == (25, "ln", "blocks.1.mlp.0"), activation
    grad = run.first("nonfinite_grad")
    assert (grad["step"], grad["param"]) == (25, "blocks.1.mlp.0.weight"), grad
    assert all(event["step"] >= 25 for event in run.events()), run.events()
    problems = run.report["summary"]["problems"]
    assert len(problems) == 1 and problems[0]["headline"].startswith("nonfinite_activation at step 25"), problems


def test_a_corrupt_batch_is_a_spike_but_an_epochs_short_last_batch_is_not(script_runs: ScriptRuns) -> None:
    """Step 300 is a full batch of the second fold; steps 52, 104, ... end epochs on 3 samples."""
    run = script_runs.get("cross_validation.py", "--corrupt-step", "300")
    assert run.returncode == 0, run.stderr
    assert [(event["kind"], event["step"]) for event in run.events()] == [("loss_spike", 300), ("grad_spike", 300)]
    assert run.report["steps"] == 4 * 4 * 52


def test_a_fold_that_blows_up_is_divergence_at_its_step(script_runs: ScriptRuns) -> None:
    """Each fold has its optimizer; the third (steps 417-624) trains at lr=30 and blows
    up at its second step: judged from its own first losses, not left unjudged."""
    run = script_runs.get("cross_validation.py", "--lr-of-fold", "2", "30")
    assert run.returncode == 0, run.stderr
    assert [(event["kind"], event["step"]) for event in run.events()][:1] == [("divergence", 418)], run.events()


def test_a_gan_with_gradient_penalty_names_each_model_and_finds_the_nan_of_the_double_backward(
        script_runs: ScriptRuns) -> None:
    """Two models trained from the first step, named by their variables from it on. The
    critic's last bias cancels out of its loss: its only finding in a healthy run. A NaN
    born in the penalty's backward (sqrt at 0) is the root at step 601, the critic's
    parameter NaN after that update and what the generator then produces are its symptoms."""
    healthy = script_runs.get("wgan_gp.py")
    assert healthy.returncode == 0, healthy.stderr
    assert [(event["kind"], event["param"]) for event in healthy.events()] == [
        ("unused_parameter", "critic.4.bias")], healthy.events()
    assert "WGAN critic" in healthy.report["summary"]["problems"][0]["advice"]
    run = script_runs.get("wgan_gp.py", "--fault", "100")
    assert run.returncode == 0, run.stderr
    assert run.report["steps"] == 6 * 120
    grad = run.first("nonfinite_grad")
    assert (grad["step"], grad["param"]) == (601, "critic.4.weight"), grad
    assert grad["where"] == f"wgan_gp.py:{line_of('wgan_gp.py', 'critic_loss.backward()')}"
    assert not any(event["kind"].startswith("nonfinite") and event["step"] < 601 for event in run.events())
    assert all((event["module"] or "critic").startswith("critic") for event in run.events()), run.events()
    problems = run.report["summary"]["problems"]
    assert [(problem["kind"], problem["step"]) for problem in problems] == [
        ("loss_spike", 601), ("nonfinite_grad", 601), ("unused_parameter", None)], problems
    assert {symptom.split(" at ")[0] for symptom in problems[1]["symptoms"]} == {
        "nonfinite_param", "nonfinite_activation", "nonfinite_loss", "nonfinite_input"}, problems[1]


@pytest.mark.parametrize("how, owners", [("never", ["encoder", "head"]), ("head_only", ["encoder"]),
                                         ("accumulate_wrong", ["encoder", "head"])])
def test_gradients_not_cleared_since_the_last_step_are_reported_per_optimizer(script_runs: ScriptRuns, how: str,
                                                                              owners: list[str]) -> None:
    """An optimizer whose gradients nothing cleared since its previous step: at its
    second step, once per optimizer, at the line that steps. Clearing in every way
    real loops clear (the healthy runs above) is not reported, nor is accumulation
    over micro-batches within a step."""
    run = script_runs.get("gradient_clearing.py", "--clear", how)
    assert run.returncode == 0, run.stderr
    events = run.events("missing_zero_grad")
    assert [(e["step"], e["module"]) for e in events] == [(2, owner) for owner in owners], events
    step_line = line_of("gradient_clearing.py", "optimizer.step()  # on each micro-batch" if how == "accumulate_wrong"
                        else "optimizer.step()  # once per iteration")
    assert {e["where"] for e in events} == {f"gradient_clearing.py:{step_line}"}
    assert events[0]["param"].startswith(owners[0] + ".")


def test_an_optimizer_of_the_whole_model_is_named_by_no_part_of_it(script_runs: ScriptRuns) -> None:
    """A head tied to the embedding adds no parameter of its own, so every parameter's
    name begins with `body.`; the optimizer still steps the whole model, not its body
    (llm.c's GPT-2: `transformer.` holds them all, `lm_head` shares the embedding). The
    optimizer of a part (`encoder`, `head`) is named by it (the test above)."""
    run = script_runs.get("tied_head_lm.py", "--no-zero-grad")
    assert run.returncode == 0, run.stderr
    events = run.events("missing_zero_grad")
    assert [(e["step"], e["module"]) for e in events] == [(2, None)], events
    assert events[0]["message"].startswith("the optimizer stepped on gradients"), events[0]
    assert events[0]["param"].startswith("body."), events[0]


@pytest.mark.parametrize("how", ["model_beside_temperature", "model_in_place_beside_temperature"])
def test_a_parameter_outside_the_model_that_its_clear_misses_is_named(script_runs: ScriptRuns, how: str) -> None:
    """`model.zero_grad()` clears every gradient but that of a temperature the head's
    optimizer also steps: that one piles up, and the event names it (however the rest
    were cleared); `optimizer.zero_grad()` clears it (a healthy run above)."""
    run = script_runs.get("gradient_clearing.py", "--clear", how)
    assert run.returncode == 0, run.stderr
    events = run.events("missing_zero_grad")
    assert [(e["step"], e["param"]) for e in events] == [(2, "temperature")], events
    assert "the clear misses it" in events[0]["message"], events[0]


def test_a_gradient_zero_where_it_is_looked_at_is_no_sign_of_a_clear(script_runs: ScriptRuns) -> None:
    """The first values of an embedding's gradient are those of its padding row, zero
    at every step: nothing cleared anything, and the message does not say that a clear
    missed one gradient (LLMs-from-scratch's GPT on bytes, whose token 0 never occurs)."""
    run = script_runs.get("padded_tokens.py", "--no-zero-grad")
    assert run.returncode == 0, run.stderr
    events = run.events("missing_zero_grad")
    assert [e["step"] for e in events] == [2], events
    assert events[0]["message"].startswith("the optimizer stepped on gradients nobody cleared"), events[0]


def test_gradients_never_cleared_explain_the_blow_up(script_runs: ScriptRuns) -> None:
    """The loss that climbs and the NaN it ends in are symptoms of the gradients
    that pile up, folded under it: one problem."""
    run = script_runs.get("gradient_clearing.py", "--clear", "never", "--lr", "0.5")
    problems = run.report["summary"]["problems"]
    assert problems[0]["kind"] == "missing_zero_grad", problems
    assert all(p["kind"] == "missing_zero_grad" for p in problems), problems
    assert problems[0]["symptoms"], problems


def test_a_copy_for_evaluation_is_no_target_network(script_runs: ScriptRuns) -> None:
    """The trained weights copied into an evaluation model once an epoch, run only to
    validate: the loss's level is judged, and the blow-up is the divergence that explains
    the NaN after it."""
    run = script_runs.get("synced_eval_copy.py", "--blow-up")
    assert run.returncode == 0, run.stderr
    notes = run.report["summary"]["notes"]
    assert not any("target network" in note for note in notes), notes
    problems = run.report["summary"]["problems"]
    assert (problems[0]["kind"], problems[0]["step"]) == ("divergence", 62), problems
    healthy = script_runs.get("synced_eval_copy.py")
    assert healthy.events() == [] and healthy.stdout.count("\n") == 6, healthy.events()


def test_a_target_network_makes_the_loss_a_td_error_not_judged_by_level(script_runs: ScriptRuns) -> None:
    """No RL library imported: the Q-network copied into a target network while it
    trains says the loss is a TD error, whose jumps at each sync are healthy."""
    run = script_runs.get("dqn_own_env.py")
    notes = run.report["summary"]["notes"]
    assert any("target network" in note and "not judged" in note for note in notes), notes

