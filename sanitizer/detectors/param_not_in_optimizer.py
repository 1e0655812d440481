"""Trainable model parameters that no optimizer updates (checked once, at the first step)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core import locations
from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.grouping import by_module

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

MAX_EVENTS = 20


class ParamNotInOptimizerDetector(Detector):
    name = "param_not_in_optimizer"
    kinds = ("param_not_in_optimizer",)

    def __init__(self) -> None:
        self.checked = False
        self.missing: list[str] = []

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if self.checked or record.partial or not record.training_params:
            return
        self.checked = True
        in_optimizers = sink.optimizer_params()
        missing = [(name, p) for name, p in sink.named_parameters()
                   if p.requires_grad and id(p) not in in_optimizers]
        self.missing = [name for name, _ in missing]
        owners = [sink.param_module_name(p) for _, p in missing]
        site = locations.user_site()
        for module, params in list(by_module(self.missing, owners).items())[:MAX_EVENTS]:
            sink.emit("param_not_in_optimizer", record.step,
                      f"{', '.join(params)} require grad but no optimizer holds them: they are never updated",
                      module=module, param=params[0], where=site, extra={"params": params})
