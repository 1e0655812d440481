"""Gradients clipped while a GradScaler's loss scale still multiplies them: the
threshold is compared with scaled norms, so nearly every step is clipped to a tiny
update (the run-time twin of lint rule TL101). Seen when `clip_grad_norm_` or
`clip_grad_value_` ran, after a scaled backward pass, on parameters that
`scaler.step(optimizer)` then steps without `scaler.unscale_(optimizer)` before the
clip. Judged at the step, so a second, unscaled model clipped meanwhile is not taken
for the scaled one."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sanitizer.core import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink


@dataclass(frozen=True)
class _Clip:
    clip: str
    parameters: frozenset[int]  # ids of the parameters clipped
    unscaled: frozenset[int]  # ids of the optimizers the scaler had unscaled by then
    step: int
    where: str | None
    scale: float


class ClipOrderDetector(Detector):
    name = "clip_before_unscale"
    kinds = ("clip_before_unscale",)

    def __init__(self) -> None:
        self.reported = False
        self._clips: list[_Clip] = []  # the clips of the current step, not yet judged

    def on_clip(self, clip: str, parameters: list[Any], scaler: Any, sink: Sink) -> None:
        if self.reported:
            return
        self._clips = [seen for seen in self._clips if seen.step == sink.step]
        self._clips.append(_Clip(clip, frozenset(map(id, parameters)), _unscaled(scaler), sink.step,
                                 locations.user_site(), scaler.get_scale()))

    def on_scaler_step(self, scaler: Any, optimizer: Any, sink: Sink) -> None:
        if self.reported or not self._clips:
            return
        stepped = {id(parameter) for group in getattr(optimizer, "param_groups", ()) for parameter in group["params"]}
        for seen in self._clips:
            if id(optimizer) not in seen.unscaled and not seen.parameters.isdisjoint(stepped):
                self.reported = True
                self._clips = []
                sink.emit("clip_before_unscale", seen.step,
                          f"{seen.clip}() ran on gradients still multiplied by the loss scale ({seen.scale:g}): "
                          "the threshold is compared with scaled values, so the update is clipped far more "
                          "than meant", where=seen.where, value=seen.scale)
                return


def _unscaled(scaler: Any) -> frozenset[int]:
    """The ids of the optimizers whose gradients the scaler has unscaled since its last update."""
    states = getattr(scaler, "_per_optimizer_states", None) or {}
    return frozenset(key for key, state in states.items() if getattr(state.get("stage"), "name", None) == "UNSCALED")
