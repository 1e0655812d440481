"""Gradients clipped while a GradScaler's loss scale still multiplies them: the
threshold is compared with scaled norms, so nearly every step is clipped to a tiny
update (the run-time twin of lint rule TL101). Seen when `clip_grad_norm_` or
`clip_grad_value_` runs after a scaled backward pass and before the scaler has
unscaled any optimizer's gradients in that step."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sanitizer.core import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink


class ClipOrderDetector(Detector):
    name = "clip_before_unscale"
    kinds = ("clip_before_unscale",)

    def __init__(self) -> None:
        self.reported = False

    def on_clip(self, clip: str, scaler: Any, sink: Sink) -> None:
        if self.reported or _unscaled_any(scaler):
            return
        self.reported = True
        scale = scaler.get_scale()
        sink.emit("clip_before_unscale", sink.step,
                  f"{clip}() ran on gradients still multiplied by the loss scale ({scale:g}): the "
                  "threshold is compared with scaled values, so the update is clipped far more than meant",
                  where=locations.user_site(), value=scale)


def _unscaled_any(scaler: Any) -> bool:
    """Whether the scaler has unscaled some optimizer's gradients since its last update."""
    states = getattr(scaler, "_per_optimizer_states", None) or {}
    return any(getattr(state.get("stage"), "name", None) == "UNSCALED" for state in states.values())
