"""The HTML report as a browser draws it: headless Chromium takes a screenshot."""

import json
import shutil
import subprocess
from collections import Counter

import pytest
from sample_reports import make_report
from png_decoding import decode_png, pixels

from sanitizer.report import show

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium)"
)


def _near(color: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(color, target))


def test_the_report_renders_with_curves_and_markers(tmp_path):
    report_path = tmp_path / "report.json"
    report_path.write_text(json.dumps(make_report(steps=2000)))
    page = tmp_path / "report.html"
    assert show.main([str(report_path), "--html", str(page)]) == 0
    screenshot = tmp_path / "shot.png"
    completed = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={screenshot}",
         "--window-size=1200,1600", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert screenshot.exists(), f"no screenshot (exit {completed.returncode}): {completed.stderr[-2000:]}"
    width, height, rows, stride = decode_png(screenshot.read_bytes())
    assert (width, height) == (1200, 1600)
    colors = Counter(pixels(rows, stride))
    white, white_count = colors.most_common(1)[0]
    assert white == (255, 255, 255) and white_count < 0.95 * width * height, "page is blank"
    assert len(colors) > 50, "too few colours for text and charts"
    train_line = sum(n for color, n in colors.items() if _near(color, (0x1F, 0x5F, 0xBF)))
    error_red = sum(n for color, n in colors.items() if _near(color, (0xD6, 0x27, 0x28)))
    assert train_line > 500, "the loss curve is not drawn"
    assert error_red > 100, "the error marker and badge are not drawn"
