"""Tick positions for linear and logarithmic axes."""

from __future__ import annotations

import math

from sanitizer.report.formatting import format_number

MAX_TICKS = 7


def linear_ticks(low: float, high: float, wanted: int = 5, min_step: float = 0.0) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) within [low, high]."""
    if high <= low:
        return [low]
    raw_step = max((high - low) / max(wanted, 1), min_step)
    power = 10 ** math.floor(math.log10(raw_step))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw_step)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [_clean(i * step) for i in range(first, last + 1)]


def linear_labels(ticks: list[float]) -> list[str]:
    """Labels for evenly spaced ticks: short numbers, with as many decimals as it takes
    to tell neighbours apart (gradient norms clipped near 1 read 0.998, 1, 1.002)."""
    labels = [format_number(tick) for tick in ticks]
    if len(set(labels)) == len(labels) or len(ticks) < 2:
        return labels
    step = min(abs(b - a) for a, b in zip(ticks, ticks[1:]))
    decimals = max(0, -math.floor(math.log10(step)) + (0 if _is_power_of_ten(step) else 1))
    return [_trim(f"{tick:.{decimals}f}") for tick in ticks]


def _is_power_of_ten(value: float) -> bool:
    return math.isclose(10 ** round(math.log10(value)), value)


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def nice_range(low: float, high: float, wanted: int = 5) -> tuple[float, float]:
    """[low, high] widened outwards to the nearest round tick values."""
    if high <= low:
        pad = abs(low) * 0.1 or 1.0
        return low - pad, high + pad
    raw_step = (high - low) / wanted
    power = 10 ** math.floor(math.log10(raw_step))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw_step)
    return _clean(math.floor(low / step) * step), _clean(math.ceil(high / step) * step)


def log_range(low: float, high: float, base: int) -> tuple[float, float]:
    """Exponents bounding [low, high] on a log axis of `base` (whole exponents)."""
    low_exp = math.floor(math.log(low, base) + 1e-9)
    high_exp = math.ceil(math.log(high, base) - 1e-9)
    if high_exp <= low_exp:
        high_exp = low_exp + 1
    return float(low_exp), float(high_exp)


def log_ticks(low_exp: float, high_exp: float) -> list[float]:
    """Whole exponents between the bounds, thinned to at most MAX_TICKS."""
    exponents = list(range(int(low_exp), int(high_exp) + 1))
    stride = math.ceil(len(exponents) / MAX_TICKS)
    return [float(e) for e in exponents[::stride]]


def log_label(exponent: float, base: int) -> str:
    if base == 2:
        return f"2^{int(exponent)}"
    return format_number(10.0**exponent)


def _clean(value: float) -> float:
    """Rounds away float noise such as 0.30000000000000004."""
    return float(f"{value:.12g}")
