"""NaN/Inf in the input, an activation, the loss, a gradient or a parameter.

Each kind is reported at the first step it appears. Activations are localized
twice: the first module (in forward completion order) whose output was non-finite,
and the culprit, the module whose output magnitude jumped far above its own recent
history (kept for the last few steps) before anything went non-finite.
"""
from __future__ import annotations

import inspect
import math
import weakref
from collections import deque
from typing import TYPE_CHECKING, NamedTuple

import torch
from torch import nn

from sanitizer.core import inputs, locations
from sanitizer.core.loss_line import loss_site
from sanitizer.core.naming import model_variable, unwrap_compiled
from sanitizer.core.probe import INPUT_SLOT, ComputedLoss, LossTerm, StepRecord, UpdatedParams, inexact
from sanitizer.detectors import graphs
from sanitizer.detectors.base import Detector
from sanitizer.detectors.stats import median
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from collections.abc import Callable

    from torch import Tensor

    from sanitizer.core.loss_calls import LossCall
    from sanitizer.core.sink import Sink

TRAIL_STEPS = 4  # steps of per-module magnitudes kept for the culprit search
JUMP_FACTOR = 1e3  # a culprit's output grew at least this much over its recent median...
JUMP_FLOOR = 1e4  # ...and reached at least this magnitude
MIN_LEVEL = 1e-3  # below, an output's recent level is about zero: no jump is measured from it
NEAR_OVERFLOW = 1e15  # without history (first step), this magnitude alone marks a culprit
MAX_BIRTH_MODULES = 3  # modules named as where a NaN gradient was born (one of them)
RECENT_STEPS = 8  # steps whose optimizer updates are kept, read back, to find when a weight was last finite


class _KeptUpdate(NamedTuple):
    """An earlier step's update as the look-back needs it: weak references to its
    parameters, so that a model the script drops (a fold, a restart) is freed."""

    step: int
    params: list[weakref.ref[torch.Tensor]]
    norms: list[float]  # the update's own list, filled when its norms are read


class NonfiniteDetector(Detector):
    name = "nonfinite"
    kinds = ("nonfinite_input", "nonfinite_activation", "nonfinite_loss",
             "nonfinite_grad", "nonfinite_param", "nonfinite_validation")

    def __init__(self) -> None:
        self.first_step: dict[str, int] = {}
        self.nonfinite_steps = 0
        self.overflow_skipped_steps = 0
        self._history: deque[dict[int, float]] = deque(maxlen=TRAIL_STEPS)
        # trail entries (slot, its n-th value in the step: a module hands several of
        # its own values to children) Inf on every step that reached them, on steps
        # whose loss and gradients stayed finite: part of the model (scores masked with
        # -inf handed to an `nn.Softmax` child), never the first non-finite module
        # nor a culprit
        self._inf_by_design: set[tuple[int, int]] = set()
        self._seen_finite: set[tuple[int, int]] = set()
        self._finite_grads_at: int | None = None  # the latest step whose gradients were all finite
        self._masked_input_at: int | None = None  # the first step whose batch's NaN the model masked
        self._forward_nonfinite_at: int | None = None  # the latest step a module's output was non-finite
        self._recent_updates: deque[_KeptUpdate] = deque()  # those of the last RECENT_STEPS steps

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        recent = self._recent_updates
        recent.extend(_KeptUpdate(update.step, [weakref.ref(p) for p in update.params], update.norms)
                      for update in record.updates)
        while recent and recent[0].step <= record.step - RECENT_STEPS:
            recent.popleft()
        trail = record.trail
        bad_loss = next((i for i, loss in enumerate(record.losses) if not math.isfinite(loss)), None)
        bad_grads = [i for i, norm in enumerate(record.grad_norms) if not math.isfinite(norm)]
        bad_params = [i for i, norm in enumerate(record.param_norms) if not math.isfinite(norm)]
        bad_update = _nonfinite_update(record)
        designed = self._designed_infs(trail, clean=bad_loss is None and not bad_grads and not bad_params
                                       and bad_update is None)
        designed |= record.masks
        if self._forward_nonfinite_at == record.step - 1:
            designed |= _carried_states(record)
        if any(slot != INPUT_SLOT and not math.isfinite(mag) and i not in designed
               for i, (slot, mag) in enumerate(trail)):
            self._forward_nonfinite_at = record.step
        first_bad = next((i for i, (_, mag) in enumerate(trail) if not math.isfinite(mag) and i not in designed), None)
        previous_finite = self._finite_grads_at
        # a second optimizer stepping on the same backward pass: the step's gradients are
        # all finite only if the first optimizer's were too
        all_finite = bool(record.grad_norms) and not bad_grads and (
            not record.joins_previous or previous_finite == record.step)
        self._finite_grads_at = record.step if all_finite else None
        harmless = bad_loss is None and not bad_grads and not bad_params and bad_update is None
        if first_bad is not None and harmless and _only_input_nonfinite(trail, designed):
            # NaN in the batch that the model masks on purpose (NaN as "missing": an isnan
            # mask and a learned fill): nothing it computed, nor the loss, nor a gradient, is
            # non-finite. Noted once; the first step it reaches further is reported
            if self._masked_input_at is None:
                self._masked_input_at = record.step
                sink.note(f"nonfinite: the batch of step {record.step} holds {_word(trail[first_bad][1])} values "
                          "that the model masks (its outputs, the loss and the gradients stay finite): "
                          "taken for missing values on purpose, not reported")
            first_bad = None
        if first_bad is None and harmless:
            self._remember(trail)
            self._check_validation(record, sink)
            return
        self.nonfinite_steps += 1
        # an earlier step's update that made a weight non-finite from finite gradients: the
        # cause of what this step shows, told first. From non-finite gradients, the weight is
        # their consequence (reported where they were made); the weights are judged below
        update_made = bad_update is not None and previous_finite == bad_update.step
        if update_made:
            self._report_update(sink, bad_update)
        last = first_bad if first_bad is not None else len(trail) - 1
        if first_bad is not None and isinstance(sink.module_of_slot(trail[first_bad][0]), nn.modules.loss._Loss):
            # a loss module (`nn.MSELoss()`) made it from the model's finite outputs: the
            # loss or its target, not the model
            first_bad, last = None, first_bad - 1
        culprit = self._culprit(trail, last, designed)
        # GradScaler skips overflowing steps by design; a step cut short before its scaler
        # stepped (the script crashed) would have been skipped too
        grads_expected = (record.skipped or (record.partial and record.scale is not None)) and bad_grads
        if grads_expected:
            self.overflow_skipped_steps += 1
        if first_bad is not None:
            forward_matters = (any(math.isnan(mag) for _, mag in trail) or bad_loss is not None
                               or (bad_grads and not grads_expected))
            if forward_matters:
                self._report_forward(record, sink, first_bad, culprit)
        if bad_loss is not None:
            self._report_loss(record, sink, bad_loss, culprit, first_bad)
        if bad_grads and not grads_expected:
            finite_forward = first_bad is None and bad_loss is None
            from_peer = finite_forward and bool(record.losses) and _replicated(sink)
            self._report_grads(record, sink, bad_grads, culprit, from_peer,
                               finite_forward and culprit is None and not from_peer)
        if bad_params and not update_made:
            self._report_params(record, sink, bad_params, previous_finite)
        self._remember(trail)

    def _check_validation(self, record: StepRecord, sink: Sink) -> None:
        """A validation loss that is NaN/Inf while training has stayed finite: bad
        validation data, or an op that overflows only there. After a non-finite
        training step it is that step's consequence, not a problem of its own."""
        value = record.eval_loss if record.eval_loss is not None else record.eval_magnitude
        if value is None or math.isfinite(value) or set(self.first_step) - {"nonfinite_validation"}:
            return
        if not self._first("nonfinite_validation", record.step):
            return
        trained = sink.completed_steps > 0 or bool(record.losses)
        after = (f"after step {record.step - 1}" if record.step > 1 else
                 "before the first step" if trained else "(no training step ran)")
        beside = ", while training stays finite" if trained else ""
        found = _untrained_nonfinite(record)  # a checkpoint loaded with a NaN in it
        if found is not None:
            model, param = found
            sink.emit("nonfinite_validation", record.step,
                      f"validation loss is {_word(value)} {after}{beside}: {model}, evaluated without gradients, "
                      f"has non-finite weights: {param}",
                      module=model, param=param, where=record.eval_site, value=value,
                      extra={"origin": "weights"})
            return
        sink.emit("nonfinite_validation", record.step,
                  f"validation loss is {_word(value)} {after}{beside}: a validation "
                  "batch holds NaN/Inf, or an op overflows on it",
                  where=record.eval_site, value=value)

    def _designed_infs(self, trail: list[tuple[int, float]], clean: bool) -> set[int]:
        """Learn from this step which trail entries are Inf by design; the indices of
        this step's entries that are."""
        occurrences: dict[int, int] = {}
        designed: set[int] = set()
        for index, (slot, mag) in enumerate(trail):
            key = (slot, occurrences.get(slot, 0))
            occurrences[slot] = key[1] + 1
            if math.isfinite(mag):
                self._seen_finite.add(key)
                self._inf_by_design.discard(key)
                continue
            if clean and math.isinf(mag) and key not in self._seen_finite:
                self._inf_by_design.add(key)
            if key in self._inf_by_design:
                designed.add(index)
        return designed

    def _remember(self, trail: list[tuple[int, float]]) -> None:
        """Keep the step's finite magnitudes: the history a later jump is measured against."""
        self._history.append({slot: mag for slot, mag in trail if math.isfinite(mag)})

    def _first(self, kind: str, step: int) -> bool:
        if kind in self.first_step:
            return False
        self.first_step[kind] = step
        return True

    def _culprit(self, trail: list[tuple[int, float]], last: int, designed: set[int]) -> int | None:
        """Slot of the earliest module whose output overflowed or jumped, up to `last`
        (entries Inf by design aside)."""
        for index, (slot, mag) in enumerate(trail[:last + 1]):
            if slot == INPUT_SLOT or index in designed:
                continue
            if not math.isfinite(mag):
                return slot
            growth = self._growth(slot, mag)
            if growth is not None:
                if mag >= JUMP_FLOOR and growth > JUMP_FACTOR:
                    return slot
            elif mag >= NEAR_OVERFLOW:
                return slot
        return None

    def _growth(self, slot: int, mag: float) -> float | None:
        """How many times `mag` is the slot's median magnitude of the last steps; None
        without history."""
        level = self._level(slot)
        return mag / max(level, 1e-6) if level is not None else None

    def _level(self, slot: int) -> float | None:
        """The slot's median magnitude of the last steps; None without history."""
        past = [history[slot] for history in self._history if slot in history]
        return median(past) if past else None

    def _jumped_output(self, trail: list[tuple[int, float]],
                       loss_dtype: torch.dtype) -> tuple[int, float, float] | None:
        """(slot, magnitude, growth) of the first module whose finite output grew over
        JUMP_FACTOR times its recent level, to where exp() overflows in `loss_dtype`
        (about 89 in float32, 11 in float16; far below a culprit's JUMP_FLOOR): the ops
        the loss applies after the model (exp, a square) overflow on it."""
        overflows = math.log(torch.finfo(loss_dtype).max) if loss_dtype.is_floating_point else math.inf
        for slot, mag in trail:
            level = self._level(slot) if slot != INPUT_SLOT and math.isfinite(mag) else None
            # an output starting from about zero (a zero-initialised last layer) grows by
            # orders of magnitude as it learns: no level to measure a jump against
            if level is not None and level >= MIN_LEVEL and mag >= overflows and mag > JUMP_FACTOR * level:
                return slot, mag, mag / level
        return None

    def _overflowed_on(self, record: StepRecord, index: int) -> tuple[int, float, float] | None:
        """The jumped output (see `_jumped_output`) the step's `index`-th loss overflowed on:
        only an Inf loss is an overflow (NaN is a mean over zero items, log of a negative,
        0 * inf), and one whose every target is ignored is a mean over zero items."""
        if not math.isinf(record.losses[index]) or _all_ignored(record, index) is not None:
            return None
        dtype = record.loss_dtypes[index] if index < len(record.loss_dtypes) else torch.float32
        return self._jumped_output(record.trail, dtype)

    def _report_forward(self, record: StepRecord, sink: Sink, first_bad: int, culprit: int | None) -> None:
        slot, mag = record.trail[first_bad]
        if slot == INPUT_SLOT:
            if self._first("nonfinite_input", record.step):
                where, model, argument = _input_source(record, first_bad, sink)
                named = f" (its argument {argument})" if argument is not None else ""
                sink.emit("nonfinite_input", record.step,
                          f"the batch passed to {model or 'the model'}{named} contains {_word(mag)} values",
                          module=model, where=where or record.model_site, value=mag,
                          extra={"argument": argument} if argument is not None else {})
            return
        if not self._first("nonfinite_activation", record.step):
            return
        module = sink.slot_name(slot)
        culprit_name = sink.slot_name(culprit) if culprit is not None else module
        blame = "" if culprit_name == module else f"; it started in {culprit_name}, whose values jumped first"
        what = (f"the code of {module}'s own forward (not one of its child modules) computed a value that is "
                f"{_word(mag)} and handed it to a child module"
                if sink.slot_is_own(slot) else f"output of {module} is {_word(mag)}")
        half = first_bad < len(record.trail_half) and record.trail_half[first_bad]
        if half:
            blame += ("; it is float16 (autocast, or a .half() model), whose largest value is 65504: "
                      "an overflow there gives Inf, and NaN after it")
        sink.emit("nonfinite_activation", record.step,
                  f"{what}{blame}",
                  module=module, where=_forward_site(sink, culprit if culprit is not None else slot)
                  or record.model_site, value=mag,
                  extra={"culprit": culprit_name, "first_nonfinite_module": module,
                         **({"dtype": "float16"} if half else {})})

    def _report_loss(self, record: StepRecord, sink: Sink, index: int, culprit: int | None,
                     first_bad: int | None) -> None:
        if not self._first("nonfinite_loss", record.step):
            return
        value = record.losses[index]
        first_slot = record.trail[first_bad][0] if first_bad is not None else None
        first_module = sink.slot_name(first_slot) if first_slot not in (None, INPUT_SLOT) else None
        culprit_name = sink.slot_name(culprit) if culprit is not None else first_module
        origin = (" because the input batch is non-finite" if first_slot == INPUT_SLOT
                  else f"; traced back to {culprit_name}" if first_slot is not None and culprit_name else "")
        param = None
        computed: dict[str, str] = {}
        if first_slot is None and culprit is not None:
            # no output was non-finite, but the values of one jumped: the loss computation
            # overflowed on them, as in `_overflowed_on`, not a module that made a NaN
            origin = (f"; the model's outputs are finite, but {culprit_name}'s values jumped first: the loss "
                      "computation overflowed on them")
            computed = {"origin": "outputs_jumped"}
        if first_slot is None and culprit is None:  # no module of the trained model made it
            found = _untrained_nonfinite(record)
            target = _nonfinite_target(record, index) if found is None else None
            if found is not None:
                culprit_name, param = found
                origin = (f"; {culprit_name} (run without gradients: a teacher, a frozen or EMA copy) has "
                          f"non-finite weights: {param}")
            elif target is not None:
                function, word, bad, total, site = target
                origin = f"; the target passed to {function} holds {word}"
                if self._first("nonfinite_input", record.step):
                    sink.emit("nonfinite_input", record.step,
                              f"the target passed to {function} contains {word} values ({bad} of {total}) "
                              "while the model's outputs are finite", where=site,
                              value=float("nan") if word == "NaN" else float("inf"), extra={"operand": "target"})
            elif (jumped := self._overflowed_on(record, index)) is not None:
                # finite outputs that the last updates blew up: the loss overflowed on them,
                # a consequence of the weights (a learning rate too high), not of its own code
                slot, mag, growth = jumped
                culprit_name = sink.slot_name(slot)
                origin = (f"; the model's outputs are finite, but {culprit_name}'s grew to {format_number(mag)}, "
                          f"{format_number(growth)} times its level of the steps before: the loss computation "
                          "overflowed on them")
                computed = {"origin": "outputs_jumped"}
            elif any(slot != INPUT_SLOT for slot, _ in record.trail):
                # every output the model's modules gave was finite: the ops between them and
                # the loss value made it (a mean over zero items, log(0), 0 * inf)
                origin = ("; the model's outputs are finite: the loss computation made it, itself or from a "
                          "tensor it used (a target, a weight)")
                ignored = _all_ignored(record, index)
                if ignored is not None:
                    origin += (f" (every target of F.{ignored[0]} equals ignore_index ({ignored[1]}): "
                               "a mean over zero items)")
                computed = {"origin": "loss_computation"}
        sink.emit("nonfinite_loss", record.step, f"loss is {_word(value)}{origin}",
                  module=culprit_name, param=param, where=_loss_where(record, index), value=value,
                  extra={"culprit": culprit_name, "first_nonfinite_module": first_module, **computed})

    def _report_grads(self, record: StepRecord, sink: Sink, bad: list[int], culprit: int | None,
                      from_peer: bool = False, born_in_backward: bool = False) -> None:
        """`from_peer`: this rank's forward and loss were finite under DDP, so the NaN
        came in through the gradient all-reduce from another rank. `born_in_backward`:
        the forward was finite on this rank, so some backward made the NaN: looked for."""
        if not self._first("nonfinite_grad", record.step):
            return
        candidates = [record.params[i] for i in bad]
        chosen = _first_reached(candidates, record, sink, culprit)
        param = candidates[chosen]
        value = record.grad_norms[bad[chosen]]
        module = sink.param_module_name(param)
        birth = _backward_birth(record, sink, bad) if born_in_backward else None
        born = ""
        if birth is not None:
            # the forward order cannot tell a backward between the two groups that made
            # the NaN from a last module of the first group whose own backward did
            # (`x * sqrt(g)` at g = 0): both are named, neither is claimed
            names, before, after = birth
            born = (f"; either the backward of {' or '.join(names)} (no parameters; run between "
                    f"{', '.join(before)} and {', '.join(after)}, which got finite gradients) turned finite "
                    f"gradients into non-finite ones, or the backward of {', '.join(before)} made them")
        sink.emit("nonfinite_grad", record.step,
                  f"gradient of {sink.param_label(param)} is {_word(value)} ({len(bad)} of {len(record.params)} "
                  f"parameters have non-finite gradients)" + born + (
                      "; this rank's loss was finite: another rank's non-finite gradients reached it through "
                      "DDP's all-reduce" if from_peer else ""),
                  module=module, param=sink.param_name(param),
                  where=_first_site(record), value=value,
                  extra={"params": [sink.param_label(p) for p in candidates[:20]],
                         **({"through_allreduce": True} if from_peer else {}),
                         **({"suspect": " or ".join(birth[0])} if birth is not None else {})})

    def _report_update(self, sink: Sink, update: UpdatedParams) -> None:
        """A parameter that was non-finite as soon as an optimizer's `step()` returned,
        from finite gradients: that update wrote it (its own arithmetic, or it kept a
        value the script wrote during the step), or a step hook of the script's did."""
        if "nonfinite_param" in self.first_step:
            return
        place = _model_order(sink)
        bad = sorted(_update_broke(update), key=lambda i: place(update.params[i]))
        param, value = update.params[bad[0]], update.norms[bad[0]]
        written = sink.nonfinite_write_in(param, update.step)
        before = _largest_before(update, param)
        if written is None and before is not None and not math.isfinite(before):
            self._report_untouched(sink, update, bad, before)
            return
        self._first("nonfinite_param", update.step)
        if written is not None:
            cause = f"keeping the non-finite value the script wrote into it at {written} before the update"
        elif update.step_hooks:
            # read only after every hook around step() returned: the update and the hooks
            # cannot be told apart
            cause = f"the optimizer's step() or a step hook of the script ({', '.join(update.step_hooks)}) made it"
        else:
            cause = ("from finite gradients: the update's own arithmetic made it (a learning rate, Adam's eps, "
                     "a division in the optimizer)")
        sink.emit("nonfinite_param", update.step,
                  f"parameter {sink.param_label(param)} is {_word(value)} as the optimizer's step() of step "
                  f"{update.step} left it, {cause}",
                  module=sink.param_module_name(param), param=sink.param_name(param),
                  where=update.site, value=value,
                  extra={"params": [sink.param_label(update.params[i]) for i in bad[:20]],
                         "origin": "optimizer_step"})

    def _report_untouched(self, sink: Sink, update: UpdatedParams, bad: list[int], before: float) -> None:
        """The first of `bad`, non-finite as `update` left it, had no gradient at that step
        and was non-finite (`before`, its largest magnitude) as the step began: code outside
        the optimizer wrote the value (into a head the step did not use, a layer added to the
        optimizer), after the latest update that left it finite."""
        param, value = update.params[bad[0]], update.norms[bad[0]]
        finite_at = self._left_finite(param, update.step)
        found = f"step {update.step}'s update, which had no gradient for it and found it {_word(before)} already"
        if finite_at is not None:
            when = (f"after step {finite_at}, whose optimizer step() left it finite: code outside the optimizer "
                    f"changed it before {found}")
        else:
            when = (f"as the optimizer's step() of step {update.step} left it: code outside the optimizer wrote "
                    f"it before {found}")
        step = finite_at if finite_at is not None else update.step
        self._first("nonfinite_param", step)
        sink.emit("nonfinite_param", step,
                  f"parameter {sink.param_label(param)} is {_word(value)} {when}",
                  module=sink.param_module_name(param), param=sink.param_name(param), where=None, value=value,
                  extra={"params": [sink.param_label(update.params[i]) for i in bad[:20]],
                         "origin": "outside_optimizer"})

    def _left_finite(self, param: Tensor, before: int) -> int | None:
        """The step of the latest update before step `before` that left `param` finite, if kept."""
        for update in reversed(self._recent_updates):
            if update.step < before:
                for held, norm in zip(update.params, update.norms):
                    if held() is param:
                        return update.step if math.isfinite(norm) else None
        return None

    def _report_params(self, record: StepRecord, sink: Sink, bad: list[int], finite_grads_at: int | None) -> None:
        step = record.param_step if record.param_step is not None else record.step
        if not self._first("nonfinite_param", step):
            return
        place = _model_order(sink)
        bad = sorted(bad, key=lambda i: place(record.checked_params[i]))
        written = next(((i, site) for i in bad
                        if (site := sink.nonfinite_write(record.checked_params[i])) is not None), None)
        first = written[0] if written is not None else bad[0]
        param = record.checked_params[first]
        value = record.param_norms[first]
        if written is not None:
            # the script wrote the NaN/Inf in by hand, and nothing wrote the weight since
            sink.emit("nonfinite_param", step,
                      f"parameter {sink.param_label(param)} is {_word(value)}: the script wrote a "
                      f"non-finite value into it at {written[1]}",
                      module=sink.param_module_name(param), param=sink.param_name(param),
                      where=written[1], value=value,
                      extra={"params": [sink.param_label(record.checked_params[i]) for i in bad[:20]],
                             "written": True})
            return
        when = "before the first update" if step == record.step and sink.completed_steps == 0 else "after the update"
        # a weight in shared memory (hogwild) may have been written by another process: not
        # known to be this script's code after the update (see the shared-memory advice)
        outside = when == "after the update" and step != record.step and not _in_shared_memory(param) and (
            record.by_hand or _finite_after_update(record, param, step))
        if outside and record.by_hand:
            # no optimizer: nothing but the script's own code writes the weights between
            # backward passes (`p -= lr * p.grad`, `p.data.add_(...)`)
            when = (f"after step {step}: no optimizer steps in this loop, so the script's own update of the "
                    f"weights after step {step}'s backward pass wrote it"
                    + ("; that step's gradients were finite" if finite_grads_at == step else ""))
        elif outside:
            when = (f"after step {step}, whose optimizer step() left it finite: code outside the optimizer "
                    f"changed it before step {record.step}'s forward")
        elif when == "after the update" and finite_grads_at == step and step != record.step:
            # finite gradients: the update itself (a learning rate, Adam's eps) or code
            # outside the optimizer that wrote the weights before this step's forward
            when = (f"after step {step}, whose gradients were finite: the optimizer's update made it so, "
                    f"or code outside the optimizer changed it before step {record.step}'s forward")
        initial = when == "before the first update"
        # weights in shared memory (hogwild: `model.share_memory()`, several processes
        # each stepping the same tensors) that no non-finite gradient of this process
        # explains: another process's update may have written them
        shared = (initial or not when.startswith("after the update")) and _in_shared_memory(param)
        if shared:
            when += ("; it lives in shared memory (share_memory()): another process that trains the same "
                     "weights (hogwild) may have written it")
        sink.emit("nonfinite_param", step, f"parameter {sink.param_label(param)} is {_word(value)} {when}",
                  module=sink.param_module_name(param), param=sink.param_name(param),
                  # the line that wrote it is not known: no hook runs in the script's own code
                  where=None if outside else locations.user_site(), value=value,
                  extra={"params": [sink.param_label(record.checked_params[i]) for i in bad[:20]],
                         **({"initial": True} if initial else {}), **({"shared": True} if shared else {}),
                         **({"origin": "script_update" if record.by_hand else "outside_optimizer"}
                            if outside else {})})


def _model_order(sink: Sink) -> Callable[[Tensor], int]:
    """Sort key of parameters: their place in the models' `named_parameters()`."""
    order = {id(param): place for place, (_, param) in enumerate(sink.named_parameters())}
    return lambda param: order.get(id(param), len(order))


def _nonfinite_update(record: StepRecord) -> UpdatedParams | None:
    """The first update the step read back that left a parameter non-finite. Weights in
    shared memory are left to the read before the next update: another process training
    them (hogwild) may have written the NaN before this one's update, which kept it."""
    return next((update for update in record.updates if _update_broke(update)), None)


def _update_broke(update: UpdatedParams) -> list[int]:
    """The indices of the parameters `update` left non-finite, those in shared memory aside."""
    return [i for i, norm in enumerate(update.norms)
            if not math.isfinite(norm) and not _in_shared_memory(update.params[i])]


def _largest_before(update: UpdatedParams, param: Tensor) -> float | None:
    """`param`'s largest magnitude as `update`'s step() began, measured when it had no gradient."""
    return next((largest for held, largest in zip(update.without_grad or (), update.largest_before) if held is param),
                None)


def _finite_after_update(record: StepRecord, param: Tensor, step: int) -> bool:
    """Whether `param` was measured finite right after step `step`'s optimizer update."""
    return any(update.step == step and math.isfinite(norm)
               for update in record.updates for held, norm in zip(update.params, update.norms) if held is param)


def _in_shared_memory(param: Tensor) -> bool:
    """A CPU tensor in shared memory (`is_shared()` is always true of CUDA tensors)."""
    try:
        return param.device.type == "cpu" and param.is_shared()
    except (RuntimeError, TypeError, NotImplementedError):  # a tensor subclass without storage
        return False


def _first_reached(candidates: list[Tensor], record: StepRecord, sink: Sink, culprit: int | None) -> int:
    """Index of the culprit module's own parameter if it has one (not its children's: a
    block whose own code jumped says nothing of which child), else of the one backward
    reached first."""
    module = sink.module_of_slot(culprit) if culprit is not None else None
    if module is not None:
        owned = {id(p) for p in module.parameters(recurse=False)}
        for index, param in enumerate(candidates):
            if id(param) in owned:
                return index
    order = {key: rank for rank, key in enumerate(graphs.gradient_order(record.graph_roots))}
    return min(range(len(candidates)), key=lambda i: order.get(id(candidates[i]), len(order)))


def _backward_birth(record: StepRecord, sink: Sink, bad: list[int]) -> tuple[list[str], list[str], list[str]] | None:
    """After a finite forward, the modules whose backward made the NaN, when the forward
    order says so cleanly: every module whose parameters got NaN gradients ran before every
    module whose parameters got finite ones, and up to MAX_BIRTH_MODULES modules with no
    parameters of either kind (nor one of those inside them) ran between the two groups: a
    gradient that was finite where the later group got it reached the earlier one as NaN.
    (their names, the modules before them, those after them); None otherwise."""
    positions: dict[int, list[int]] = {}
    modules: dict[int, nn.Module] = {}
    for position, (slot, _) in enumerate(record.trail):
        module = sink.module_of_slot(slot) if slot != INPUT_SLOT else None
        if module is not None:
            positions.setdefault(id(module), []).append(position)
            modules[id(module)] = module
    bad_ids = {id(record.params[i]) for i in bad}
    owners: dict[bool, list[nn.Module]] = {True: [], False: []}
    for param in record.params:
        owner = sink.param_owner(param)
        if owner is None or id(owner) not in positions:
            return None  # a parameter used outside the traced modules: no order to go by
        group = owners[id(param) in bad_ids]
        if all(owner is not known for known in group):
            group.append(owner)
    if not owners[True] or not owners[False]:
        return None
    last_bad = max(positions[id(owner)][-1] for owner in owners[True])
    first_finite = min(positions[id(owner)][0] for owner in owners[False])
    if last_bad >= first_finite:
        return None
    holders = owners[True] + owners[False]
    between = [module for key, module in modules.items()
               if all(last_bad < position < first_finite for position in positions[key])
               and not any(any(inner is owner for inner in module.modules()) for owner in holders)
               and not isinstance(module, nn.modules.loss._Loss)]
    # the innermost: a block holding the activation is not another suspect
    between = [module for module in between
               if not any(other is not module and any(inner is other for inner in module.modules())
                          for other in between)]
    if not 0 < len(between) <= MAX_BIRTH_MODULES:
        return None

    def names(found: list[nn.Module]) -> list[str]:
        return [str(sink.module_name(module)) for module in found]
    return names(between), names(owners[True]), names(owners[False])


def _only_input_nonfinite(trail: list[tuple[int, float]], designed: set[int]) -> bool:
    """Every non-finite entry of the trail is a batch given to a model: every value a
    module computed from it is finite (entries Inf by design aside)."""
    return all(slot == INPUT_SLOT or index in designed or math.isfinite(mag)
               for index, (slot, mag) in enumerate(trail))


def _first_site(record: StepRecord) -> str | None:
    return next((site for site in record.loss_sites if site), None)


def _forward_site(sink: Sink, slot: int) -> str | None:
    """Where a user-defined module's forward lives; None for torch's own modules."""
    module = sink.module_of_slot(slot)
    if module is None:
        return None
    forward = getattr(type(module), "forward", None)
    try:
        filename = inspect.getsourcefile(forward)
        line = inspect.getsourcelines(forward)[1]
    except (TypeError, OSError):
        return None
    if filename is None or not locations.is_user_file(filename):
        return None
    return locations.format_site(filename, line)


def _untrained_nonfinite(record: StepRecord) -> tuple[str, str] | None:
    """A model the step ran without gradients whose weights (or buffers: running
    statistics) are not finite, as a bad checkpoint leaves a teacher: (what the
    script calls it, the first such tensor's name). Read only once the loss went
    non-finite with no module of the trained model to blame."""
    for ref in record.nograd_models or ():
        model = ref()
        if model is None:
            continue
        tensors = [*model.named_parameters(), *model.named_buffers()]
        for name, tensor in tensors:
            if inexact(tensor) and tensor.numel() and not bool(torch.isfinite(tensor).all()):
                label = model_variable(model) or type(model).__name__
                return label, f"{label}.{name}"
    return None


def _computed_loss(record: StepRecord, index: int) -> ComputedLoss | None:
    return record.computed_losses[index] if index < len(record.computed_losses) else None


def _finite(term: LossTerm) -> bool | None:
    """Whether a functional loss's value was finite; None once it was changed in place
    (`ce /= n`): its value is the one after."""
    return bool(torch.isfinite(term.value).all()) if term.value._version == term.version else None


def _made_non_finite(loss: ComputedLoss) -> LossTerm | None:
    """The first functional loss `loss` was computed from that was non-finite itself."""
    return next((term for term in loss.terms if _finite(term) is False), None)


def _all_finite(loss: ComputedLoss) -> bool:
    """Whether every functional loss `loss` was computed from is known to have been finite."""
    return not loss.left_out and all(_finite(term) for term in loss.terms)


def _loss_call(record: StepRecord, index: int) -> tuple[LossCall, str | None] | None:
    """The functional loss call the step's `index`-th loss is, or was computed from, and its
    line: of those it was computed from (`a + 0.1 * b`), the first that was non-finite itself,
    else the latest (`loss = loss_sum / n_tokens`)."""
    call = record.loss_calls[index] if index < len(record.loss_calls) else None
    if call is not None:
        return call, record.loss_sites[index]
    computed = _computed_loss(record, index)
    if computed is None:
        return None
    term = _made_non_finite(computed) or computed.terms[-1]
    return term.call, term.site


def _loss_where(record: StepRecord, index: int) -> str | None:
    """The line that made the step's `index`-th loss non-finite: the functional loss's call
    (the first non-finite one of several), unless every one it was computed from was finite:
    then the assignment of what backward ran on (`loss = loss_sum / n_tokens` with no tokens)."""
    computed = _computed_loss(record, index)
    if computed is None:
        return loss_site(record.loss_sites[index])
    bad = _made_non_finite(computed)
    if bad is not None:
        return loss_site(bad.site)
    if _all_finite(computed) and computed.backward_at is not None:
        return loss_site(locations.point_site(computed.backward_at))
    return loss_site(record.loss_sites[index])


def _nonfinite_target(record: StepRecord, index: int) -> tuple[str, str, int, int, str | None] | None:
    """The functional loss whose target holds NaN/Inf, when the step's `index`-th loss came
    from one: (`F.mse_loss`, NaN or Inf, how many values, of how many, its line). Read only
    once that loss went non-finite with no module to blame."""
    found = _loss_call(record, index)
    call, site = found if found is not None else (None, None)
    target = call.target() if call is not None and call.target is not None else None
    if target is None or not inexact(target):
        return None
    finite = torch.isfinite(target)
    bad = int(finite.numel() - finite.sum())
    if not bad:
        return None
    word = "NaN" if bool(torch.isnan(target).any()) else "Inf"
    return f"F.{call.function}", word, bad, target.numel(), site


def _all_ignored(record: StepRecord, index: int) -> tuple[str, int] | None:
    """(`cross_entropy`, its ignore_index) when the step's `index`-th loss came from a
    class-indexed loss whose every label is ignored: a mean over zero items is NaN."""
    found = _loss_call(record, index)
    call = found[0] if found is not None else None
    labels = call.target() if call is not None and call.target is not None else None
    if labels is None or call.ignore_index is None or labels.is_floating_point() or not labels.numel():
        return None
    return (call.function, call.ignore_index) if bool((labels == call.ignore_index).all()) else None


def _word(value: float) -> str:
    """NaN, Inf or -Inf: a loss (a log-likelihood) may fall to minus infinity; a norm is never negative."""
    return "NaN" if math.isnan(value) else "-Inf" if value < 0 else "Inf"


def _input_source(record: StepRecord, index: int, sink: Sink) -> tuple[str | None, str | None, str | None]:
    """Where the batch at trail entry `index` was given to a model, that model's name
    when the step ran more than one (a GAN's discriminator fed the real batch), and the
    argument it was unless the model's first (`model(ids, weights)`: `weights`)."""
    nth = sum(1 for slot, _ in record.trail[:index] if slot == INPUT_SLOT)
    if nth >= len(record.input_sources):
        return None, None, None
    site, ref, path = record.input_sources[nth]
    module = ref() if ref is not None else None
    models = {id(r()) for _, r, _ in record.input_sources if r is not None and r() is not None}
    # a parameter-free module given the batch (a normalisation before the model, its
    # input made to require grad for an attack) is no model to name
    named = module is not None and len(models) > 1 and next(module.parameters(), None) is not None
    argument = None if path == inputs.BATCH else inputs.argument_name(
        unwrap_compiled(module) if module is not None else None, path)
    return site, (sink.module_name(module) if named else None) or None, argument


def _carried_states(record: StepRecord) -> set[int]:
    """The trail entries of arguments beside the batch that are non-finite, on a step
    after one whose forward was: the model's own state carried over (an RNN's hidden
    state, detached between BPTT windows), the earlier step's consequence, not data."""
    carried, nth = set(), 0
    for index, (slot, mag) in enumerate(record.trail):
        if slot != INPUT_SLOT:
            continue
        if (not math.isfinite(mag) and nth < len(record.input_sources)
                and record.input_sources[nth].argument != inputs.BATCH):
            carried.add(index)
        nth += 1
    return carried


def _replicated(sink: Sink) -> bool:
    """The model is a DDP replica in a group of several ranks (asked once a gradient
    is non-finite): its gradients are the all-reduced sum of every rank's."""
    from sanitizer.distributed import ranks
    if not ranks.in_group(ranks.rank_info()).distributed:
        return False
    from torch.nn.parallel import DistributedDataParallel
    return any(isinstance(module, DistributedDataParallel)
               for _, root in sink.model_roots() for module in root.modules())
