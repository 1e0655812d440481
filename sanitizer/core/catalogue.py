"""Every event kind the sanitizer can report: severity, diagnostic stage and advice.

The stages are the chapter's troubleshooting areas (data, model, loss,
optimization, configuration). The order of this table is cause before effect
within one step: merged reports and the diagnosis break ties with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Kind:
    name: str
    severity: str  # "error" | "warning" | "info"
    stage: str
    advice: str


_KINDS = (
    Kind("nonfinite_input", "error", "data",
         "the batch fed to the model (or the target given to the loss) already holds NaN/Inf: "
         "check preprocessing, "
         "normalisation (std of 0?) and corrupt samples"),
    Kind("nonfinite_validation", "error", "data",
         "the validation loss is NaN/Inf while training stays finite: look for NaN/Inf or "
         "empty batches in the validation data (a sample with missing values, a mean over "
         "zero items), and for ops that overflow only there (fp16 autocast in evaluation)"),
    Kind("dataloader_bound", "warning", "configuration",
         "the loop waits on the DataLoader: raise num_workers, set pin_memory=True "
         "and persistent_workers=True, or move heavy preprocessing offline"),
    Kind("train_val_mismatch", "warning", "data",
         "train and validation losses are far apart in a way no fitting explains: check "
         "the data split, the labels, the loss implementation, that both splits are "
         "preprocessed alike, and the eval-mode layers (BatchNorm statistics)"),
    Kind("nonfinite_activation", "error", "model",
         "a module's output went non-finite: look at the culprit module (its output "
         "jumped first), its weights, and numerically unstable ops (exp, log, sqrt, "
         "division, softmax on huge inputs)"),
    Kind("unused_parameter", "warning", "model",
         "these trainable parameters never receive a gradient, or only zeros: the forward path "
         "skips them or they are detached, or the loss does not depend on them (a bias that a "
         "difference or a normalization cancels, as a WGAN critic's last one); remove them or fix the forward"),
    Kind("param_not_in_optimizer", "error", "model",
         "these parameters of the model receive gradients but belong to no optimizer, so "
         "no optimizer step changes them: build the optimizer after the model is complete, or "
         "set requires_grad=False on frozen parts and on copies updated by hand (an EMA "
         "teacher: its gradients are computed for nothing and pile up); never assign a new nn.Parameter "
         "during training (a tensor updated by hand, as an EMA codebook, is a buffer: "
         "register_buffer, then change it in place under torch.no_grad()); an optimizer over fp32 "
         "master copies of an fp16 model needs them copied back after each step (param.copy_(master))"),
    Kind("overfitting", "warning", "model",
         "train loss is low while validation loss is high and not improving: add "
         "regularisation (weight decay, dropout, augmentation), more data, or stop early"),
    Kind("underfitting", "warning", "model",
         "train loss does not go down: increase model capacity, tune the learning "
         "rate, reduce regularisation, and check that a tiny batch can be overfit"),
    Kind("train_in_eval_mode", "warning", "model",
         "the optimizer steps a model in eval mode (dropout off, batch-norm statistics "
         "frozen): call model.train() at the start of every training epoch, after validation"),
    Kind("missing_zero_grad", "error", "optimization",
         "clear the gradients once per optimizer step (optimizer.zero_grad(), before the backward "
         "pass or after the step): otherwise each backward pass adds to every earlier gradient (lint rule TL401)"),
    Kind("divergence", "warning", "loss",
         "the loss blew up or keeps climbing: lower the learning rate (check the warm-up "
         "peak and the schedule), clip gradients, check the data order"),
    Kind("nonfinite_loss", "error", "loss",
         "the loss is NaN/Inf: follow the culprit module; lower the learning rate, "
         "clip gradients, use numerically stable losses (and bf16 rather than fp16 "
         "when training under fp16 autocast)"),
    Kind("loss_spike", "warning", "loss",
         "the loss jumped far above its recent median: look for outlier batches, "
         "lower the learning rate or add warmup, clip gradients"),
    Kind("nonfinite_grad", "error", "optimization",
         "a gradient is NaN/Inf: check ops with unbounded derivatives (sqrt at 0, "
         "log at 0, pow), clip gradients, lower the learning rate"),
    Kind("nonfinite_param", "error", "optimization",
         "a parameter became NaN/Inf after an update: an exploding or non-finite "
         "update (learning rate too high, Adam eps=0, a division by zero), or code "
         "that writes the weights between steps (a renormalisation, pruning, a loaded checkpoint)"),
    Kind("nonfinite_buffer", "error", "model",
         "a buffer of the model (an EMA, a running scale or statistic, a mask) went NaN/Inf: find "
         "the code that writes it (its module's forward after using it, or the script's .copy_()), "
         "guard the value it takes (a division by a count or a variance of zero, an overflowing "
         "statistic, a non-finite batch), and reset or reload the buffer"),
    Kind("grad_spike", "warning", "optimization",
         "the global gradient norm jumped far above its recent median: clip "
         "gradients (clip_grad_norm_), lower the learning rate, inspect the batch"),
    Kind("clip_before_unscale", "error", "optimization",
         "call scaler.unscale_(optimizer) before clipping: clip_grad_norm_ compares its threshold with "
         "gradients still multiplied by the loss scale, so every update is clipped far below the "
         "threshold meant (lint rule TL101)"),
    Kind("scheduler_before_optimizer", "warning", "optimization",
         "call scheduler.step() after optimizer.step() in every iteration: stepping it first "
         "skips the schedule's first learning rate (often the warm-up start) (lint rule TL404)"),
    Kind("vanishing_grad", "warning", "optimization",
         "the global gradient norm collapsed while the loss stays high: saturated "
         "activations, bad initialisation, a too-small loss scale, or a detached graph"),
    Kind("grad_underflow", "warning", "configuration",
         "fp16 flushed many gradient values to zero: use a GradScaler (loss "
         "scaling), or a larger loss scale, or switch to bf16"),
    Kind("scale_collapse", "error", "configuration",
         "GradScaler keeps skipping steps and its scale keeps falling: the forward "
         "overflows fp16 at any scale; use bf16, fix the overflowing op, or keep it in fp32"),
    Kind("tensor_leak", "error", "configuration",
         "a variable keeps the autograd graph of past steps alive (e.g. total_loss += loss): "
         "accumulate loss.item() or loss.detach() instead"),
    Kind("memory_growth", "warning", "configuration",
         "memory grows step after step: look for tensors kept across steps (lists of "
         "outputs, caches, histories) and detach or drop them"),
    Kind("missing_set_epoch", "error", "data",
         "call sampler.set_epoch(epoch) at the start of every epoch, before iterating the "
         "DataLoader, so each epoch gets a new shuffle (lint rule TL302)"),
    Kind("rank_divergence", "error", "configuration",
         "ranks disagree: check that every rank runs the same steps on its own shard"),
    Kind("sanitizer_error", "warning", "sanitizer",
         "the sanitizer's own code failed here; the training run was not affected. "
         "Please report it with the message"),
)

# `nonfinite_param` of weights written outside an optimizer's step(): finite as an update left
# them (or never measured by one) and non-finite before the next forward or the next update
OUTSIDE_PARAM_ADVICE = (
    "no optimizer update wrote the non-finite value: look at the code that changes the weights "
    "between optimizer.step() calls (a renormalisation or max-norm constraint that divides by a "
    "zero norm, pruning, a write through .data, a checkpoint or EMA copied in, a layer added to "
    "the optimizer already non-finite)")

# `nonfinite_param` of a loop without an optimizer: its own update wrote the NaN/Inf
SCRIPT_UPDATE_PARAM_ADVICE = (
    "the loop updates the weights itself: look at that update (its learning rate, a division "
    "in it such as a step normalised by a gradient norm that can be zero)")

# `nonfinite_param` of weights broken before any update: no step made them so
INITIAL_PARAM_ADVICE = (
    "the weights were NaN/Inf before any update: look at what set them (a custom "
    "initialisation that divides by zero or takes the log of 0, a loaded checkpoint or "
    "pretrained weights that are already broken, code that writes the weights before training)")

# `nonfinite_loss` made by the loss computation from the model's finite outputs
FP16_OVERFLOW_ADVICE = (
    "a float16 value went non-finite, most often an overflow past 65504: keep the op that overflows in "
    "float32 (a torch.autocast(..., enabled=False) block around it, or .float() on its input), train in "
    "bfloat16 instead, and check the batch's scale (inputs far larger than usual) and weights that grew")
NONFINITE_WEIGHTS_VALIDATION_ADVICE = (
    "the evaluated model's own weights (or buffers: batch-norm statistics) hold NaN/Inf: a checkpoint "
    "saved after training went non-finite, or a conversion that overflowed (fp16 weights above 65504); "
    "check the checkpoint's tensors with torch.isfinite and load one saved before the run diverged")
LOSS_COMPUTATION_ADVICE = (
    "the model's outputs were finite: the code computing the loss made the NaN/Inf, and a smaller "
    "learning rate will not fix it: check the other tensors it reads (targets, per-sample weights, "
    "masks from the data) for NaN/Inf, and look for a mean over zero items (a batch whose labels all equal "
    "ignore_index, an empty mask: 0 / 0), log(0) or the log of a negative, 0 * inf, a division by zero; "
    "use the stable forms (log_softmax / cross_entropy on logits, F.logsigmoid, "
    "binary_cross_entropy_with_logits, clamp(min=eps)) and skip or guard empty batches")

# `param_not_in_optimizer` of layers a forward builds anew at every call
BUILT_IN_FORWARD_ADVICE = (
    "a layer written inside forward (`nn.Linear(d, d)(x)`, `nn.LayerNorm(d)(x)`) is a new layer with new "
    "random weights at every call, and the optimizer, built before, never sees them: build it once in "
    "__init__ as an attribute (self.proj = nn.Linear(d, d)) and call self.proj(x); for a normalization "
    "meant without weights use the function (F.layer_norm(x, (d,)))")

# `nonfinite_loss` from finite model outputs that grew 1000-fold since the steps before
OUTPUTS_JUMPED_ADVICE = (
    "the model's outputs grew by orders of magnitude over the last updates and the loss overflowed on "
    "them: the weights are blowing up: lower the learning rate (check the warm-up peak and the "
    "schedule), clip gradients; a loss in a stable form (F.softplus, torch.logsumexp, "
    "binary_cross_entropy_with_logits in place of log(1 + exp(x)) or log(sigmoid(x))) would stay finite, "
    "but the outputs would still be blowing up")

# `unused_parameter` of parameters whose gradients went all zero mid-run and stayed so
DIED_PARAM_ADVICE = (
    "these parameters learned, then their gradients went to exactly zero at that step and stayed "
    "there: look at what changed then (pruning with too large an amount, a mask set to zero, a "
    "learning-rate jump that killed ReLU units, a detach or a branch switched off)")

# `loss_spike` / `grad_spike` while the learning rate rose 10-fold or more over the window
RISING_LR_SPIKE_ADVICE = (
    "the learning rate rose 10-fold or more over the steps before the spike: in a learning-rate "
    "range test (lr_find) that is the rate growing too high, and a rate well below it is the one "
    "to train at; otherwise check the schedule (its warm-up peak, a scheduler stepped per batch "
    "where it is meant per epoch), clip gradients")

# `unused_parameter` of a bidirectional RNN's last reverse recurrent weights, read at the last step only
REVERSE_FIRST_STEP_ADVICE = (
    "the output at the last time step holds the forward direction's summary of the whole sequence "
    "but the reverse direction's first step, one input: read the final hidden states of both "
    "directions (h_n[-2:], or out[:, -1, :hidden] with out[:, 0, hidden:] for batch_first), "
    "or pool over time")

# `unused_parameter` of a run whose every loss was exactly 0, from the first step
ZERO_LOSS_ADVICE = (
    "a loss that is 0 before any training carries no gradient: check how it is computed. "
    "cross_entropy needs one logit per class (for one output per sample use "
    "binary_cross_entropy_with_logits); a mask or weight that zeros every term, or a target "
    "compared with itself, gives the same")

# `unused_parameter` of layers every forward runs whose gradients are all zero
VANISHED_PARAM_ADVICE = (
    "the forward runs these layers but no gradient reaches them: saturated activations between "
    "them and the loss (a sigmoid or tanh driven to its flat ends by large inputs or biases), dead "
    "ReLUs, or an initialisation that scales the signal away; or the loss cancels them (a bias "
    "that a difference or a normalization removes, as a WGAN critic's last one)")

KINDS: dict[str, Kind] = {kind.name: kind for kind in _KINDS}
KIND_ORDER: dict[str, int] = {kind.name: index for index, kind in enumerate(_KINDS)}  # cause before effect


def severity_of(kind: str) -> str:
    return KINDS[kind].severity if kind in KINDS else "warning"


def chosen_kinds(checks: Iterable[str] | None, halt_on: Iterable[str]) -> tuple[set[str], set[str]]:
    """The kinds `--checks` runs (all when None) and those `--halt-on` stops at;
    ValueError naming what is wrong with either."""
    enabled = _validate_kinds(checks, "checks") if checks is not None else set(KINDS)
    halting = _validate_kinds(halt_on, "halt-on")
    unchecked = sorted(halting - enabled - {"sanitizer_error"})  # that one is always on
    if unchecked:
        raise ValueError(f"--halt-on {', '.join(unchecked)}: not among the checks that run (--checks); "
                         f"add {'it' if len(unchecked) == 1 else 'them'} to --checks")
    return enabled, halting


def _validate_kinds(kinds: Iterable[str], option: str) -> set[str]:
    chosen = {kind.strip() for kind in kinds if kind.strip()}
    if "all" in chosen:
        return set(KINDS)
    unknown = sorted(chosen - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind(s) for --{option}: {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(KINDS))})")
    return chosen
