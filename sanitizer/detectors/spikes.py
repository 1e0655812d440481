"""Loss and gradient-norm spikes: a value far above the rolling median (robust to outliers).

Each optimizer's steps are judged against that optimizer's own history: when
several take turns (a GAN's generator and discriminator), their losses and
gradient norms sit at different levels, and one's step is no outlier of the other's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector, optimizer_words
from sanitizer.detectors.stats import RollingWindow, upward_outlier
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

WINDOW = 50
MIN_HISTORY = 20  # no verdict before this many steps
REPEAT_GAP = 10  # steps between two reported spikes


class _SpikeDetector(Detector):
    kind = ""
    judges_loss_level = True
    what = ""
    min_sigmas = 12.0
    min_ratio = 5.0
    # a spike must also be large against the level of the first steps, so that blips of
    # a loss that converged near zero (1e-4 -> 1e-3) are not spikes
    min_share_of_start = 0.1

    window_type = RollingWindow

    def __init__(self) -> None:
        self.spikes = 0
        self.last_spike_step: int | None = None
        self._windows: dict[int | None, RollingWindow] = {}  # per optimizer (None: steps without one)
        self._start_levels: dict[int | None, float] = {}

    def value_of(self, record: StepRecord) -> float | None:
        raise NotImplementedError

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        value = self.value_of(record)
        if value is None or record.skipped or record.partial:
            return
        key = record.optimizer_id
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = self.window_type(WINDOW)
        if len(window) >= MIN_HISTORY:
            start_level = self._start_levels.get(key)
            if start_level is None:
                start_level = self._start_levels[key] = window.baseline()[0]
            if window.within_ratio(value, self.min_ratio):
                window.add(value)  # not an outlier whatever the median is: skip the sorts
                return
            centre, sigma = window.baseline()
            if (upward_outlier(value, centre, sigma, self.min_sigmas, self.min_ratio)
                    and value - centre > self.min_share_of_start * abs(start_level)):
                self._report(record, sink, value, centre, sigma, len(window))
        window.add(value)

    def _report(self, record: StepRecord, sink: Sink, value: float, centre: float, sigma: float,
                history: int) -> None:
        self.spikes += 1
        if self.last_spike_step is not None and record.step - self.last_spike_step < REPEAT_GAP:
            return
        self.last_spike_step = record.step
        ratio = f"{format_number(value / centre)} times " if centre > 0 else ""
        whose = f" of {optimizer_words(record, sink)}" if len(self._windows) > 1 else ""
        sink.emit(self.kind, record.step,
                  f"{self.what} {value:.4g} is {ratio}its median {centre:.4g} over the last {history} steps{whose}",
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
