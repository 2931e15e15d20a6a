"""`docker-compose.shards.yml` as a user runs it: the demo fleet over BEEKON_SHARDS=2 replicas of
`fleet` (`--shard auto/2`) and one receiver, brought up by podman-compose with
checks/compose/override.yml (limits only) on the image checks/compose/run.sh built. Each replica
holds another shard, both start together, `stop` makes each write its report into the shared
volume, and `report merge` of the two accounts for what the receiver stored. Runs after
test_compose.py (which takes the same host port 8081 down with it)."""

import glob
import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest
from test_compose import wait_until

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROJECT = os.environ.get("COMPOSE_SHARDS_TEST_PROJECT", "beekon-compose-shards-test")
STATS = "http://127.0.0.1:8081/stats"
SHARDS = 2


def compose(*args, check=True):
    command = ["podman-compose", "-p", PROJECT, "-f", "docker-compose.shards.yml", "-f", "checks/compose/override.yml",
               *args]
    env = dict(os.environ, BEEKON_SHARDS=str(SHARDS))
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def podman(*args, check=True, timeout=120):
    result = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


def replica(number):
    return f"{PROJECT}_fleet_{number}"


def receiver_stats():
    try:
        with urllib.request.urlopen(STATS, timeout=10) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError):
        return None


@pytest.fixture(scope="module")
def stack():
    label = f"label=io.podman.compose.project={PROJECT}"
    assert not podman("ps", "-a", "--filter", label, "--format", "{{.Names}}").stdout.strip(), "an earlier run is there"
    compose("up", "-d")
    yield
    compose("down", "-v", check=False)


def test_each_replica_holds_another_shard_and_they_start_together(stack):
    def held():
        logs = [podman("logs", replica(number), check=False).stdout for number in range(1, SHARDS + 1)]
        shards = sorted(index for log in logs for index in range(SHARDS) if f"holds shard {index}/{SHARDS}" in log)
        starts = {line.split("starts at ", 1)[1] for log in logs for line in log.splitlines() if "clock starts at" in line}
        return (shards, starts) if len(shards) == SHARDS and len(starts) >= 1 else None

    shards, starts = wait_until("both replicas hold a shard and say when they start", 120, held)
    assert shards == list(range(SHARDS))
    assert len(starts) == 1, f"the replicas start at different instants: {starts}"


def test_the_shards_upload_to_the_one_receiver(stack):
    stats = wait_until("the receiver stored fixes from the shards", 180,
                       lambda: (s := receiver_stats()) and s["fixes"]["stored"] > 0 and s)
    assert stats["fixes"]["duplicates"] == 0


def test_stop_writes_each_shards_report_and_merge_accounts_for_what_the_receiver_stored(stack):
    compose("stop", "fleet")
    folder = podman("volume", "inspect", f"{PROJECT}_fleet-shards", "--format", "{{.Mountpoint}}").stdout.strip()
    reports = sorted(glob.glob(os.path.join(folder, "report-shard-*.json")))
    assert [os.path.basename(path) for path in reports] == [f"report-shard-{index}.json" for index in range(SHARDS)]
    merged = podman(
        "run", "--rm", "--entrypoint", "sh", "-v", f"{PROJECT}_fleet-shards:/var/lib/beekon/fleet",
        "beekon-fleet:local", "-c",
        "beekon-fleet report merge /var/lib/beekon/fleet/report-shard-*.json "
        "--report /var/lib/beekon/fleet/report-all.json", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    report = json.load(open(os.path.join(folder, "report-all.json")))
    assert report["devices"] == 100 and report["shard"] is None
    fixes = report["fixes"]
    assert fixes["lost"] == 0 and fixes["unaccounted"] == 0, fixes
    stats = receiver_stats()
    # What the receiver stored is what the devices heard acknowledged, and what it acknowledged
    # that a stopping shard did not hear.
    assert stats["fixes"]["stored"] == fixes["acknowledged"] + report["duplicates"]["unheard_fixes"], (stats, fixes)
