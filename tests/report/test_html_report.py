import re
import time
from html.parser import HTMLParser

from sample_reports import HOSTILE, make_merged, make_report

from sanitizer.report.html_report import MAX_ROWS, render_html
from sanitizer.report.svg_chart import LEFT, RIGHT, WIDTH


class Page(HTMLParser):
    """Elements with their attributes, and the text inside each <title>."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.titles: list[str] = []
        self.text: list[str] = []
        self._in_title = False
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "title":
            self._in_title = True
            self.titles.append("")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.titles[-1] += data

    def find(self, tag: str, css_class: str | None = None) -> list[dict]:
        return [
            attrs for name, attrs in self.elements
            if name == tag and (css_class is None or css_class in (attrs.get("class") or "").split())
        ]


def test_one_svg_chart_per_series_with_axis_labels_and_ticks():
    page = Page(render_html(make_report(steps=1200)))
    charts = page.find("svg", "chart")
    assert len(charts) == 4
    assert all(chart["viewbox"].startswith("0 0 ") for chart in charts)
    labels = "".join(page.text)
    for label in ("optimizer step", "loss", "gradient norm (L2)", "loss scale (log2 axis)", "memory (GiB)"):
        assert label in labels
    assert len(page.find("path", "series")) == 5  # train and eval loss, grad norm, scale, memory
    assert len(page.find("text")) > 40  # tick labels and axis labels


def test_each_stepped_event_has_one_marker_linked_to_its_row():
    report = make_report(steps=1200)
    page = Page(render_html(report))
    markers = page.find("g", "marker")
    stepped = [e for e in report["events"] if e["step"] is not None]
    assert sorted((m["data-kind"], m["data-step"]) for m in markers) == sorted(
        (e["kind"], str(e["step"])) for e in stepped
    )
    error = page.find("g", "error")
    assert [m["data-kind"] for m in error] == ["nonfinite_loss"]
    row_ids = {attrs["id"] for attrs in page.find("tr") if "id" in attrs}
    links = [attrs["href"] for attrs in page.find("a")]
    assert len(links) == len(stepped) and {link[1:] for link in links} <= row_ids
    assert len(row_ids) == len(report["events"])  # the stepless event is in the table too


def test_marker_hover_text_has_kind_and_message():
    page = Page(render_html(make_report(steps=1200)))
    hover = [title for title in page.titles if "grad_spike" in title]
    assert hover == ["step 480: warning grad_spike\ngradient norm 40x its running median"]
    nan_hover = next(title for title in page.titles if "nonfinite_loss" in title)
    assert HOSTILE in nan_hover and "no finite value" in nan_hover


def test_hostile_text_is_escaped_and_nothing_is_loaded():
    markup = render_html(make_report(steps=300))
    assert "<script" not in markup and "<img" not in markup and "<b>" not in markup
    assert "&lt;script&gt;" in markup
    page = Page(markup)
    assert HOSTILE in "".join(page.text)
    for tag, attrs in page.elements:
        assert tag not in ("script", "link", "img", "iframe", "object", "embed")
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert not re.match(r"\s*(https?:)?//", value or ""), (tag, name, value)
    assert "url(http" not in markup and "@import" not in markup
    policy = page.find("meta")[1]
    assert policy["http-equiv"] == "Content-Security-Policy" and "default-src 'none'" in policy["content"]


def test_twenty_thousand_steps_render_small_and_fast():
    report = make_report(steps=20_000)
    started = time.perf_counter()
    markup = render_html(report)
    elapsed = time.perf_counter() - started
    assert len(markup.encode()) < 3_000_000
    assert elapsed < 5.0, f"rendering took {elapsed:.2f} s"
    page = Page(markup)
    train = next(p for p in page.find("path", "series") if p["data-label"] == "train")
    assert train["d"].count("L") < 2_000  # downsampled from 19,000 points
    points = [tuple(map(float, xy.split())) for xy in re.findall(r"[ML]([\d.]+ [\d.]+)", train["d"])]
    highest_x = min(points, key=lambda point: point[1])[0]
    spike_x = LEFT + (8000 - 1) / (20_000 - 1) * (WIDTH - LEFT - RIGHT)
    assert abs(highest_x - spike_x) < 0.2  # the one-step loss spike at step 8000 survives


def test_each_rank_gets_its_own_line_in_a_merged_report():
    page = Page(render_html(make_merged(world_size=3, steps=200)))
    labels = [p["data-label"] for p in page.find("path", "series")]
    for rank in range(3):
        assert f"rank {rank} train" in labels and f"rank {rank} eval" in labels
        assert f"rank {rank}" in labels  # grad norm, scale and memory: one line per rank
    assert len(page.find("g", "marker")) == 3 * 4
    assert any(attrs.get("id") == "ev-14" for attrs in page.find("tr"))
    assert "Rank" in "".join(page.text)


def test_reports_without_series_or_fields_still_render():
    page = Page(render_html({"events": [{"kind": "tensor_leak", "step": None}]}))
    assert page.find("svg") == []
    assert "The report holds no series to plot." in "".join(page.text)
    assert len(page.find("tr")) == 2


def test_extra_series_and_fields_are_shown():
    report = {"series": {"step": [1, 2, 3], "train_loss": [3, "nan", 1], "lr": [0.1, 0.05, 0.01],
                         "eval_step": [3], "eval_loss": [2.0]},
              "events": [{"kind": "overfitting", "severity": "warning", "step": 3, "baseline": 1.5}]}
    page = Page(render_html(report))
    assert [p["data-label"] for p in page.find("path", "series")] == ["train", "eval", "lr"]
    assert "baseline: 1.5" in "".join(page.text)
    marker = page.find("g", "marker")[0]
    assert page.find("g", "marker") and marker["data-kind"] == "overfitting"


def test_the_table_is_capped_for_huge_event_lists():
    events = [{"kind": "grad_spike", "severity": "warning", "step": i % 100 + 1} for i in range(MAX_ROWS + 50)]
    report = {"series": {"step": list(range(1, 101)), "grad_norm": [1.0] * 100}, "events": events}
    page = Page(render_html(report))
    assert len(page.find("tr")) == MAX_ROWS + 1
    assert f"Showing the first {MAX_ROWS} of {MAX_ROWS + 50} events" in "".join(page.text)
    assert len(page.find("g", "marker")) <= 400


def _path_points(d: str) -> list[tuple[float, float]]:
    return [tuple(map(float, xy.split())) for xy in re.findall(r"[ML](-?[\d.]+ -?[\d.]+)", d)]


def test_markers_sit_on_the_curve_at_their_step():
    page = Page(render_html(make_report(steps=1200)))
    grad_path = next(p for p in page.find("path", "series") if p["data-label"] == "Gradient norm")
    curve = dict(_path_points(grad_path["d"]))
    hits = page.find("circle", "hit")
    kinds = [m["data-kind"] for m in page.find("g", "marker")]
    spike = hits[kinds.index("grad_spike")]
    assert curve[float(spike["cx"])] == float(spike["cy"])


def test_wide_ranges_get_a_log_axis_with_power_ticks():
    steps = list(range(1, 101))
    report = {"series": {"step": steps, "grad_norm": [1e5 if s == 50 else 0.5 for s in steps],
                         "loss_scale": [2.0**16] * 50 + [2.0**10] * 50}}
    markup = render_html(report)
    assert "gradient norm (L2) (log axis)" in markup
    assert '10<tspan dy="-0.45em" font-size="0.78em">5</tspan>' in markup
    assert '2<tspan dy="-0.45em" font-size="0.78em">16</tspan>' in markup
    assert ">0.1<" in markup and ">100<" in markup


def test_cpu_memory_sampled_every_few_steps_is_one_visible_line():
    steps = list(range(1, 101))
    memory = [4e8 + 1e6 * s if s % 5 == 0 else None for s in steps]
    page = Page(render_html({"series": {"step": steps, "loss": [1.0] * 100, "memory_bytes": memory}}))
    path = next(p for p in page.find("path", "series") if p["data-label"] == "Memory")
    assert path["d"].count("M") == 1 and path["d"].count("L") == 19


def test_gradient_norms_near_one_get_distinct_tick_labels():
    steps = list(range(1, 41))
    page = Page(render_html({"series": {"step": steps, "grad_norm": [1.0 + (-1) ** s * 4e-4 for s in steps]}}))
    labels = [text.strip() for text in page.text if re.fullmatch(r"\s*[0-9.]+\s*", text)]
    y_labels = [label for label in labels if "." in label or label == "1"]
    assert "1" in y_labels and len(set(y_labels)) == len(y_labels) >= 3


def test_event_values_are_formatted_numbers():
    event = {"kind": "grad_spike", "severity": "warning", "step": 3, "message": "m",
             "value": 2.2583816676799147e29, "baseline": 0.123456789}
    markup = render_html({"series": {"step": [1, 2, 3], "grad_norm": [1.0, 1.0, 2.0]}, "events": [event]})
    assert ">2.26e+29<" in markup and "baseline: 0.123<" in markup
    assert "2.2583816676799147" not in markup


def test_lint_findings_and_the_events_they_explain_are_shown():
    finding = {"path": "train.py", "line": 31, "column": 5, "code": "TL101", "name": "clip-before-unscale",
               "message": "gradients are clipped while still multiplied by the loss scale"}
    event = {"kind": "scale_collapse", "severity": "error", "step": 12, "message": "scale fell",
             "related": [finding]}
    page = Page(render_html({"series": {"step": [1, 12], "loss_scale": [1024.0, 0.5]}, "events": [event],
                             "lint": [finding]}))
    text = "".join(page.text)
    assert "scale_collapse at step 12 — train.py:31 clip before unscale (TL101)" in text
    assert "Lint findings in the script" in text and "train.py:31 TL101" in text
