"""The base every check derives from: no-op callbacks and plain-data state."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch import Tensor, nn

    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink


class Detector:
    """A check. Override only the callbacks you need; public attributes are its state."""

    name: str = ""
    kinds: tuple[str, ...] = ()
    # judges the loss's or the gradient's level against the run's own history: not in
    # reinforcement learning, where both follow the returns (see Sanitizer.reinforcement_learning)
    judges_loss_level: bool = False

    def on_forward(self, module: nn.Module, output: Any, sink: Sink) -> None:
        """After a module's forward with gradients enabled (only called if overridden)."""

    def on_backward(self, loss: Tensor, sink: Sink) -> None:
        """When `.backward()` is called on a scalar loss (only called if overridden)."""

    def on_scheduler_step(self, scheduler: Any, sink: Sink) -> None:
        """Before the first `step()` the script makes on an LR scheduler (only called if overridden)."""

    def on_clip(self, clip: str, parameters: list[Any], scaler: Any, sink: Sink) -> None:
        """After `clip` (`clip_grad_norm_`) ran on `parameters` while `scaler` has scaled a
        loss since its last step (only called if overridden, with `on_scaler_step`)."""

    def on_scaler_step(self, scaler: Any, optimizer: Any, sink: Sink) -> None:
        """Before `scaler.step(optimizer)` of an enabled scaler, for detectors overriding `on_clip`."""

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        """Once per optimizer step, with the step's measurements read back to the host."""

    def on_end(self, sink: Sink) -> None:
        """Once when the run ends, after the last step was flushed."""

    def state(self) -> dict[str, Any]:
        """Plain data for the report: the public attributes that JSON can hold."""
        return {key: value for key, value in vars(self).items()
                if not key.startswith("_") and isinstance(value, (int, float, str, bool, list, dict, type(None)))}


def optimizer_words(record: StepRecord, sink: Sink) -> str:
    """The optimizer that took this step, in words, for runs where several take turns:
    `the optimizer of discriminator` (the module holding its parameters), or `the same optimizer`."""
    owner = sink.common_module_name(record.params)
    return f"the optimizer of {owner}" if owner else "the same optimizer"
