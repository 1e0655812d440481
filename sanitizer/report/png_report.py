"""The report's charts as one PNG, drawn with matplotlib when it is installed."""

from __future__ import annotations

import importlib.util
import io
from typing import TYPE_CHECKING

from sanitizer.report.access import events_of, field, sorted_events
from sanitizer.report.chart_model import Chart, build_charts, line_color, severity_color
from sanitizer.report.downsample import downsample_segments

if TYPE_CHECKING:
    from matplotlib.axes import Axes

BUCKETS = 800
MARKER_SHAPES = {"error": "o", "warning": "^"}
ERROR_RULES_UP_TO = 20


def matplotlib_available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def render_png(report: dict) -> bytes:
    """PNG bytes with one panel per chart, sharing the step axis."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    charts = build_charts(report, sorted_events(events_of(report)))
    figure = Figure(figsize=(10, 0.9 + 2.6 * max(len(charts), 1)), dpi=110, layout="constrained")
    figure.suptitle(f"{field(report, 'script') or 'training run'}: sanitizer report", fontweight="bold")
    if not charts:
        figure.text(0.5, 0.5, "The report holds no series to plot.", ha="center")
    else:
        axes = figure.subplots(len(charts), 1, sharex=True, squeeze=False)[:, 0]
        for axis, chart in zip(axes, charts):
            _draw_chart(axis, chart)
        axes[-1].set_xlabel("optimizer step")
    buffer = io.BytesIO()
    FigureCanvasAgg(figure).print_png(buffer)
    return buffer.getvalue()


def _draw_chart(axis: Axes, chart: Chart) -> None:
    for line in chart.lines:
        style = "--" if line.dashed else "-"
        for number, segment in enumerate(downsample_segments(line.segments, BUCKETS)):
            xs = [x for x, _ in segment]
            ys = [y / chart.divisor for _, y in segment]
            label = line.label if number == 0 and line.label else None
            axis.plot(xs, ys, style, color=line_color(line), linewidth=1.4, label=label,
                      marker="." if len(segment) == 1 else None)
    if chart.scale == "log10":
        axis.set_yscale("log")
    elif chart.scale == "log2":
        axis.set_yscale("log", base=2)
    axis.set_title(chart.title, loc="left", fontsize=11, fontweight="bold")
    axis.set_ylabel(chart.y_label)
    axis.grid(True, color="#e6e8ec", linewidth=0.8)
    _draw_markers(axis, chart)
    if any(line.label for line in chart.lines):
        axis.legend(loc="best", fontsize=8, frameon=False)


def _draw_markers(axis: Axes, chart: Chart) -> None:
    top = axis.get_ylim()[1]
    errors = [marker for marker in chart.markers if marker.severity == "error"]
    if len(errors) <= ERROR_RULES_UP_TO:
        for marker in errors:
            axis.axvline(marker.step, color=severity_color("error"), linewidth=0.8, linestyle=":")
    for marker in chart.markers:
        on_curve = marker.y is not None
        axis.plot(
            marker.step,
            marker.y / chart.divisor if on_curve else top,
            MARKER_SHAPES.get(marker.severity, "s") if on_curve else "v",
            color=severity_color(marker.severity),
            markeredgecolor="white",
            markersize=7,
            clip_on=False,
        )
    axis.set_ylim(top=top)
