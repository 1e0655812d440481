"""Loss and gradient-norm spikes: a value far above the rolling median (robust to outliers).

Each optimizer's steps are judged against that optimizer's own history: when
several take turns (a GAN's generator and discriminator), their losses and
gradient norms sit at different levels, and one's step is no outlier of the other's.
A step on a short batch (the last, partial batch of an epoch) is not compared with
full ones: its loss and gradient average fewer samples and vary far more. A
spike stands far above the latest few values too: a series trending up (a gradient
norm that grows steadily as a learned variance shrinks) is far above its 50-step
median at every step, and its next value is no spike. A
parameter group added to an optimizer (`add_param_group`: a new head and its loss
term, layers unfrozen) changes what its loss and gradient measure: its history
starts again. A series heavy-tailed from its first steps (a regression on x..x^4
features) is noisy from its first outlier on: a spike lies beyond where the window's
own upper tail reaches at odds of 1 in 10,000, or is BEYOND_LARGEST times its
largest value. A spike must also be large against where the series started (the median of
its first 5 values, or of its first 20 when higher). A spike's message names the
learning rate's rise when the optimizer's rate (its first group's) grew 10 times or
more over the window (a learning-rate range test, a schedule gone wrong). A reported
spike's event says when the series came back (`recovered_step`: the first of 3 values in
a row after it under twice the median it stood above; one such value between higher
ones, or a NaN, is the series swinging, not back), so that a blow-up that comes after
it is not said to have begun with it.
"""
from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING

from sanitizer.core.events import Event
from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector, optimizer_words
from sanitizer.detectors.stats import RollingWindow, median, tail_reach, upward_outlier
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

WINDOW = 50
MIN_HISTORY = 20  # no verdict before this many steps
REPEAT_GAP = 10  # steps between two reported spikes
NOISY_CANDIDATES = 2  # outliers within NOISE_HORIZON steps that make the next ones the series' noise
NOISE_HORIZON = 500
START = 5  # the first values whose median is where a series started
RECENT = 5  # the latest values whose median a spike must stand far above too
MOVED = 2.0  # the first value after a parameter group was added this far from their median: a new objective
LR_RISE = 10.0  # a learning rate that grew this many times over the window is named
SHORT_BATCH = 0.5  # a step given fewer than this share of the usual items is not judged
BEYOND_LARGEST = 10.0  # a value this many times the window's largest is a spike however wide its tail
# a value under this many times the median a reported spike stood above: the series came back
# (`recovered_step` on the spike's event; the diagnosis tells such a transient from the start of
# what follows it)
BACK = 2.0
# values in a row that must be back: one between higher ones is the series swinging on its way to
# a NaN (60, 1.5, 900, NaN), which the diagnosis ties to a spike up to 3 steps before it
STAY_BACK = 3


class _SpikeDetector(Detector):
    kind = ""
    judges_loss_level = True
    what = ""
    min_sigmas = 12.0
    min_ratio = 5.0
    # a spike must also be large against the level the series started at, so that blips of
    # a loss that converged near zero (1e-4 -> 1e-3) are not spikes: the median of its first
    # START values, or of the first MIN_HISTORY when that is larger (a saturated GAN
    # discriminator's loss falls from 1.4 to 0.3 within its first 20 steps: a blip from
    # 0.005 to 0.09 is large against that median, tiny against where the loss started)
    min_share_of_start = 0.1
    # ...and unlike anything in its window (twice its largest value); and rare: with one
    # sample per step (online learning, per-name RNN tutorials) a hard sample's loss is
    # 20 times the median every few dozen steps, which is the run's noise, not a spike.
    # After NOISY_CANDIDATES such values within NOISE_HORIZON steps, the next ones of
    # their size are not spikes (one far larger still is).
    min_ratio_to_window_max = 2.0
    # ...and this many times the median of the latest RECENT values (a trend is no spike)
    min_ratio_to_recent = 2.5

    window_type = RollingWindow

    def __init__(self) -> None:
        self.spikes = 0
        self.last_spike_step: int | None = None
        self._windows: dict[int | None, RollingWindow] = {}  # per optimizer (None: steps without one)
        self._start_levels: dict[int | None, float] = {}
        self._firsts: dict[int | None, list[float]] = {}  # the first START values of each history
        self._candidates: dict[int | None, deque[tuple[int, float]]] = {}  # (step, value) of the latest outliers
        self._noise_levels: dict[int | None, float] = {}  # the largest outlier of a noisy series
        self._batch_sizes: dict[int | None, deque[int]] = {}  # items given to the latest steps
        self._largest_batch: dict[int | None, int] = {}
        self._groups: dict[int | None, int] = {}  # parameter groups of each optimizer at its latest step
        self._lrs: dict[int | None, deque[float | None]] = {}  # learning rates of the window's steps
        # the latest reported spike of each optimizer, until the series comes back: its event, the
        # value under which it is back, and the steps of the latest values back in a row
        self._unrecovered: dict[int | None, tuple[Event, float, list[int]]] = {}

    def value_of(self, record: StepRecord) -> float | None:
        raise NotImplementedError

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        value = self.value_of(record)
        if value is None or record.skipped or record.partial:
            return
        key = record.optimizer_id
        if key in self._unrecovered:
            self._follow_recovery(key, record.step, value)
        if self._follow_groups(key, record.param_groups):
            window = self._windows.get(key)
            recent = median(list(window.values)[-RECENT:]) if window is not None and len(window) else None
            if recent is not None and recent > 0 and (value > MOVED * recent or value * MOVED < recent):
                # the group's own loss term (or gradient) moved the level at once: its history starts again
                for history in (self._windows, self._start_levels, self._firsts, self._candidates,
                                self._noise_levels, self._lrs):
                    history.pop(key, None)
        if self._short_batch(key, record.batch_items):
            return  # neither judged nor kept: its noise is not the window's
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = self.window_type(WINDOW)
            self._lrs[key] = deque(maxlen=WINDOW)
        self._lrs[key].append(record.lr)
        firsts = self._firsts.setdefault(key, [])
        if len(firsts) < START and math.isfinite(value):
            firsts.append(value)
        if len(window) >= MIN_HISTORY:
            start_level = self._start_levels.get(key)
            if start_level is None:
                start_level = self._start_levels[key] = max(median(firsts), window.baseline()[0], key=abs)
            if window.within_ratio(value, self.min_ratio):
                window.add(value)  # not an outlier whatever the median is: skip the sorts
                return
            centre, sigma = window.baseline()
            if (upward_outlier(value, centre, sigma, self.min_sigmas, self.min_ratio)
                    and value - centre > self.min_share_of_start * abs(start_level)):
                noisy = self._noisy(key, record.step, value)  # every outlier counts, reported or not
                largest = max(window.values)
                # twice the window's largest value, or `min_ratio` times when it is an outlier itself
                factor = self.min_ratio if largest >= self.min_ratio * centre else self.min_ratio_to_window_max
                if (not noisy and value > factor * largest and self._above_recent(window, value)
                        and self._beyond_tail(window, value)):
                    self._report(record, sink, value, centre, sigma, len(window))
        window.add(value)

    def _follow_recovery(self, key: int | None, step: int, value: float) -> None:
        """The spike's event says at which step the series came back: the first of STAY_BACK
        values in a row under BACK times the median it stood above (a NaN is not back)."""
        event, back, steps = self._unrecovered[key]
        if not value < back:
            steps.clear()
            return
        steps.append(step)
        if len(steps) == STAY_BACK:
            event.extra["recovered_step"] = steps[0]
            del self._unrecovered[key]

    def _above_recent(self, window: RollingWindow, value: float) -> bool:
        """Whether `value` stands far above the latest few values too (not the next
        value of a series trending up)."""
        recent = median(list(window.values)[-RECENT:])
        return recent <= 0 or value > self.min_ratio_to_recent * recent

    def _beyond_tail(self, window: RollingWindow, value: float) -> bool:
        """Whether `value` lies beyond where the window's own upper tail reaches at odds of
        1 in 10,000 (`tail_reach`): a heavy-tailed series is noisy from its first steps on,
        and its first outlier is as much its noise as the later ones. Or, as for a series
        found noisy, BEYOND_LARGEST times the window's largest value (a series trending up
        spreads its window as widely as a heavy tail: a batch far above all of it is a spike;
        a heavy-tailed loss's healthy outlier can be 7 times the largest of the 50 before it)."""
        reach = tail_reach(list(window.values))
        return reach is None or value > reach or value > BEYOND_LARGEST * max(window.values)

    def _follow_groups(self, key: int | None, groups: int | None) -> bool:
        """Whether a parameter group was added to the optimizer since its last step."""
        if groups is None:
            return False
        before = self._groups.get(key)
        self._groups[key] = groups
        return before is not None and groups > before

    def _short_batch(self, key: int | None, items: int | None) -> bool:
        """Whether the step was given fewer than SHORT_BATCH times the usual number of
        items (the median of the latest steps'): an epoch's last, partial batch."""
        if items is None:
            return False
        sizes = self._batch_sizes.get(key)
        if sizes is None:
            sizes = self._batch_sizes[key] = deque(maxlen=WINDOW)
        largest = self._largest_batch.get(key, 0)
        short = items < SHORT_BATCH * largest and items < SHORT_BATCH * median(list(sizes))
        sizes.append(items)
        if items > largest:
            self._largest_batch[key] = items
        return short

    def _noisy(self, key: int | None, step: int, value: float) -> bool:
        """Count this outlier; whether the series is one whose outliers are its noise
        (heavy-tailed per-sample losses): NOISY_CANDIDATES of them came within
        NOISE_HORIZON steps once, and this one is not `min_ratio` times the largest."""
        earlier = self._candidates.setdefault(key, deque(maxlen=NOISY_CANDIDATES))
        if len(earlier) == NOISY_CANDIDATES and step - earlier[0][0] <= NOISE_HORIZON:
            self._noise_levels.setdefault(key, max(seen for _, seen in earlier))
        level = self._noise_levels.get(key)
        noisy = level is not None and value <= self.min_ratio * level
        earlier.append((step, value))
        if level is not None:
            self._noise_levels[key] = max(level, value)
        return noisy

    def _report(self, record: StepRecord, sink: Sink, value: float, centre: float, sigma: float,
                history: int) -> None:
        self.spikes += 1
        if self.last_spike_step is not None and record.step - self.last_spike_step < REPEAT_GAP:
            return
        self.last_spike_step = record.step
        # a ratio to a median at or below zero (a WGAN critic's loss) means nothing: the distance then
        how = (f"{format_number(value / centre)} times its median" if centre > 0
               else f"{format_number(value - centre)} above its median")
        whose = f" of {optimizer_words(record, sink)}" if len(self._windows) > 1 else ""
        rates = self._lrs.get(record.optimizer_id, ())
        lr_from, lr_to = next((rate for rate in rates if rate is not None), None), record.lr
        rose = lr_from is not None and lr_to is not None and lr_from > 0 and lr_to >= LR_RISE * lr_from
        cause = (f", while the learning rate rose from {format_number(lr_from)} to {format_number(lr_to)} "
                 "over those steps (param_groups[0]['lr'])" if rose else "")
        event = sink.emit(self.kind, record.step,
                          f"{self.what} {value:.4g} is {how} {centre:.4g} over the last {history} steps{whose}{cause}",
                          where=next((site for site in record.loss_sites if site), None), value=value,
                          extra={"baseline": centre, "sigma": sigma, **({"lr": [lr_from, lr_to]} if rose else {})})
        if event is not None and centre > 0:
            self._unrecovered[record.optimizer_id] = (event, BACK * centre, [])


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
    min_ratio_to_recent = 5.0

    def value_of(self, record: StepRecord) -> float | None:
        return record.grad_norm
