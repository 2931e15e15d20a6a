"""The HTML report (`run --html FILE`) in Chromium: one self-contained file that opens offline.

A short max-warp run of the demo fleet (its fault timeline included) writes the report; the page
is opened from the file with every network request refused, and must load with no console error,
make no request, and draw its four charts (each canvas marked and holding coloured pixels).
The comparison page (`report compare --html FILE`) of two runs, one report at a path of markup,
must do the same with both runs' lines in each of its six charts, name each run's file, and run
none of the path.

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
        page.wait_for_function("document.querySelectorAll('canvas[data-drawn]').length === 5", timeout=15_000)
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
    assert [d["id"] for d in drawn] == [
        "chart-uploads", "chart-latency", "chart-server-latency", "chart-pending", "chart-age"]
    for chart in drawn:
        # Two hours in 10 s rows, and lines (not just grey axes) drawn.
        assert chart["rows"] >= 700, chart
        assert chart["coloured"] > 500, chart
    assert "Passed" in text and "Where the fixes went" in text
    # The demo's fault timeline is shaded on the charts, each band named by its action.
    assert {band["label"].split(" ")[0] for band in bands} >= {"networkOffline", "revokePermission"}, bands


# The comparison page (`report compare --html FILE`): two runs of the demo fleet, the baseline's
# report at a path no page should run as markup.
HOSTILE = '<script>alert(1)</script>&"<img src=x onerror=alert(2)>'


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    work = tmp_path_factory.mktemp("compare-html")
    # A name holding "/" makes folders: the path as a whole reads as the markup.
    base = work / f"{HOSTILE}.json"
    base.parent.mkdir(parents=True)
    candidate = work / "candidate.json"
    for index, report in enumerate([base, candidate]):
        run = subprocess.run(
            [BINARY, "run", str(ROOT / "fleets/demo.yaml"), "--deterministic", "--clock-start",
             "2026-01-01T00:00:00Z", "--for", "20m", "--warp", "max", "--admin", "off",
             "--data", str(work / f"data{index}"), "--report", str(report)],
            capture_output=True, text=True, timeout=600, cwd=ROOT)
        assert run.returncode == 0, run.stdout + run.stderr
    path = work / "compare.html"
    compare = subprocess.run(
        [BINARY, "report", "compare", str(base), str(candidate), "--html", str(path),
         "--threshold", "upload.latency.p99 < +1%", "--threshold", "backlog.max < -50%"],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert compare.returncode == 99, compare.stdout + compare.stderr
    assert f"written: {path}" in compare.stdout
    return path, base, candidate


def test_the_comparison_page_draws_both_runs_on_one_axis(comparison):
    path, base, candidate = comparison
    exe = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors, requests, dialogs = [], [], []
        page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

        def refuse(route):
            if route.request.url.startswith("file://") and route.request.url == path.as_uri():
                route.continue_()
            else:
                requests.append(route.request.url)
                route.abort()

        page.route("**/*", refuse)
        page.goto(path.as_uri())
        page.wait_for_function("document.querySelectorAll('canvas[data-drawn]').length === 8", timeout=15_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "compare-html.png"), full_page=True)
        # Per chart: pixels of each run's hue (the legend's swatch is 30 of them). The candidate's
        # line lies on the baseline's (identical runs): its edges blend in, so hues, not exact colours.
        drawn = page.evaluate("""() => [...document.querySelectorAll('canvas')].map(c => {
            const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const near = {baseline: 0, candidate: 0};
            for (let i = 0; i < data.length; i += 4) {
                const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
                if (a < 200) continue;
                if (b > 150 && b - r > 100) near.baseline++;
                if (r > 150 && r - b > 100 && g < 130) near.candidate++;
            }
            return {id: c.id, points: Number(c.dataset.drawn), near};
        })""")
        data = page.evaluate("JSON.parse(document.getElementById('report-data').textContent)")
        legend = page.inner_text("#legend")
        failed = page.locator("tr", has=page.locator("td.fail")).all_inner_texts()
        scripts = page.evaluate("document.querySelectorAll('script').length")
        images = page.evaluate("document.querySelectorAll('img').length")
        title = page.title()
        text = page.inner_text("body")
        browser.close()
    assert errors == [], (errors, requests)
    assert requests == [], f"the page asked the network for {requests}"
    assert dialogs == [] and scripts == 2 and images == 0, (dialogs, scripts, images)
    assert str(base) in title and str(base) in legend, (title, legend)
    assert "Failed: 1 of 2 thresholds not met (exit 99)." in text
    assert len(failed) == 1 and "backlog.max < -50%" in failed[0], failed
    lines = dict(line.split("\t", 1) for line in legend.splitlines()[1:])
    assert str(base) in lines["baseline"] and str(candidate) in lines["candidate"], lines
    ids = ["chart-server-latency-p99", "chart-server-latency-p50", "chart-latency-p99", "chart-latency-p50",
           "chart-uploads", "chart-errors", "chart-pending", "chart-age-p99"]
    assert [d["id"] for d in drawn] == ids
    for chart, figures in zip(drawn, data["charts"]):
        # 20 minutes in 10 s rows from 0, each run a line of its own colour.
        assert chart["points"] >= 120, chart
        assert figures["points"][0]["t"] == 0 and figures["points"][-1]["t"] >= 1_200_000, figures["id"]
        for role in ["baseline", "candidate"]:
            assert sum(point["v"].get(role) is not None for point in figures["points"]) >= 100, (figures["id"], role)
            assert chart["near"][role] > 150, chart
    # The same fleet's faults: drawn once, at their instants since the start (the demo's at 5m).
    assert {band["label"].split(" ")[0] for band in data["bands"]} >= {"networkOffline", "revokePermission"}
    assert min(band["from"] for band in data["bands"]) == 300_000, data["bands"]
