"""One chart as an inline SVG string: axes, ticks, labels, lines and event markers."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from sanitizer.report.axis_ticks import linear_labels, linear_ticks, log_label, log_range, log_ticks, nice_range
from sanitizer.report.chart_model import Chart, Line, Marker, line_color, severity_color
from sanitizer.report.downsample import downsample_segments
from sanitizer.report.formatting import format_step

WIDTH, HEIGHT = 960, 250
LEFT, RIGHT, TOP, BOTTOM = 74, 18, 14, 46
BUCKETS = 480  # per line: about one bucket per two pixels of plot width
ERROR_RULES_UP_TO = 20  # error markers also get a vertical rule when this few

Transform = Callable[[float], "float | None"]
XTransform = Callable[[float], float]
EventHref = Callable[[int], "str | None"]


def render_chart(chart: Chart, chart_id: str, event_href: EventHref) -> str:
    """An <svg> element for `chart`; markers link to `event_href(index)` when given."""
    to_y, y_ticks = _y_axis(chart)
    to_x = _x_axis(chart.x_range)
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(chart.title)} over optimizer steps">',
        f'<clipPath id="{chart_id}-plot"><rect x="{LEFT}" y="{TOP - 6}" '
        f'width="{WIDTH - LEFT - RIGHT + 6}" height="{HEIGHT - TOP - BOTTOM + 12}"/></clipPath>',
        _grid_and_ticks(chart, to_x, y_ticks),
        f'<g class="lines" clip-path="url(#{chart_id}-plot)">',
        *(_line_path(line, to_x, to_y, chart.title) for line in chart.lines),
        "</g>",
        _markers(chart, to_x, to_y, event_href),
        "</svg>",
    ]
    return "\n".join(parts)


def _x_axis(x_range: tuple[float, float]) -> XTransform:
    low, high = x_range
    span = WIDTH - LEFT - RIGHT
    return lambda x: LEFT + (x - low) / (high - low) * span


def _y_axis(chart: Chart) -> tuple[Transform, list[tuple[float, str]]]:
    """Pixel mapping for values, and the ticks as (pixel y, label markup)."""
    values = [y / chart.divisor for line in chart.lines for seg in line.segments for _, y in seg]
    top, bottom = TOP, HEIGHT - BOTTOM
    if chart.scale == "linear":
        low, high = min(values), max(values)
        if chart.key == "memory":
            low = min(low, 0.0)
        low, high = nice_range(low, high)
        scale = (bottom - top) / (high - low)

        def to_y(value: float) -> float | None:
            return bottom - (value / chart.divisor - low) * scale

        values = linear_ticks(low, high)
        ticks = [(to_y(t * chart.divisor), escape(label)) for t, label in zip(values, linear_labels(values))]
        return to_y, ticks
    base = 2 if chart.scale == "log2" else 10
    positive = [v for v in values if v > 0]
    low_exp, high_exp = log_range(min(positive), max(positive), base)
    scale = (bottom - top) / (high_exp - low_exp)

    def to_log_y(value: float) -> float | None:
        if value <= 0:
            return None
        return bottom - (math.log(value / chart.divisor, base) - low_exp) * scale

    ticks = [(bottom - (e - low_exp) * scale, _log_tick(e, base)) for e in log_ticks(low_exp, high_exp)]
    return to_log_y, ticks


def _log_tick(exponent: float, base: int) -> str:
    """Tick label markup: the base with a superscript exponent; 0.01 to 1000 plainly."""
    if base == 10 and -2 <= exponent <= 3:
        return escape(log_label(exponent, base))
    return f'{base}<tspan dy="-0.45em" font-size="0.78em">{int(exponent)}</tspan>'



def _grid_and_ticks(chart: Chart, to_x: XTransform, y_ticks: list[tuple[float, str]]) -> str:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    parts = ['<g class="grid">']
    parts += [f'<line x1="{LEFT}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>' for y, _ in y_ticks]
    x_ticks = linear_ticks(*chart.x_range, wanted=8, min_step=1.0)
    parts += [
        f'<line x1="{to_x(t):.1f}" x2="{to_x(t):.1f}" y1="{TOP}" y2="{bottom}"/>' for t in x_ticks
    ]
    parts.append("</g>")
    parts.append(f'<path class="axis" d="M{LEFT} {TOP}V{bottom}H{right}"/>')
    parts.append('<g class="tick-labels">')
    parts += [
        f'<text x="{LEFT - 8}" y="{y:.1f}" dy="0.32em" text-anchor="end">{label}</text>'
        for y, label in y_ticks
    ]
    parts += [
        f'<text x="{to_x(t):.1f}" y="{bottom + 18}" text-anchor="middle">{format_step(t)}</text>'
        for t in x_ticks
    ]
    parts.append("</g>")
    middle_x, middle_y = (LEFT + right) / 2, (TOP + bottom) / 2
    parts.append(
        f'<text class="axis-label" x="{middle_x:.0f}" y="{HEIGHT - 6}" '
        f'text-anchor="middle">optimizer step</text>'
    )
    parts.append(
        f'<text class="axis-label" transform="translate(16 {middle_y:.0f}) rotate(-90)" '
        f'text-anchor="middle">{escape(chart.y_label)}</text>'
    )
    return "\n".join(parts)


def _line_path(line: Line, to_x: XTransform, to_y: Transform, chart_title: str) -> str:
    commands = []
    for segment in downsample_segments(line.segments, BUCKETS):
        pen_up = True
        for x, y in segment:
            py = to_y(y)
            if py is None:
                pen_up = True
                continue
            commands.append(f"{'M' if pen_up else 'L'}{to_x(x):.1f} {py:.1f}")
            pen_up = False
        if len(segment) == 1:
            commands.append("h0")  # a lone point: drawn as a dot by the round line cap
    dash = ' stroke-dasharray="6 4"' if line.dashed else ""
    label = escape(line.label or chart_title)
    return (
        f'<path class="series" data-label="{label}" stroke="{line_color(line)}"{dash} '
        f'd="{"".join(commands)}"><title>{label}</title></path>'
    )


def _markers(chart: Chart, to_x: XTransform, to_y: Transform, event_href: EventHref) -> str:
    errors = sum(1 for marker in chart.markers if marker.severity == "error")
    parts = ['<g class="events">']
    for marker in chart.markers:
        with_rule = marker.severity == "error" and errors <= ERROR_RULES_UP_TO
        shape = _marker_shape(marker, to_x, to_y, with_rule, chart.multi_rank)
        href = event_href(marker.event_index)
        parts.append(f'<a href="{escape(href)}">{shape}</a>' if href else shape)
    parts.append("</g>")
    return "\n".join(parts)


def _marker_shape(
    marker: Marker, to_x: XTransform, to_y: Transform, with_rule: bool, show_rank: bool
) -> str:
    x = to_x(marker.step)
    y = to_y(marker.y) if marker.y is not None else None
    off_curve = y is None
    y = TOP if y is None else min(max(y, TOP), HEIGHT - BOTTOM)
    color = severity_color(marker.severity)
    title = _marker_title(marker, off_curve, show_rank)
    rule = (
        f'<line class="event-rule" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" '
        f'stroke="{color}"/>'
        if with_rule
        else ""
    )
    return (
        f'<g class="marker {escape(marker.severity)}" data-kind="{escape(marker.kind)}" '
        f'data-step="{marker.step:g}"><title>{escape(title)}</title>{rule}'
        f'<circle class="hit" cx="{x:.1f}" cy="{y:.1f}" r="10"/>'
        f"{_glyph(marker.severity, x, y, color, off_curve)}</g>"
    )


def _glyph(severity: str, x: float, y: float, color: str, off_curve: bool) -> str:
    """Circle for errors, triangle for warnings, square otherwise; a downward
    arrow at the top edge when the curve has no finite value there."""
    style = f'fill="{color}" stroke="#fff" stroke-width="1.5"'
    if off_curve:
        return f'<path d="M{x - 6:.1f} {y - 4:.1f}h12l-6 10z" {style}/>'
    if severity == "error":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5.5" {style}/>'
    if severity == "warning":
        return f'<path d="M{x:.1f} {y - 6.5:.1f}l6 10.5h-12z" {style}/>'
    return f'<rect x="{x - 4.5:.1f}" y="{y - 4.5:.1f}" width="9" height="9" {style}/>'


def _marker_title(marker: Marker, off_curve: bool, show_rank: bool) -> str:
    head = f"step {marker.step:g}"
    if show_rank and marker.rank is not None:
        head += f", rank {marker.rank}"
    lines = [f"{head}: {marker.severity} {marker.kind}"]
    if marker.message:
        lines.append(marker.message)
    if off_curve:
        lines.append("(no finite value on this curve at that step)")
    return "\n".join(lines)
