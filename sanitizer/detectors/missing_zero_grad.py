"""An optimizer stepping on gradients kept from its previous step: nothing cleared
them in between, so every backward pass adds to all the gradients before it and
each update applies them again (the run-time twin of lint rule TL401).

The session follows the gradients each optimizer stepped with
(`sanitizer.core.clearing`); a step is marked when no backward pass since the
optimizer's previous step started from cleared gradients. Gradient accumulation
over several backward passes within one step is not concerned: only gradients an
optimizer already applied are followed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink


class MissingZeroGradDetector(Detector):
    name = "missing_zero_grad"
    kinds = ("missing_zero_grad",)

    def __init__(self) -> None:
        self.steps_on_kept_gradients = 0
        self._reported: set[int | None] = set()  # optimizers and parameters reported (by id)

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        param = record.kept_gradient
        if param is None:
            return
        self.steps_on_kept_gradients += 1
        # once per optimizer, and once per parameter: a wrapper that is an optimizer
        # itself (Lookahead) steps the same parameters through its inner one
        if record.optimizer_id in self._reported or id(param) in self._reported:
            return
        self._reported.update((record.optimizer_id, id(param)))
        module = sink.common_module_name(record.params)
        owner = f"the optimizer of {module}" if module else "the optimizer"
        name = sink.param_name(param)
        if record.kept_beside_cleared:
            # the clear covers part of what the optimizer steps: `model.zero_grad()` beside a
            # parameter kept outside the model (a CLIP temperature, a loss module's weights)
            what = (f"{owner} stepped on {sink.param_label(param)}'s gradient, which nobody cleared since its previous step "
                    "while other gradients of it were: the clear misses it, so every backward pass adds to its "
                    "earlier gradients and each update applies them again; call optimizer.zero_grad() once per "
                    "step (it clears every parameter the optimizer steps)")
        else:
            what = (f"{owner} stepped on gradients nobody cleared since its previous step: every backward "
                    "pass adds to the gradients of all earlier ones and each update applies them again; "
                    "call optimizer.zero_grad() once per step")
        sink.emit("missing_zero_grad", record.step, what, module=module, param=name, where=record.step_site)
