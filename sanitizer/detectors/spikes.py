"""Loss and gradient-norm spikes: a value far above the rolling median (robust to outliers)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.stats import RollingWindow, upward_outlier
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

WINDOW = 50
MIN_HISTORY = 20  # no verdict before this many steps
REPEAT_GAP = 10  # steps between two reported spikes


class _SpikeDetector(Detector):
    kind = ""
    what = ""
    min_sigmas = 12.0
    min_ratio = 5.0
    # a spike must also be large against the level of the first steps, so that blips of
    # a loss that converged near zero (1e-4 -> 1e-3) are not spikes
    min_share_of_start = 0.1

    def __init__(self) -> None:
        self.spikes = 0
        self.last_spike_step: int | None = None
        self.start_level: float | None = None
        self._window = RollingWindow(WINDOW)

    def value_of(self, record: StepRecord) -> float | None:
        raise NotImplementedError

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        value = self.value_of(record)
        if value is None or record.skipped or record.partial:
            return
        if len(self._window) >= MIN_HISTORY:
            if self.start_level is None:
                self.start_level = self._window.baseline()[0]
            if self._window.within_ratio(value, self.min_ratio):
                self._window.add(value)  # not an outlier whatever the median is: skip the sorts
                return
            centre, sigma = self._window.baseline()
            if (upward_outlier(value, centre, sigma, self.min_sigmas, self.min_ratio)
                    and value - centre > self.min_share_of_start * abs(self.start_level)):
                self._report(record, sink, value, centre, sigma)
        self._window.add(value)

    def _report(self, record: StepRecord, sink: Sink, value: float, centre: float, sigma: float) -> None:
        self.spikes += 1
        if self.last_spike_step is not None and record.step - self.last_spike_step < REPEAT_GAP:
            return
        self.last_spike_step = record.step
        ratio = f"{format_number(value / centre)} times " if centre > 0 else ""
        sink.emit(self.kind, record.step,
                  f"{self.what} {value:.4g} is {ratio}its median {centre:.4g} over the last {len(self._window)} steps",
                  where=next((site for site in record.loss_sites if site), None), value=value,
                  extra={"baseline": centre, "sigma": sigma})


class LossSpikeDetector(_SpikeDetector):
    name = "loss_spike"
    kinds = ("loss_spike",)
    kind = "loss_spike"
    what = "loss"

    def value_of(self, record: StepRecord) -> float | None:
        return record.loss


class GradSpikeDetector(_SpikeDetector):
    name = "grad_spike"
    kinds = ("grad_spike",)
    kind = "grad_spike"
    what = "gradient norm"
    min_ratio = 10.0
    min_share_of_start = 0.05

    def value_of(self, record: StepRecord) -> float | None:
        return record.grad_norm
