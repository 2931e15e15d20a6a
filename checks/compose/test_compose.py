"""`docker compose up fleet` as a user runs it: the project's own docker-compose.yml, brought up by
podman-compose with checks/compose/override.yml (limits only), on the image checks/compose/run.sh built.
The tests run in order and share one stack: up, healthy, uploads land, the admin answers with the
documented token, `restart fleet` resumes the same devices and loses nothing, `down -v` leaves
nothing. Run through checks/compose/run.sh, which makes the images first."""

import glob
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROJECT = os.environ.get("COMPOSE_TEST_PROJECT", "beekon-compose-test")
ADMIN = "http://127.0.0.1:8080"
STATS = "http://127.0.0.1:8081/stats"


def dotenv():
    """The settings docs/compose.md documents, as the committed .env file gives them."""
    values = {}
    with open(os.path.join(ROOT, ".env")) as file:
        for line in file:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, value = line.partition("=")
                values[name.strip()] = value.strip()
    return values


TOKEN = dotenv()["BEEKON_ADMIN_TOKEN"]


def compose(*args, check=True, env=None):
    command = ["podman-compose", "-p", PROJECT, "-f", "docker-compose.yml", "-f", "checks/compose/override.yml", *args]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def podman(*args, check=True):
    result = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


def container(service):
    return f"{PROJECT}_{service}_1"


def http(method, url, body=None, token=None):
    """(status, parsed JSON or text) of one request; (0, reason) when nothing answered."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, raw, kind = response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get("Content-Type", "")
    except OSError as error:
        return 0, str(error)
    return status, (json.loads(raw) if "json" in kind else raw.decode(errors="replace"))


def api(method, path, body=None):
    status, answer = http(method, ADMIN + path, body, token=TOKEN)
    assert 200 <= status < 300, f"{method} {path} answered {status}: {answer}"
    return answer


def wait_until(what, seconds, check):
    """Polls `check` every half second until it returns something truthy; fails naming `what`."""
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"{what}: not within {seconds} s (last: {last!r})")


def healthy(service):
    """Runs the service's own health check (the compose file's `test`) inside its container.
    Podman 4.3 schedules health checks with systemd timers, which this machine lacks, so the test
    runs them itself, as Docker's engine would."""
    return podman("healthcheck", "run", container(service), check=False).returncode == 0


def receiver_stats():
    status, stats = http("GET", STATS)
    assert status == 200, f"GET {STATS} answered {status}: {stats}"
    return stats


def settle():
    """Pauses the fleet and waits until no upload is on the wire; returns the fleet summary."""
    api("PATCH", "/api/v1/fleet", {"paused": True})

    def quiet():
        first = api("GET", "/api/v1/fleet")
        time.sleep(1.0)
        second = api("GET", "/api/v1/fleet")
        done = sum(second["batches"]["byOutcome"].values())
        if second["paused"] and second["batches"]["sent"] == done and first["fixes"] == second["fixes"]:
            return second
        return None

    return wait_until("the paused fleet has no upload on the wire", 60, quiet)


def devices():
    listed = api("GET", "/api/v1/devices?limit=1000")
    assert listed["total"] == len(listed["devices"]), "more devices than one page holds"
    return {device["id"]: device for device in listed["devices"]}


def pending_fix_ids(device_ids):
    """Every fix the devices hold and the server has not acknowledged, by id (from the API)."""
    ids = set()
    for device_id in device_ids:
        fixes = api("GET", f"/api/v1/devices/{device_id}/locations?limit=5000")["locations"]
        assert len(fixes) < 5000, f"{device_id} holds 5000 fixes or more"
        ids.update(fix["id"] for fix in fixes)
    return ids


def volume_folder(name):
    return podman("volume", "inspect", f"{PROJECT}_{name}", "--format", "{{.Mountpoint}}").stdout.strip()


def read_ids(database, table):
    """The ids in one table of a closed SQLite file, read without writing beside it
    (immutable: no -shm file, which would belong to root and lock the container's user out)."""
    connection = sqlite3.connect(f"file:{database}?immutable=1", uri=True)
    try:
        return [row[0] for row in connection.execute(f"SELECT id FROM {table}")]
    finally:
        connection.close()


@pytest.fixture(scope="module")
def run():
    """What the tests learn as they go (install ids, pending fixes, counts)."""
    leftover = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={PROJECT}", "--format", "{{.Names}}")
    assert not leftover.stdout.strip(), f"containers of an earlier run are still there: {leftover.stdout}"
    compose("up", "-d")
    yield {}


def test_the_compose_file_has_health_checks_waits_for_a_healthy_receiver_and_takes_settings_from_env():
    with open(os.path.join(ROOT, "docker-compose.yml")) as file:
        services = yaml.safe_load(file)["services"]
    for name in ("ingest", "fleet"):
        assert services[name]["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), f"{name} has no health check"
        assert all(port.startswith("127.0.0.1:") for port in services[name]["ports"]), f"{name} publishes beyond loopback"
    assert services["fleet"]["depends_on"] == {"ingest": {"condition": "service_healthy"}}
    assert "127.0.0.1:8081:8081" in services["ingest"]["ports"], "the receiver's /stats is not on the host's loopback"
    assert dotenv()["BEEKON_ADMIN_TOKEN"] == "beekon-demo"
    with open(os.path.join(ROOT, "README.md")) as file:
        assert "beekon-demo" in file.read(), "the README does not give the default admin token"
    # One variable replaces the receiver: set in the shell, it wins over .env (docker-compose's
    # own reading of the file).
    env = dict(os.environ, BEEKON_INGEST_URL="https://ingest.example.com/v1/locations", BEEKON_ADMIN_TOKEN="t0ken",
               BEEKON_LOG_LEVEL="debug")
    config = subprocess.run(["docker-compose", "config"], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    configured = yaml.safe_load(config.stdout)["services"]
    fleet = configured["fleet"]
    assert "https://ingest.example.com/v1/locations" in fleet["command"]
    assert fleet["environment"]["BEEKON_ADMIN_TOKEN"] == "t0ken"
    # The log level reaches both programs (info when unset).
    assert all(configured[name]["environment"]["BEEKON_LOG_LEVEL"] == "debug" for name in ("ingest", "fleet"))
    plain = subprocess.run(["docker-compose", "config"], cwd=ROOT, env={k: v for k, v in env.items() if k != "BEEKON_LOG_LEVEL"},
                           capture_output=True, text=True, check=True)
    assert all(service["environment"]["BEEKON_LOG_LEVEL"] == "info"
               for service in yaml.safe_load(plain.stdout)["services"].values())
    # With no token anywhere, compose refuses to start and says which variable to set.
    unset = {k: v for k, v in env.items() if k != "BEEKON_ADMIN_TOKEN"}
    with tempfile.NamedTemporaryFile("w", suffix=".env") as empty:
        refused = subprocess.run(["docker-compose", "--env-file", empty.name, "-f", "docker-compose.yml", "config"],
                                 cwd=ROOT, env=unset, capture_output=True, text=True)
    assert refused.returncode != 0, "an unset token must be refused"
    assert "set BEEKON_ADMIN_TOKEN in .env" in refused.stderr, refused.stderr


def test_both_services_become_healthy(run):
    for service in ("ingest", "fleet"):
        health = json.loads(podman("inspect", container(service), "--format", "{{json .Config.Healthcheck}}").stdout)
        assert health and health.get("Test"), f"{service} runs without the compose file's health check"
    wait_until("the receiver is healthy", 90, lambda: healthy("ingest"))
    wait_until("the fleet is healthy", 120, lambda: healthy("fleet"))


def test_the_admin_page_and_api_answer_on_the_published_port_with_the_documented_token(run):
    status, page = http("GET", ADMIN + "/")
    assert status == 200 and "<html" in page.lower()
    status, refused = http("GET", ADMIN + "/api/v1/fleet")
    assert status == 401, f"the API answered {status} without a token"
    assert http("GET", ADMIN + "/api/v1/fleet", token="not-" + TOKEN)[0] == 401
    fleet = api("GET", "/api/v1/fleet")
    assert fleet["name"] == "demo" and fleet["devices"] == 100
    assert http("GET", ADMIN + "/healthz") == (200, {"status": "running"})
    status, metrics = http("GET", ADMIN + "/metrics", token=TOKEN)
    assert status == 200 and "beekon_fleet_fixes_admitted_total" in metrics
    # Another container reaches the admin by its service name.
    inside = podman("exec", container("ingest"), "curl", "-fsS", "-H", f"Authorization: Bearer {TOKEN}",
                    "http://fleet:8080/api/v1/fleet")
    assert json.loads(inside.stdout)["devices"] == 100


def test_the_fleets_uploads_land_in_the_receiver(run):
    assert api("PATCH", "/api/v1/fleet", {"warp": 60})["warp"] == 60

    def landed():
        stats = receiver_stats()
        return stats if stats["batches"]["stored"] > 0 and stats["fixes"]["stored"] > 0 else None

    stats = wait_until("the receiver stored batches and fixes", 120, landed)
    assert stats["batches"]["duplicates"] == 0 and stats["fixes"]["duplicates"] == 0
    assert stats["devices"] > 0


def test_restart_fleet_resumes_the_same_devices_delivers_their_pending_fixes_and_loses_nothing(run):
    # Before: every admitted fix is either acknowledged or pending, and the receiver has the
    # acknowledged ones.
    before = settle()
    fixes = before["fixes"]
    assert fixes["carriedOver"] == 0 and fixes["lost"] == 0 and fixes["unaccounted"] == 0, fixes
    assert fixes["admitted"] == fixes["acknowledged"] + fixes["pending"], fixes
    assert receiver_stats()["fixes"]["stored"] == fixes["acknowledged"]
    install_ids = {device_id: device["installId"] for device_id, device in devices().items()}
    pending_before = pending_fix_ids(install_ids)
    assert len(pending_before) == fixes["pending"] > 0

    compose("restart", "fleet")
    wait_until("the restarted fleet is healthy", 120, lambda: healthy("fleet"))
    after = api("GET", "/api/v1/fleet")
    assert not after["paused"], "a restart starts a new run (the pause is not kept)"
    assert {device_id: device["installId"] for device_id, device in devices().items()} == install_ids

    # The fixes pending at the restart are delivered by the new run.
    api("PATCH", "/api/v1/fleet", {"warp": 60})
    wait_until("every fix pending at the restart is delivered", 180,
               lambda: not (pending_before & pending_fix_ids(install_ids)))
    second = settle()
    pending_after = pending_fix_ids(install_ids)
    assert len(pending_after) == second["fixes"]["pending"]
    # The new run's accounting starts from what the stores held: the first run's pending fixes.
    assert second["fixes"]["carriedOver"] == len(pending_before), second["fixes"]
    assert second["fixes"]["unaccounted"] == 0 and second["fixes"]["lost"] == 0, second["fixes"]
    stats = receiver_stats()
    assert stats["batches"]["duplicates"] == 0 and stats["fixes"]["duplicates"] == 0
    # Seed 05's rule as the receiver grades it: no fix under two batch ids, no batch id re-used.
    assert stats["fixes"]["in_another_batch"] == 0 and stats["batches"]["changed_on_retry"] == 0, stats

    # The first run stopped cleanly (drained, not killed).
    logs = podman("logs", container("fleet")).stdout
    assert "beekon-fleet: done." in logs, "the fleet did not finish its first run cleanly"

    # After: the files say the same. Stopped, the receiver's database and the devices' stores
    # account for every fix both runs admitted, each in one place.
    compose("stop")
    received = read_ids(os.path.join(volume_folder("ingest-data"), "ingest.db"), "locations")
    stores = glob.glob(os.path.join(volume_folder("fleet-data"), "devices", "*", "beekon.db"))
    assert sorted(os.path.basename(os.path.dirname(path)) for path in stores) == sorted(install_ids.values())
    held = [fix_id for path in stores for fix_id in read_ids(path, "locations")]
    assert len(received) == len(set(received))
    assert set(held) == pending_after and len(held) == len(pending_after)
    assert pending_before <= set(received), "a fix pending at the restart never arrived"
    assert not (set(held) & set(received)), "a fix is both delivered and still pending"
    assert len(received) == fixes["acknowledged"] + second["fixes"]["acknowledged"]
    assert len(received) + len(held) == fixes["admitted"] + second["fixes"]["admitted"], "a fix was lost"


def test_down_v_leaves_nothing_running(run):
    compose("down", "-v")
    label = f"label=io.podman.compose.project={PROJECT}"
    assert podman("ps", "-a", "--filter", label, "--format", "{{.Names}}").stdout.strip() == ""
    assert podman("volume", "ls", "--filter", label, "--format", "{{.Name}}").stdout.strip() == ""
    assert http("GET", STATS)[0] == 0 and http("GET", ADMIN + "/healthz")[0] == 0, "something still answers"
