"""Small robust statistics used by the detectors (host side, plain floats)."""
from __future__ import annotations

import math
from collections import deque

MAD_TO_SIGMA = 1.4826  # makes the MAD comparable to a standard deviation for normal data
TAIL_ODDS = 1e-4  # how rare a value `tail_reach` finds beyond the values' own tail


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


class RollingWindow:
    """The last `size` finite values, with their median and MAD."""

    def __init__(self, size: int) -> None:
        self.values: deque[float] = deque(maxlen=size)

    def add(self, value: float) -> None:
        if math.isfinite(value):
            self.values.append(value)

    def __len__(self) -> int:
        return len(self.values)

    def within_ratio(self, value: float, ratio: float) -> bool:
        """Whether `value` is at most `ratio` times the smallest value kept, all of them
        positive: then it is at most `ratio` times the median too, so it cannot be an
        `upward_outlier` with that `min_ratio`. A cheap test before `baseline()`."""
        low = min(self.values, default=0.0)
        return low > 0 and value <= ratio * low

    def baseline(self) -> tuple[float, float]:
        """(median, MAD scaled to a standard deviation)."""
        values = list(self.values)
        centre = median(values)
        spread = median([abs(value - centre) for value in values])
        return centre, spread * MAD_TO_SIGMA


def tail_reach(values: list[float], odds: float = TAIL_ODDS) -> float | None:
    """How high the values' own upper tail reaches at `odds` per value: the tail drawn as a
    power law through the median (half the values above it) and the 90th percentile (a
    tenth above it), continued to `odds`. A series without spread reaches its median, a
    smooth one little more (90th percentile 1.1 times the median: 1.7 times), a
    heavy-tailed one far further (90th percentile 3 times the median, as the gradient
    norms of a regression on x**4 features in batches of 8 give: 300 times). None
    when there are no values or their median is not positive (no scale to extrapolate on)."""
    ordered = sorted(values)
    centre = median(ordered) if ordered else 0.0
    if centre <= 0:
        return None
    upper = ordered[round(0.9 * (len(ordered) - 1))]
    return centre * (upper / centre) ** (math.log(0.5 / odds) / math.log(0.5 / 0.1))


def low_reach(values: list[float], odds: float = TAIL_ODDS) -> float | None:
    """How low the values' own lower tail reaches at `odds` per value: `tail_reach` mirrored,
    through the median and the 10th percentile. None as there."""
    ordered = sorted(values)
    centre = median(ordered) if ordered else 0.0
    if centre <= 0:
        return None
    lower = max(ordered[round(0.1 * (len(ordered) - 1))], 0.0)
    return centre * (lower / centre) ** (math.log(0.5 / odds) / math.log(0.5 / 0.1))


def upward_outlier(value: float, centre: float, sigma: float,
                   min_sigmas: float, min_ratio: float) -> bool:
    """True when `value` sits far above `centre`, both in robust sigmas and in ratio."""
    if not math.isfinite(value):
        return False
    margin = max(min_sigmas * sigma, (min_ratio - 1.0) * abs(centre), 1e-12)
    return value > centre + margin
