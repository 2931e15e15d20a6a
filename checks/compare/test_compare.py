"""`beekon-fleet report compare` and `run --baseline` end to end (issue #37), against the
reference receiver (`beekon-fleet receive`) as a separate process.

fleet.yaml runs three times at max warp with modelled timing, a pinned clock start and seed:
A and B against the receiver as it is, C after it restarted with --latency-ms 300. Then:

    A vs B   the same digest; every compared metric equal but the real-time ones; exit 0
    A vs C   the same digest; `server.latency.p99 < +10%` fails: exit 99, JUnit and Markdown
    run --baseline A   against the slow receiver 99; another --seed 64 before running; --force runs
    hostile inputs     a missing file, not JSON, a live report, an unknown metric: exit 64
    docs/ci-example.sh twice (creates the baseline, then passes against it), then failing once

Run by checks/compare/run.sh, which sets BEEKON_FLEET (the binary) and checks xmllint.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FLEET_FILE = HERE / "fleet.yaml"
XSD = ROOT / "docs" / "junit.xsd"
CI_EXAMPLE = ROOT / "docs" / "ci-example.sh"
BINARY = os.environ.get("BEEKON_FLEET", str(ROOT / ".build/debug/beekon-fleet"))
SEED = 37
CLOCK_START = "2026-06-16T07:00:00Z"
VIRTUAL = "10m"
SLOW_MS = 300
LATENCY_THRESHOLD = "server.latency.p99 < +10%"
ERRORS_THRESHOLD = "upload.errors.rate < +0.5pp"


def say(line):
    print(f"compare-check: {line}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url, timeout=2.0):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def refuses_connections(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def is_real_time(metric):
    """The compared metrics two identical runs may differ in: the server's answer time is measured
    on the real clock (modelled timing keeps it off the virtual one), acknowledged fixes per second
    divide by the run's real seconds, and the backlog (so its peak and the drains) is counted as
    each store's commit settles, in the order the stores' thread finishes them in real time (seen
    on fleets/demo.yaml: backlog.max 1,088 and 1,059 with the same digest)."""
    return (metric.startswith("server.latency.")
            or metric in ("fixes.acknowledged.per_second", "backlog.max", "drain.max"))


class Receiver:
    """`beekon-fleet receive` on a port, its database in a file that outlives a restart."""

    def __init__(self, workdir, port, latency_ms=0):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = workdir / f"receiver-{latency_ms}ms.log"
        self.log = open(self.log_path, "w")
        command = [BINARY, "receive", "--listen", f"127.0.0.1:{port}", "--db", str(workdir / "ingest.db")]
        if latency_ms:
            command += ["--latency-ms", str(latency_ms)]
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)
        self.stats_answered = 0
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the receiver exited ({self.process.returncode}): {self.log_path.read_text()}")
            try:
                self.stats()
                break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError("the receiver did not answer /stats within 20 s")
            time.sleep(0.05)

    def stats(self):
        answer = http_json(self.url + "/stats")
        self.stats_answered += 1
        return answer

    def requests(self):
        """Requests other than /stats: the receiver counts each /stats it answers, this one too."""
        return self.stats()["requests"]["total"] - self.stats_answered


    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def run_fleet(workdir, name, ingest, *extra, seed=SEED):
    """`beekon-fleet run` of fleet.yaml on a fresh data folder, pinned so it replays; returns the
    finished process and the report's path."""
    report = workdir / f"{name}.json"
    command = [BINARY, "run", str(FLEET_FILE), "--ingest", ingest + "/ingest", "--data", str(workdir / f"data-{name}"),
               "--deterministic", "--warp", "max", "--for", VIRTUAL, "--clock-start", CLOCK_START,
               "--seed", str(seed), "--admin", "off", "--report", str(report), *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    (workdir / f"{name}.log").write_text(result.stdout + result.stderr)
    return result, report


def compare(*args):
    return subprocess.run([BINARY, "report", "compare", *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def output(result):
    return result.stdout + result.stderr


def xmllint(path):
    return subprocess.run(["xmllint", "--noout", "--schema", str(XSD), str(path)], capture_output=True, text=True)


def flat(value, path=""):
    """A report as {dotted path: leaf}."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(flat(item, f"{path}.{key}" if path else key))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(flat(item, f"{path}[{index}]"))
        return out
    return {path: value}


@pytest.fixture(scope="module")
def workdir():
    path = Path(tempfile.mkdtemp(prefix="beekon-compare."))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def runs(workdir):
    """A and B against the receiver, then C against it restarted 300 ms slower (the same port and
    database: B and C re-send what A stored, which it dedupes and answers 200 as before). The slow
    receiver stays up for the --baseline tests."""
    port = free_port()
    receivers = []
    try:
        receivers.append(Receiver(workdir, port))
        reports = {}
        for name in ("A", "B"):
            result, reports[name] = run_fleet(workdir, name, receivers[-1].url)
            assert result.returncode == 0, f"run {name} exited {result.returncode}:\n{output(result)[-3000:]}"
        receivers[-1].stop()
        receivers.append(Receiver(workdir, port, latency_ms=SLOW_MS))
        result, reports["C"] = run_fleet(workdir, "C", receivers[-1].url)
        assert result.returncode == 0, f"run C exited {result.returncode}:\n{output(result)[-3000:]}"
        loaded = {name: json.loads(path.read_text()) for name, path in reports.items()}
        say("digests: " + ", ".join(f"{name} {report['digest']}" for name, report in loaded.items()))
        yield SimpleNamespace(dir=workdir, paths=reports, reports=loaded, slow=receivers[-1])
    finally:
        for receiver in receivers:
            receiver.stop()


@pytest.fixture(scope="module")
def live_report(workdir):
    """What GET /api/v1/report answers for a finished run (--linger): no merge_state."""
    admin = free_port()
    log_path = workdir / "live.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [BINARY, "run", str(FLEET_FILE), "--data", str(workdir / "data-live"), "--deterministic", "--warp", "max",
             "--for", "2m", "--admin", f"127.0.0.1:{admin}", "--linger"], stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while "the run is over" not in log_path.read_text():
                assert process.poll() is None, f"the lingering run exited:\n{log_path.read_text()[-3000:]}"
                assert time.monotonic() < deadline, "the lingering run did not finish within 60 s"
                time.sleep(0.1)
            with urllib.request.urlopen(f"http://127.0.0.1:{admin}/api/v1/report", timeout=5) as response:
                body = response.read()
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    assert json.loads(body).get("merge_state") is None
    path = workdir / "live.json"
    path.write_bytes(body)
    return path


# --- a. two identical runs ---


def test_identical_runs_send_the_same_requests(runs):
    a, b = runs.reports["A"], runs.reports["B"]
    assert a["digest"] and a["digest"] == b["digest"]
    assert a["uploads"]["total"] > 0 and a["uploads"]["total"] == b["uploads"]["total"]


def test_identical_runs_differ_only_in_real_time(runs):
    """Two identical runs' reports differ only in the server's real answer time
    (server_latency_ms), per-second rates and real_seconds (divided by / measured on the real
    clock), the backlog's peak and drains (see is_real_time), the fleet's own health and pace
    (real time), and merge_state (which carries all of those)."""
    a, b = flat(runs.reports["A"]), flat(runs.reports["B"])
    assert a.keys() == b.keys()
    real_time = re.compile(r"^(groups\.[^.]+\.)?(server_latency_ms\..*|uploads\.by_outcome\.[^.]+\.per_second"
                           r"|fixes\.max_pending)$"
                           r"|^drains\.\d+\.(pending_before|pending_at_end|drain_ms)$"
                           r"|^(fleet_health|pace)\..*$|^real_seconds$|^merge_state$")
    differing = sorted(key for key in a if a[key] != b[key] and not real_time.match(key))
    assert not differing, {key: (a[key], b[key]) for key in differing}
    assert a["fixes.admitted"] > 0 and a["fixes.acknowledged"] > 0


def test_compare_identical_runs(runs):
    a = runs.reports["A"]
    result = compare(runs.paths["A"], runs.paths["B"])
    assert result.returncode == 0, output(result)
    assert f"both runs sent the same {a['uploads']['total']} requests (digest {a['digest']})" in result.stdout
    result = compare(runs.paths["A"], runs.paths["B"], "--threshold", ERRORS_THRESHOLD)
    assert result.returncode == 0, output(result)
    assert f"✓ {ERRORS_THRESHOLD}" in result.stdout


def test_compare_identical_runs_json(runs):
    a = runs.reports["A"]
    result = compare(runs.paths["A"], runs.paths["B"], "--json")
    assert result.returncode == 0, output(result)
    comparison = json.loads(result.stdout)
    assert comparison["same_requests"] is True
    for side in ("baseline", "candidate"):
        assert comparison[side]["digest"] == a["digest"]
        assert comparison[side]["requests"] == a["uploads"]["total"]
    assert comparison["verdict"] == "compared" and comparison["thresholds"] == []
    rows = comparison["rows"]
    groups = set(a["groups"])
    assert {row["group"] for row in rows} == {None} | groups
    seen_real_time = set()
    for row in rows:
        if is_real_time(row["metric"]):
            seen_real_time.add(row["metric"])
            continue
        if row["baseline"] is None and row["candidate"] is None:
            assert row["delta"] is None, row
        else:
            assert row["delta"] == 0 and row["baseline"] == row["candidate"], row
    # The exceptions above are rows that exist, not names that match nothing.
    assert {"server.latency.p99", "fixes.acknowledged.per_second"} <= seen_real_time
    assert any(row["metric"] == "fixes.admitted" and row["group"] is None and row["baseline"] > 0 for row in rows)

    result = compare(runs.paths["A"], runs.paths["B"], "--json", "--threshold", ERRORS_THRESHOLD)
    assert result.returncode == 0, output(result)
    comparison = json.loads(result.stdout)
    assert comparison["verdict"] == "passed"
    assert [(t["expression"], t["group"], t["passed"], t["value"]) for t in comparison["thresholds"]] == [
        (ERRORS_THRESHOLD, None, True, 0)]


# --- b. the receiver 300 ms slower ---


def test_slower_receiver_sends_the_same_requests(runs):
    """Modelled timing: every answer takes 100 virtual ms whatever its real time, and virtual time
    waits for it, so devices hear and send the same; only the real server latency moves."""
    a, c = runs.reports["A"], runs.reports["C"]
    assert c["digest"] == a["digest"]
    assert c["uploads"]["total"] == a["uploads"]["total"]
    assert c["latency_ms"] == a["latency_ms"]
    assert c["server_latency_ms"]["p50"] >= SLOW_MS > a["server_latency_ms"]["p99"]


def junit_cases(path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    return root, [case for suite in root.iter("testsuite") for case in suite.iter("testcase")]


def test_compare_slower_fails_the_latency_threshold(runs):
    junit = runs.dir / "slow-junit.xml"
    result = compare(runs.paths["A"], runs.paths["C"], "--threshold", LATENCY_THRESHOLD,
                     "--threshold", ERRORS_THRESHOLD, "--junit", junit)
    assert result.returncode == 99, output(result)
    assert "both runs sent the same" in result.stdout
    assert f"✗ {LATENCY_THRESHOLD}" in result.stdout and f"✓ {ERRORS_THRESHOLD}" in result.stdout
    check = xmllint(junit)
    assert check.returncode == 0, check.stderr
    root, cases = junit_cases(junit)
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    assert sorted(case.get("name") for case in cases) == sorted([LATENCY_THRESHOLD, ERRORS_THRESHOLD])
    failed = [case.get("name") for case in cases if case.findall("failure") or case.findall("error")]
    assert failed == [LATENCY_THRESHOLD]


def test_junit_schema_is_strict(runs):
    """The schema is no rubber stamp: a wrong root, a testcase without a name and an exponent time
    fail; the format's other parts (properties, error, skipped, system-err) pass."""
    junit = runs.dir / "strict-junit.xml"
    compare(runs.paths["A"], runs.paths["C"], "--threshold", LATENCY_THRESHOLD, "--junit", junit)
    good = junit.read_text()
    assert xmllint(junit).returncode == 0
    broken = {
        "root": (good.replace("<testsuites ", "<results ").replace("</testsuites>", "</results>"),
                 "No matching global declaration"),
        "name": (re.sub(r'(<testcase [^>]*?)\sname="[^"]*"', r"\1", good), "'name' is required"),
        "time": (re.sub(r'(<testsuites [^>]*?time=)"[^"]*"', r'\1"1e-3"', good), "time"),
    }
    for what, (text, message) in broken.items():
        assert text != good, what
        path = runs.dir / f"broken-{what}.xml"
        path.write_text(text)
        check = xmllint(path)
        assert check.returncode != 0 and message in check.stderr, (what, check.stderr)
    full = runs.dir / "full-format.xml"
    full.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="all" tests="4" failures="1" errors="1" skipped="1" time="1.5">'
        '<testsuite name="s" tests="4" failures="1" errors="1" skipped="1" time="1.5"'
        ' timestamp="2026-06-16T07:00:00" hostname="localhost">'
        '<properties><property name="seed" value="37"/></properties>'
        '<testcase name="ok" classname="c" time="0.1"/>'
        '<testcase name="failed" classname="c"><failure message="m" type="t">trace</failure>'
        '<system-out>out</system-out><system-err>err</system-err></testcase>'
        '<testcase name="errored"><error message="boom"/></testcase>'
        '<testcase name="skipped"><skipped message="later"/></testcase>'
        '<system-out>suite</system-out></testsuite></testsuites>\n')
    check = xmllint(full)
    assert check.returncode == 0, check.stderr


def table_rows(markdown):
    """Markdown table rows as plain text: escapes, entities and code marks undone."""
    rows = []
    for line in markdown.splitlines():
        if line.lstrip().startswith("|") and not re.fullmatch(r"[\s|:\-]+", line):
            plain = line.replace("`", "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
            rows.append(re.sub(r"\\(.)", r"\1", plain))
    return rows


def test_compare_slower_markdown(runs):
    junit, markdown = runs.dir / "md-junit.xml", runs.dir / "summary.md"
    result = compare(runs.paths["A"], runs.paths["C"], "--threshold", LATENCY_THRESHOLD, "--junit", junit,
                     "--markdown", markdown)
    assert result.returncode == 99, output(result)
    text = markdown.read_text()
    rows = table_rows(text)
    threshold_rows = [row for row in rows if LATENCY_THRESHOLD in row]
    assert len(threshold_rows) == 1 and re.search(r"fail|✗|❌", threshold_rows[0], re.I), text
    verdict = [line for line in text.splitlines() if not line.lstrip().startswith("|")]
    assert any(re.search(r"fail", line, re.I) for line in verdict), text
    # The changed metrics: the latency is one; the fixes admitted (equal in both) are not.
    assert any("server.latency.p99" in row and LATENCY_THRESHOLD not in row for row in rows), text
    assert not any(re.search(r"\bfixes\.admitted\b", row) for row in rows), text
    assert xmllint(junit).returncode == 0
    _, cases = junit_cases(junit)
    assert [case.get("name") for case in cases if case.findall("failure")] == [LATENCY_THRESHOLD]


# --- c. run --baseline ---


def test_run_baseline_against_slow_receiver_fails(runs):
    result, report = run_fleet(runs.dir, "baseline-slow", runs.slow.url, "--baseline", runs.paths["A"],
                               "--threshold", LATENCY_THRESHOLD)
    assert result.returncode == 99, output(result)
    assert LATENCY_THRESHOLD in output(result)
    assert json.loads(report.read_text())["digest"] == runs.reports["A"]["digest"]


def test_run_baseline_refuses_another_seed_before_running(runs):
    before = runs.slow.requests()
    result, report = run_fleet(runs.dir, "baseline-seed", runs.slow.url, "--baseline", runs.paths["A"],
                               "--threshold", LATENCY_THRESHOLD, seed=SEED + 1)
    assert result.returncode == 64, output(result)
    assert "seed" in output(result).lower()
    assert not report.exists()
    assert runs.slow.requests() == before, "the refused run uploaded"


def test_run_baseline_force_runs_another_seed(runs):
    before = runs.slow.requests()
    result, report = run_fleet(runs.dir, "baseline-force", runs.slow.url, "--baseline", runs.paths["A"],
                               "--force", seed=SEED + 1)
    assert result.returncode == 0, output(result)
    forced = json.loads(report.read_text())
    assert forced["seed"] == str(SEED + 1) and forced["digest"] != runs.reports["A"]["digest"]
    assert runs.slow.requests() > before


def test_run_baseline_missing_file(runs):
    before = runs.slow.requests()
    missing = runs.dir / "no-such-baseline.json"
    result, report = run_fleet(runs.dir, "baseline-missing", runs.slow.url, "--baseline", missing)
    assert result.returncode == 64, output(result)
    assert str(missing) in output(result)
    assert not report.exists() and runs.slow.requests() == before


def test_run_and_merge_write_junit_and_markdown(runs):
    """--junit and --markdown on `run` and on `report merge` of its report: the same verdict, the
    failed threshold a JUnit failure and a failed row of the Markdown."""
    failing = "upload.count < 1"
    junit, markdown = runs.dir / "run-junit.xml", runs.dir / "run-summary.md"
    result, report = run_fleet(runs.dir, "outputs", runs.slow.url, "--threshold", failing, "--threshold",
                               "upload.errors.rate < 0.05", "--junit", junit, "--markdown", markdown)
    assert result.returncode == 99, output(result)
    merged_junit, merged_markdown = runs.dir / "merge-junit.xml", runs.dir / "merge-summary.md"
    merged = subprocess.run([BINARY, "report", "merge", str(report), "--junit", str(merged_junit), "--markdown",
                             str(merged_markdown)], capture_output=True, text=True, timeout=60)
    assert merged.returncode == 99, output(merged)
    for path, title in ((junit, "beekon-fleet run"), (merged_junit, "beekon-fleet report merge")):
        assert xmllint(path).returncode == 0, xmllint(path).stderr
        suite = ET.parse(path).getroot().find("testsuite")
        assert suite.get("name") == title and suite.get("tests") == "2" and suite.get("failures") == "1"
        failed = [case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None]
        assert failed == [failing]
    for path in (markdown, merged_markdown):
        text = path.read_text()
        assert text.startswith("## beekon-fleet ") and ": failed" in text.splitlines()[0]
        assert f"| ✗ **failed** | `{failing}` |" in text
        assert "| ✓ passed | `upload.errors.rate < 0.05` |" in text


# --- d. hostile inputs ---


@pytest.mark.parametrize("case", ["missing", "garbled", "live", "unknown-metric"])
def test_hostile_input(runs, live_report, case):
    a = runs.paths["A"]
    if case == "missing":
        bad = runs.dir / "missing.json"
        args, named = (bad, a), str(bad)
    elif case == "garbled":
        bad = runs.dir / "garbled.json"
        bad.write_text('{"digest": "17896503c21ccd57", ')
        args, named = (a, bad), str(bad)
    elif case == "live":
        args, named = (a, live_report), str(live_report)
    else:
        threshold = "server.lag.p99 < +10%"
        args, named = (a, runs.paths["B"], "--threshold", threshold), threshold
    result = compare(*args)
    assert result.returncode == 64, output(result)
    assert named in result.stderr, result.stderr


# --- docs/ci-example.sh ---


def run_ci_example(workdir, env, expected):
    """The example job as a CI runs it, in a session of its own so nothing it starts survives."""
    process = subprocess.Popen(["sh", str(CI_EXAMPLE)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise AssertionError("docs/ci-example.sh did not finish within 120 s") from None
    try:
        os.killpg(process.pid, signal.SIGKILL)
        left = True
    except ProcessLookupError:
        left = False
    assert not left, "docs/ci-example.sh left a process running (the server?)"
    assert process.returncode == expected, f"exited {process.returncode}, not {expected}:\n{out[-4000:]}"
    assert refuses_connections(int(env["PORT"])), "the server still listens"
    return out


def test_ci_example(workdir):
    ci = workdir / "ci"
    baseline, out_dir = ci / "baseline.json", ci / "out"
    ci.mkdir()
    env = dict(os.environ, BEEKON_FLEET=BINARY, FLEET=str(FLEET_FILE), BASELINE=str(baseline),
               OUT_DIR=str(out_dir), PORT=str(free_port()), FOR=VIRTUAL, THRESHOLDS=ERRORS_THRESHOLD)

    out = run_ci_example(workdir, env, 0)
    assert "no baseline" in out
    assert baseline.read_bytes() == (out_dir / "report.json").read_bytes()
    assert xmllint(out_dir / "junit.xml").returncode == 0
    assert (out_dir / "summary.md").read_text().strip()

    out = run_ci_example(workdir, env, 0)
    assert "comparing with the baseline" in out
    assert baseline.read_bytes() == (out_dir / "report.json").read_bytes(), "the passed run is not the baseline"
    assert xmllint(out_dir / "junit.xml").returncode == 0
    _, cases = junit_cases(out_dir / "junit.xml")
    judged = {case.get("name"): not case.findall("failure") for case in cases}
    assert judged.get(ERRORS_THRESHOLD) is True, judged

    kept = baseline.read_bytes()
    run_ci_example(workdir, dict(env, THRESHOLDS="upload.count < 1"), 99)
    assert baseline.read_bytes() == kept, "a failed run replaced the baseline"
