"""What the charts show, independent of how they are drawn (SVG or matplotlib).

A report's series become charts of lines (one per rank and series) and its
events become markers placed on the curve of the chart their kind belongs to.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from sanitizer.report.access import as_float, rank_number, rank_reports, severity_of
from sanitizer.report.downsample import Point
from sanitizer.report.formatting import byte_unit

# A chart that would hold more markers keeps the most severe ones.
MAX_MARKERS = 400
LOG_RANGE_RATIO = 1e3

EVENT_CHART = {
    "nonfinite_loss": "loss",
    "loss_spike": "loss",
    "overfitting": "loss",
    "underfitting": "loss",
    "nonfinite_grad": "grad_norm",
    "grad_spike": "grad_norm",
    "grad_underflow": "grad_norm",
    "vanishing_grad": "grad_norm",
    "scale_collapse": "loss_scale",
    "memory_growth": "memory",
    "tensor_leak": "memory",
}
LOSS_LABELS = {"loss": "train", "train_loss": "train", "eval_loss": "eval", "val_loss": "eval"}


@dataclass
class Line:
    label: str
    rank: int | None
    color_index: int
    dashed: bool
    segments: list[list[Point]]  # finite points only; a gap splits segments
    raw: list[tuple[float, float | None]]  # every point, for placing markers
    steps: list[float] = field(default_factory=list)  # the x of each raw point

    def __post_init__(self) -> None:
        self.steps = [x for x, _ in self.raw]


@dataclass
class Marker:
    step: float
    y: float | None  # None: no finite value at that step, drawn at the top edge
    severity: str
    kind: str
    message: str
    rank: int | None
    event_index: int  # position in the chronological event list


@dataclass
class Chart:
    key: str
    title: str
    y_label: str
    scale: str  # "linear", "log10" or "log2"
    divisor: float = 1.0  # values are divided by this before drawing (bytes -> MiB)
    lines: list[Line] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    hidden_markers: int = 0
    multi_rank: bool = False  # whether marker titles name their rank
    x_range: tuple[float, float] = (0.0, 1.0)


def build_charts(report: dict, events: list[dict]) -> list[Chart]:
    """Charts for every recorded series, with `events` (chronological) as markers."""
    ranks = rank_reports(report)
    charts = [chart for chart in _all_charts(ranks) if _has_data(chart)]
    _place_markers(charts, events)
    x_range = _x_range(charts)
    for chart in charts:
        chart.x_range = x_range
        chart.multi_rank = len(ranks) > 1
    return charts


def _all_charts(ranks: list[dict]) -> list[Chart]:
    multi = len(ranks) > 1
    charts = {
        "loss": Chart("loss", "Loss", "loss", "linear"),
        "grad_norm": Chart("grad_norm", "Gradient norm", "gradient norm (L2)", "linear"),
        "loss_scale": Chart("loss_scale", "Loss scale", "loss scale (log2 axis)", "log2"),
        "memory": Chart("memory", "Memory", "memory", "linear"),
    }
    for position, rank_report in enumerate(ranks):
        series = rank_report.get("series")
        if not isinstance(series, dict):
            continue
        rank = rank_number(rank_report)
        for key in series:
            chart_key = _chart_key(key)
            if chart_key is None or not isinstance(series[key], list):
                continue
            if chart_key not in charts:
                charts[chart_key] = Chart(chart_key, key.replace("_", " "), key, "linear")
            chart = charts[chart_key]
            label = LOSS_LABELS.get(key, key) if chart_key == "loss" else _series_label(key)
            color = position if multi else len(chart.lines)
            if multi:
                label = f"rank {rank if rank is not None else position}" + (f" {label}" if label else "")
            points = _series_points(series, key)
            if chart_key == "memory":  # sampled every few steps on CPU: a missing value is no gap
                points = [point for point in points if point[1] is not None]
            chart.lines.append(Line(label, rank, color, _is_dashed(key), _segments(points), points))
    for chart in charts.values():
        _choose_scale(chart)
    return list(charts.values())


def _chart_key(key: str) -> str | None:
    if key == "step" or key.endswith(("_step", "_steps")):
        return None
    if key == "loss_scale":
        return "loss_scale"
    if key == "loss" or key.endswith("_loss"):
        return "loss"
    if key == "memory_bytes" or key.endswith("_bytes"):
        return "memory"
    return key


def _series_label(key: str) -> str:
    return "" if key in ("grad_norm", "loss_scale", "memory_bytes") else key


def _is_dashed(key: str) -> bool:
    return key.startswith(("eval", "val"))


def _series_points(series: dict, key: str) -> list[tuple[float, float | None]]:
    """(step, value) pairs; `eval_loss` uses `eval_step` as its x when present."""
    values = series[key]
    own_steps = series.get(f"{key.rsplit('_', 1)[0]}_step") if "_" in key else None
    steps = own_steps if isinstance(own_steps, list) else series.get("step")
    if not isinstance(steps, list):
        steps = list(range(1, len(values) + 1))
    points = []
    for step, value in zip(steps, values):
        x = as_float(step)
        if x is not None and math.isfinite(x):
            points.append((x, as_float(value)))
    points.sort(key=lambda point: point[0])
    return points


def _segments(points: list[tuple[float, float | None]]) -> list[list[Point]]:
    segments: list[list[Point]] = [[]]
    for x, y in points:
        if y is None or not math.isfinite(y):
            if segments[-1]:
                segments.append([])
        else:
            segments[-1].append((x, y))
    return [segment for segment in segments if segment]


def _finite_values(chart: Chart) -> list[float]:
    return [y for line in chart.lines for segment in line.segments for _, y in segment]


def _has_data(chart: Chart) -> bool:
    return bool(_finite_values(chart))


def _choose_scale(chart: Chart) -> None:
    values = _finite_values(chart)
    if not values:
        return
    positive = min(values) > 0
    if chart.key == "memory":
        unit, chart.divisor = byte_unit(max(abs(v) for v in values))
        chart.y_label = f"memory ({unit})"
    elif chart.scale == "log2" and not positive:
        chart.scale, chart.y_label = "linear", "loss scale"
    elif chart.scale == "linear" and positive and max(values) / min(values) > LOG_RANGE_RATIO:
        chart.scale = "log10"
        chart.y_label += " (log axis)"


def _place_markers(charts: list[Chart], events: list[dict]) -> None:
    if not charts:
        return
    by_key = {chart.key: chart for chart in charts}
    for index, event in enumerate(events):
        step = as_float(event.get("step"))
        if step is None or not math.isfinite(step):
            continue
        kind = str(event.get("kind", "unknown"))
        chart = by_key.get(EVENT_CHART.get(kind, "loss"), charts[0])
        rank = event.get("rank") if isinstance(event.get("rank"), int) else None
        line = _line_for(chart, rank, prefer_eval=kind == "overfitting")
        y = _value_at(line, step) if line else None
        if y is not None and chart.scale != "linear" and y <= 0:
            y = None
        message = str(event.get("message") or "")
        chart.markers.append(Marker(step, y, severity_of(event), kind, message, rank, index))
    for chart in charts:
        _limit_markers(chart)


def _line_for(chart: Chart, rank: int | None, prefer_eval: bool) -> Line | None:
    candidates = [line for line in chart.lines if rank is None or line.rank in (rank, None)]
    candidates = candidates or chart.lines
    if prefer_eval:
        candidates = [line for line in candidates if line.dashed] or candidates
    return candidates[0] if candidates else None


def _value_at(line: Line, step: float) -> float | None:
    """The line's value at the recorded step nearest `step`, None if not finite."""
    xs = line.steps
    if not xs:
        return None
    position = bisect.bisect_left(xs, step)
    nearest = min(
        (i for i in (position - 1, position) if 0 <= i < len(xs)), key=lambda i: abs(xs[i] - step)
    )
    y = line.raw[nearest][1]
    return y if y is not None and math.isfinite(y) else None


def _limit_markers(chart: Chart) -> None:
    if len(chart.markers) <= MAX_MARKERS:
        return
    order = {"error": 0, "warning": 1}
    kept = sorted(chart.markers, key=lambda m: (order.get(m.severity, 2), m.event_index))
    chart.hidden_markers = len(chart.markers) - MAX_MARKERS
    chart.markers = sorted(kept[:MAX_MARKERS], key=lambda m: m.event_index)


def _x_range(charts: list[Chart]) -> tuple[float, float]:
    xs = [x for chart in charts for line in chart.lines for x, _ in line.raw]
    xs += [marker.step for chart in charts for marker in chart.markers]
    if not xs:
        return (0.0, 1.0)
    low, high = min(xs), max(xs)
    return (low, high) if high > low else (low - 1, high + 1)


LINE_COLORS = ("#1f5fbf", "#0f8b8d", "#7b4fb0", "#4b5b6b", "#2e8b3e", "#b5549b", "#8c6d31", "#3d3d9e")
SEVERITY_COLORS = {"error": "#d62728", "warning": "#e08a00", "info": "#6b7280"}


def line_color(line: Line) -> str:
    return LINE_COLORS[line.color_index % len(LINE_COLORS)]


def severity_color(severity: str) -> str:
    return SEVERITY_COLORS.get(severity, SEVERITY_COLORS["info"])
