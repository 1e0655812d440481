"""Loss series fed straight to the divergence detector, one step's record at a time as
the session feeds it: unit tests of how a loss curve is judged, without a script."""
from __future__ import annotations

from typing import Any


class EventSink:
    """Keeps what a detector emits as the session's events."""

    crashed = static_loss_scale = None

    def __init__(self) -> None:
        self.events: list[Any] = []

    def emit(self, kind: str, step: int, message: str, **fields: object) -> Any:
        from sanitizer.core.events import Event
        self.events.append(Event(kind, step, message, **fields))  # type: ignore[arg-type]
        return self.events[-1]

    def module_name(self, module: object) -> str:
        return type(module).__name__


def _at(value: Any, step: int) -> Any:
    """A per-step list's value at `step` (from 1), or the one value of every step."""
    return value[step - 1] if isinstance(value, list) else value


def divergence_events(losses: list[float], *, optimizer_id: int | list[int] | None = 1,
                      param_groups: int | list[int] | None = None, lr: float | list[float] | None = None,
                      models: list[list[Any]] | None = None, classes: int | None = None,
                      batch_items: int | None = None) -> list[Any]:
    """The divergence events of a run with these losses (one per step); each of
    `optimizer_id`, `param_groups` and `lr` is one value or one per step; `models`: the
    training parameters of each step; `classes`: each loss is the mean cross-entropy over
    that many classes; `batch_items`: the items each step's forward was given."""
    from sanitizer.core.loss_calls import LossCall
    from sanitizer.core.probe import StepRecord
    from sanitizer.detectors.divergence import DivergenceDetector
    detector, sink = DivergenceDetector(), EventSink()
    calls = [LossCall("cross_entropy", "cross_entropy", None, classes=classes)] if classes else []
    for step, loss in enumerate(losses, start=1):
        detector.on_step(StepRecord(step=step, skipped=False, partial=False, losses=[loss], loss_sites=[None],
                                    trail=[], model_site=None, params=[], grad_norms=[], grad_norm=None,
                                    checked_params=[], param_norms=[], param_step=None, scale=None,
                                    underflow=None, eval_loss=None, data_wait=0.0, step_time=None,
                                    memory_bytes=None, graph_roots=[], optimizer_id=_at(optimizer_id, step),
                                    param_groups=_at(param_groups, step), lr=_at(lr, step),
                                    training_params=models[step - 1] if models is not None else [],
                                    loss_calls=calls, batch_items=batch_items), sink)  # type: ignore[arg-type]
    detector.on_end(sink)  # type: ignore[arg-type]
    return sink.events
