"""Human-readable numbers, durations and byte sizes shared by the text and HTML views."""

from __future__ import annotations

import math

_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def format_number(value: float) -> str:
    """Three significant digits, no trailing zeros, exponent only when needed."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e5:
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    mantissa, exponent = f"{value:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent):+d}"


def format_step(step: float) -> str:
    """Compact step counts for axis ticks: 500, 1.5k, 12k, 1.5M."""
    if abs(step) >= 1e6:
        return f"{step / 1e6:g}M"
    if abs(step) >= 1e3:
        return f"{step / 1e3:g}k"
    return f"{step:g}"


def format_duration(seconds: float | None) -> str:
    """`81.2` -> `1 m 21 s`; unknown durations read `?`."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} m {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} m"


def byte_unit(largest: float) -> tuple[str, float]:
    """The unit a byte axis whose largest value is `largest` should use, and its size."""
    power = 0
    while power + 1 < len(_BYTE_UNITS) and largest >= 1024 ** (power + 1):
        power += 1
    return _BYTE_UNITS[power], float(1024**power)


def format_bytes(value: float) -> str:
    unit, size = byte_unit(abs(value))
    return f"{value / size:.3g} {unit}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def no_problems_line(steps: object, child_errors: int = 0, child_origin: object = None) -> str:
    """The verdict of a run with no problem of its own; its watched child processes
    (`mp.spawn`) may have found some in their own reports, and name the child where
    values first went non-finite (`summary.child_origin`, see core.children)."""
    found = f"no problems found in {plural(steps, 'step')}" if isinstance(steps, int) else "no problems found"
    if child_errors:
        first = (f", first non-finite in child process {child_origin.get('child')} ({child_origin.get('kind')} "
                 f"at step {child_origin.get('step')})" if isinstance(child_origin, dict) else "")
        found += (f" of this process; its watched child processes found "
                  f"{plural(child_errors, 'error event')}{first}: see their reports (notes)")
    return found
