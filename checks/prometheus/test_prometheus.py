"""Four shards of one fleet scraped by a real Prometheus: its totals are the merged report's.

    python3 checks/prometheus/test_prometheus.py [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)

Checks the shipped rules first (promtool check rules, promtool test rules), then runs one
reference receiver, four `run --shard I/4` processes of the demo fleet (40 devices, --warp max,
30 virtual minutes, started together by --start-at) each with its admin API on a free loopback
port and --linger, and Debian's `prometheus` scraping the four every second with the shipped
rules loaded. Once every shard is over and lingering, the PromQL totals (through the recording
rules) must equal `report merge`'s totals of the four reports, and every shard's samples carry
their `shard` label. Needs Debian's prometheus package (prometheus, promtool).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RULES = os.path.join(ROOT, "deploy", "prometheus", "beekon-fleet.rules.yml")
SHARDS = 4


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def wait_for(what, check, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"prometheus test: {what} did not happen within {seconds} s")


def query(base, expression):
    """The value of an instant query with one result (None with none)."""
    body = json.loads(get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expression})))
    results = body["data"]["result"]
    if not results:
        return None
    if len(results) != 1:
        raise SystemExit(f"prometheus test: {expression} gave {len(results)} series: {results}")
    return float(results[0]["value"][1])


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/beekon-fleet"))
    for command in (["promtool", "check", "rules", RULES],
                    ["promtool", "test", "rules", os.path.join(ROOT, "deploy/prometheus/beekon-fleet.rules.test.yml")]):
        subprocess.run(command, check=True, cwd=os.path.dirname(RULES))
    folder = tempfile.mkdtemp(prefix="beekon-prometheus-")
    processes = []
    try:
        ingest_port = free_port()
        receiver = subprocess.Popen(
            [binary, "receive", "--listen", f"127.0.0.1:{ingest_port}", "--db", os.path.join(folder, "ingest.db")],
            stdout=open(os.path.join(folder, "receiver.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(receiver)
        wait_for("the receiver answering", lambda: get(f"http://127.0.0.1:{ingest_port}/stats") is not None)

        admin_ports = [free_port() for _ in range(SHARDS)]
        start_at = (datetime.now(timezone.utc) + timedelta(seconds=8)).strftime("%Y-%m-%dT%H:%M:%SZ")
        logs = [os.path.join(folder, f"shard-{index}.log") for index in range(SHARDS)]
        shards = []
        for index in range(SHARDS):
            shard = subprocess.Popen(
                [binary, "run", "fleets/demo.yaml", "--devices", "40", "--shard", f"{index}/{SHARDS}",
                 "--start-at", start_at, "--warp", "max", "--for", "30m", "--linger",
                 "--ingest", f"http://127.0.0.1:{ingest_port}/ingest", "--admin", f"127.0.0.1:{admin_ports[index]}",
                 "--data", os.path.join(folder, "data"), "--report", os.path.join(folder, f"shard-{index}.json")],
                cwd=ROOT, stdout=open(logs[index], "w"), stderr=subprocess.STDOUT)
            shards.append(shard)
            processes.append(shard)

        prometheus_port = free_port()
        config = os.path.join(folder, "prometheus.yml")
        with open(config, "w") as file:
            file.write(
                "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                f"rule_files: [{json.dumps(RULES)}]\n"
                "scrape_configs:\n"
                "  - job_name: beekon-fleet\n"
                "    static_configs:\n"
                f"      - targets: {json.dumps([f'127.0.0.1:{port}' for port in admin_ports])}\n")
        prometheus = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(folder, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdout=open(os.path.join(folder, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(prometheus)
        base = f"http://127.0.0.1:{prometheus_port}"
        wait_for("Prometheus ready", lambda: get(f"{base}/-/ready") is not None)

        def lingering():
            for index, shard in enumerate(shards):
                if shard.poll() is not None:
                    raise SystemExit(f"prometheus test: shard {index} exited {shard.returncode}; see {logs[index]}")
            return all("(--linger)" in open(log).read() for log in logs)
        wait_for("every shard over and lingering", lingering, seconds=300)
        # Past one scrape and one rule evaluation after the last shard's figures were final.
        time.sleep(4)
        up = query(base, 'count(up{job="beekon-fleet"} == 1)')
        shards_up = query(base, 'job:beekon_fleet_shards_up:count{job="beekon-fleet"}')
        figures = {
            "admitted": query(base, 'job:beekon_fleet_fixes_admitted:sum{job="beekon-fleet"}'),
            "acknowledged": query(base, 'job:beekon_fleet_fixes_acknowledged:sum{job="beekon-fleet"}'),
            "pending": query(base, 'job:beekon_fleet_pending_fixes:sum{job="beekon-fleet"}'),
            "lost": query(base, 'job:beekon_fleet_fixes_lost:sum{job="beekon-fleet"}'),
            "uploads": query(base, 'job:beekon_fleet_uploads:sum{job="beekon-fleet"}'),
        }
        # Every query of the shipped Grafana dashboard parses, and every panel shows something.
        dashboard = json.load(open(os.path.join(ROOT, "deploy", "grafana", "beekon-fleet.json")))
        empty_panels = []
        for panel in dashboard["panels"]:
            answered = False
            for target in panel["targets"]:
                expression = target["expr"].replace("$job", "beekon-fleet")
                body = json.loads(get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expression})))
                if body.get("status") != "success":
                    raise SystemExit(f"prometheus test: dashboard query {expression} failed: {body}")
                answered = answered or bool(body["data"]["result"])
            if not answered:
                empty_panels.append(panel["title"])
        one_shard = get(f"http://127.0.0.1:{admin_ports[2]}/metrics")
        live = json.loads(get(f"http://127.0.0.1:{admin_ports[2]}/api/v1/report"))

        for shard in shards:
            shard.send_signal(signal.SIGINT)
        for index, shard in enumerate(shards):
            if shard.wait(timeout=60) != 0:
                raise SystemExit(f"prometheus test: shard {index} exited {shard.returncode}; see {logs[index]}")
        merged_file = os.path.join(folder, "merged.json")
        merge = subprocess.run(
            [binary, "report", "merge", *[os.path.join(folder, f"shard-{index}.json") for index in range(SHARDS)],
             "--report", merged_file], capture_output=True, text=True)
        if merge.returncode != 0:
            raise SystemExit(f"prometheus test: report merge exited {merge.returncode}:\n{merge.stdout}{merge.stderr}")
        merged = json.load(open(merged_file))
        expected = {
            "admitted": merged["fixes"]["admitted"], "acknowledged": merged["fixes"]["acknowledged"],
            "pending": merged["fixes"]["pending"], "lost": merged["fixes"]["lost"],
            "uploads": merged["uploads"]["total"],
        }
        problems = []
        if up != SHARDS or shards_up != SHARDS:
            problems.append(f"{up} targets up and {shards_up} shards reporting, expected {SHARDS}")
        for name, value in expected.items():
            if figures[name] != value:
                problems.append(f"{name}: Prometheus says {figures[name]}, the merged report {value}")
        if expected["admitted"] < 100:
            problems.append(f"too few fixes to compare: {expected['admitted']}")
        if 'beekon_fleet_shard_info{shard="2",shards="4"} 1' not in one_shard:
            problems.append("shard 2's /metrics has no beekon_fleet_shard_info for 2 of 4")
        if empty_panels:
            problems.append(f"dashboard panels with no data: {empty_panels}")
        if live.get("shard") != {"index": 2, "count": 4}:
            problems.append(f"shard 2's live report says shard {live.get('shard')}")
        if problems:
            raise SystemExit("prometheus test: " + "; ".join(problems) + f" (files in {folder})")
        print(f"prometheus: {SHARDS} shards, Prometheus's totals equal the merged report's: "
              + ", ".join(f"{name} {int(value)}" for name, value in expected.items()))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
