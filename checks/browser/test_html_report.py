"""The HTML report (`run --html FILE`) in Chromium: one self-contained file that opens offline.

A short max-warp run of the demo fleet (its fault timeline included) writes the report; the page
is opened from the file with every network request refused, and must load with no console error,
make no request, and draw its four charts (each canvas marked and holding coloured pixels).

BEEKON_FLEET_BIN   the beekon-fleet binary (default .build/debug/beekon-fleet)
"""
import os
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("BEEKON_FLEET_BIN", str(ROOT / ".build/debug/beekon-fleet"))
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    work = tmp_path_factory.mktemp("html-report")
    path = work / "run.html"
    run = subprocess.run(
        [BINARY, "run", str(ROOT / "fleets/demo.yaml"), "--warp", "max", "--for", "2h", "--admin", "off",
         "--data", str(work / "data"), "--html", str(path)],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"written: {path}" in run.stdout
    return path


def test_the_html_report_opens_offline_with_its_charts_drawn(report):
    exe = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors, requests = [], []
        page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))

        def refuse(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                requests.append(route.request.url)
                route.abort()

        page.route("**/*", refuse)
        page.goto(report.as_uri())
        page.wait_for_function("document.querySelectorAll('canvas[data-drawn]').length === 4", timeout=15_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "html-report.png"), full_page=True)
        drawn = page.evaluate("""() => [...document.querySelectorAll('canvas')].map(c => {
            const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let coloured = 0;
            for (let i = 0; i < data.length; i += 4) {
                const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
                if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
            }
            return {id: c.id, rows: Number(c.dataset.drawn), coloured};
        })""")
        text = page.inner_text("body")
        bands = page.evaluate("JSON.parse(document.getElementById('report-data').textContent).bands")
        browser.close()
    assert errors == [], errors
    assert requests == [], f"the report asked the network for {requests}"
    assert [d["id"] for d in drawn] == ["chart-uploads", "chart-latency", "chart-pending", "chart-age"]
    for chart in drawn:
        # Two hours in 10 s rows, and lines (not just grey axes) drawn.
        assert chart["rows"] >= 700, chart
        assert chart["coloured"] > 500, chart
    assert "Passed" in text and "Where the fixes went" in text
    # The demo's fault timeline is shaded on the charts, each band named by its action.
    assert {band["label"].split(" ")[0] for band in bands} >= {"networkOffline", "revokePermission"}, bands
