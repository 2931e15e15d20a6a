"""`beekon-fleet verify` against the truth of a real PostgreSQL database, behind a small ingest
server of the kind a user writes (ingest_server.py), in its three modes (issue #36, deliverable 4).

Each test makes a fresh database and a fresh fleet data folder, starts the server on a free port,
runs fleet.yaml against it at max warp (modelled timing: the run replays), with network faults
that make devices re-send batches the server had stored (`timeouts`: the request reaches the
server, which stores and answers it, and the device hears a timeout), then counts for itself,
from the server's answered log and from SQL, what verify must report, prints it, and holds
verify's numbers to it:

    correct            lost 0, duplicates 0, verify exit 0
    no-dedupe          duplicates = the fix ids SQL holds more than once (> 0), verify exit 99
    ack-before-commit  lost = the fix ids answered 2xx that the database does not hold (> 0),
                       the server SIGKILLed mid-run and restarted correct; verify exit 99

Run by checks/postgres/run.sh, which starts the PostgreSQL cluster and sets PGHOST, PGPORT,
PGUSER and BEEKON_FLEET (the binary).
"""

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest

HERE = Path(__file__).resolve().parent
FLEET_FILE = HERE / "fleet.yaml"
SERVER = HERE / "ingest_server.py"
BINARY = os.environ.get("BEEKON_FLEET", str(HERE.parent.parent / ".build/debug/beekon-fleet"))
PG = {"host": os.environ.get("PGHOST", "127.0.0.1"), "port": os.environ.get("PGPORT", "5432"),
      "user": os.environ.get("PGUSER", "postgres")}
SEED = int(os.environ.get("PG_CHECK_SEED", "36"))
# Two virtual hours: timeouts from 10m to 50m, the walkers offline from 30m to 45m, then at 1h45m
# every device stops (flushing its tail) and at 1h50m syncs, so by the end nothing is pending.
VIRTUAL = "2h"
# ack-before-commit: the SIGKILL comes once this many uploads were answered (of about 2,100 in
# the run), while the writer holds uncommitted uploads.
KILL_AFTER_UPLOADS = 600


def say(line):
    print(f"postgres-check: {line}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dsn(dbname):
    return f"host={PG['host']} port={PG['port']} user={PG['user']} dbname={dbname}"


def fresh_database(name):
    with psycopg.connect(dsn("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def query(dbname, sql):
    with psycopg.connect(dsn(dbname)) as conn:
        return conn.execute(sql).fetchall()


def http_json(url, timeout=2.0):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


class IngestServer:
    def __init__(self, workdir, dbname, mode, port, log_name):
        self.workdir, self.dbname, self.port = workdir, dbname, port
        self.url = f"http://127.0.0.1:{port}"
        self.answered_log = workdir / "answered.jsonl"
        self.log_path = workdir / log_name
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "--dsn", dsn(dbname), "--listen", f"127.0.0.1:{port}",
             "--mode", mode, "--answered-log", str(self.answered_log), "--flush-interval", "2"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the {mode} server exited ({self.process.returncode}): "
                                     f"{self.log_path.read_text()}")
            try:
                if http_json(self.url + "/healthz").get("ok"):
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the {mode} server did not answer /healthz within 20 s")
            time.sleep(0.05)

    def stats(self):
        return http_json(self.url + "/stats")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def servers():
    started = []
    yield started
    for server in started:
        server.stop()


def fleet_command(data, ingest_url, report, extra=()):
    return [BINARY, "run", str(FLEET_FILE), "--ingest", ingest_url + "/ingest", "--data", str(data),
            "--for", VIRTUAL, "--warp", "max", "--admin", "off", "--seed", str(SEED),
            "--report", str(report), *extra]


def finish_fleet(process, log_path, report, expected_rc=0):
    try:
        rc = process.wait(240)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"the fleet did not finish within 240 s; its log: {log_path}") from None
    assert rc == expected_rc, f"beekon-fleet run exited {rc}:\n{log_path.read_text()[-3000:]}"
    return json.loads(report.read_text())


def run_fleet(workdir, ingest_url, extra=(), expected_rc=0):
    data, report, log_path = workdir / "fleet", workdir / "report.json", workdir / "fleet.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(fleet_command(data, ingest_url, report, extra), stdout=log,
                                   stderr=subprocess.STDOUT)
        return data, finish_fleet(process, log_path, report, expected_rc)


def psql_rows_command(dbname):
    """The shell command that prints the server's rows, as a user gives it to `run --stored-cmd`."""
    return (f"psql -h {PG['host']} -p {PG['port']} -U {PG['user']} -d {dbname} -At -F, "
            "-c 'select install_id, id from locations'")


def answered_fix_ids(server):
    """Every fix id the server answered 2xx for, from its answered log (written before each 2xx)."""
    ids = set()
    for line in server.answered_log.read_text().splitlines():
        ids.update(json.loads(line)["fix_ids"])
    return ids


def stored_fix_ids(dbname):
    return {row[0] for row in query(dbname, "SELECT id FROM locations")}


def held_more_than_once(dbname):
    return dict(query(dbname, "SELECT id, count(*) FROM locations GROUP BY id HAVING count(*) > 1"))


def assert_every_fix_heard_acknowledged(report):
    """Every fix the devices admitted ended acknowledged: each device heard a 2xx for it, and none
    is pending, rejected, deleted, expired or lost by its store. So a fix the server answered 2xx
    for and does not hold was heard acknowledged by its device: lost, by verify's definition."""
    fixes = report["fixes"]
    assert fixes["carried_over"] == 0, fixes
    assert fixes["admitted"] > 0, fixes
    assert fixes["acknowledged"] == fixes["admitted"], fixes
    for fate in ("pending", "rejected", "deleted", "expired", "lost", "unaccounted"):
        assert fixes[fate] == 0, f"{fate}: {fixes}"


def verify(dbname, data):
    """The documented pipeline, `psql ... -c 'select install_id, id from locations' |
    beekon-fleet verify --data DATA --stored - --json`: its exit code and JSON."""
    psql = subprocess.Popen(["psql", "-h", PG["host"], "-p", str(PG["port"]), "-U", PG["user"], "-d", dbname,
                             "-At", "-F,", "-c", "select install_id, id from locations"],
                            stdout=subprocess.PIPE)
    result = subprocess.run([BINARY, "verify", "--data", str(data), "--stored", "-", "--json"],
                            stdin=psql.stdout, capture_output=True, text=True, timeout=300)
    psql.stdout.close()
    psql_status = psql.wait()
    assert result.returncode in (0, 99), (
        f"beekon-fleet verify exited {result.returncode}: {result.stderr.strip()[-2000:]}")
    assert psql_status == 0, f"psql exited {psql_status}"
    return result.returncode, json.loads(result.stdout)


def example_fix_ids(answer, kind):
    return {example["fix_id"] for example in answer.get("examples", {}).get(kind, [])}


def post(url, body, encoding="gzip"):
    request = urllib.request.Request(url, data=gzip.compress(body) if encoding == "gzip" else body,
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "Content-Encoding": encoding})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_server_keeps_the_upload_contract(tmp_path, servers):
    """The server itself, before it judges verify: 400 for what can never be stored, 2xx for an
    upload, and a replay of it stored once (correct) or twice (no-dedupe)."""
    upload = {"schema_version": 1, "batch_id": "b-1", "session_id": "s-1", "sent_at": "2026-06-15T12:34:56.789Z",
              "device": {"install_id": "i-1", "platform": "ios", "sdk_version": "0.1.1"},
              "locations": [{"id": "f-1", "timestamp": "2026-06-15T12:34:10.000Z", "trigger": "interval",
                             "motion": "moving", "is_mock": False, "latitude": 52.5, "longitude": 13.4,
                             "accuracy": 5.2}],
              "geofence_events": [{"id": "g-1", "geofence_id": "home", "type": "exit",
                                   "timestamp": "2026-06-15T12:34:05.000Z"}]}
    for mode, rows in (("correct", 1), ("no-dedupe", 2)):
        dbname = fresh_database(f"pgcheck_contract_{mode.replace('-', '_')}")
        workdir = tmp_path / mode
        workdir.mkdir()
        server = IngestServer(workdir, dbname, mode, free_port(), "server.log")
        servers.append(server)
        ingest = server.url + "/ingest"
        assert post(ingest, b"not gzip", encoding="identity-but-not") == 400
        assert post(ingest, b"{not json") == 400
        assert post(ingest, json.dumps({**upload, "device": {}}).encode()) == 400
        assert post(ingest, json.dumps({**upload, "locations": [{"id": "f-2"}]}).encode()) == 400
        assert post(server.url + "/elsewhere", json.dumps(upload).encode()) == 404
        assert post(ingest, json.dumps(upload).encode()) == 200
        assert post(ingest, json.dumps(upload).encode()) == 200  # its 2xx was lost: sent again
        assert query(dbname, "SELECT install_id, id FROM locations") == [("i-1", "f-1")] * rows
        assert query(dbname, "SELECT count(*) FROM geofence_events")[0][0] == rows
        assert answered_fix_ids(server) == {"f-1"}
        assert server.stats()["rejected_uploads"] == 4


def test_correct_server_verify_reports_no_problem(tmp_path, servers):
    dbname = fresh_database("pgcheck_correct")
    server = IngestServer(tmp_path, dbname, "correct", free_port(), "server.log")
    servers.append(server)
    data, report = run_fleet(tmp_path, server.url)

    assert_every_fix_heard_acknowledged(report)
    # The faults did make devices re-send batches the server had stored: dedupe was exercised.
    assert report["duplicates"]["unheard_batches"] > 0, report["duplicates"]
    stored, answered = stored_fix_ids(dbname), answered_fix_ids(server)
    expected_lost = answered - stored
    expected_duplicates = held_more_than_once(dbname)
    rows = query(dbname, "SELECT count(*) FROM locations")[0][0]
    say(f"correct: expected lost 0 (computed {len(expected_lost)}), duplicates 0 (computed "
        f"{len(expected_duplicates)}); stored {rows} rows = {len(stored)} fixes = admitted "
        f"{report['fixes']['admitted']}; re-sent after an unheard 2xx: "
        f"{report['duplicates']['unheard_batches']} batches, {report['duplicates']['unheard_fixes']} fixes; "
        f"fleet digest {report['digest']}")
    assert not expected_lost and not expected_duplicates
    assert rows == len(stored) == report["fixes"]["admitted"]

    code, answer = verify(dbname, data)
    assert (answer["fixes"]["lost"], answer["fixes"]["duplicates"]) == (0, 0), answer["fixes"]
    assert answer["fixes"]["acknowledged_stored"] == len(stored), answer["fixes"]
    assert (code, answer["verdict"]) == (0, "pass"), answer


def test_no_dedupe_server_verify_reports_exactly_the_duplicates(tmp_path, servers):
    dbname = fresh_database("pgcheck_no_dedupe")
    server = IngestServer(tmp_path, dbname, "no-dedupe", free_port(), "server.log")
    servers.append(server)
    data, report = run_fleet(tmp_path, server.url)

    assert_every_fix_heard_acknowledged(report)
    stored = stored_fix_ids(dbname)
    expected = held_more_than_once(dbname)
    extra_rows = sum(count - 1 for count in expected.values())
    expected_lost = answered_fix_ids(server) - stored
    say(f"no-dedupe: expected duplicates {len(expected)} fix ids ({extra_rows} extra rows), lost "
        f"{len(expected_lost)}; stored {len(stored)} distinct fixes of {report['fixes']['admitted']} admitted; "
        f"the fleet re-sent {report['duplicates']['unheard_fixes']} fixes after an unheard 2xx; "
        f"fleet digest {report['digest']}")
    assert len(expected) > 0, "no fix was stored twice: the faults did not exercise the missing dedupe"
    assert not expected_lost
    assert len(stored) == report["fixes"]["admitted"]
    # Each fix the fleet sent again after an unheard 2xx is one extra row here, and nothing else is.
    assert extra_rows == report["duplicates"]["unheard_fixes"], report["duplicates"]

    code, answer = verify(dbname, data)
    assert answer["fixes"]["duplicates"] == len(expected), answer["fixes"]
    assert answer["fixes"]["duplicate_rows"] == extra_rows, answer["fixes"]
    assert answer["fixes"]["lost"] == 0, answer["fixes"]
    examples = example_fix_ids(answer, "duplicates")
    assert examples and examples <= set(expected), (examples, answer.get("examples"))
    assert (code, answer["verdict"]) == (99, "fail"), answer


def test_ack_before_commit_server_killed_mid_run_verify_reports_exactly_the_lost(tmp_path, servers):
    """The server answers 200 before its writer commits, and is SIGKILLed in the middle of the
    fleet's run, then started again (correct, same database and port) while the fleet runs on.

    Why the expected lost count is exact, however the kill falls against requests in flight:
      - the server appends a batch's fix ids to its answered log before each 2xx leaves it, so
        every 2xx any device heard is in the log (an entry whose 2xx died with the process is
        there too, but its device heard no 2xx: see the next point);
      - the run ends with every admitted fix acknowledged (assert_every_fix_heard_acknowledged:
        none pending, rejected, deleted, expired), so every fix's device heard a 2xx for it: one
        whose 2xx was lost in the kill was re-sent, under the same batch id, and answered again;
      - the restarted server is correct: each 2xx it gave followed its commit.
    So a fix in the answered log that the database does not hold had its 2xx heard (second point)
    and no answer that followed a commit (third point): it is exactly a fix whose device heard a
    2xx the server does not hold. And every such fix is in the log (first point). Expected lost =
    answered log - database, as sets of fix ids; the kill's timing changes which fixes, not the
    exactness. Cross-check: the log's distinct fix ids are the run's admitted fixes.
    """
    dbname = fresh_database("pgcheck_ack_before_commit")
    port = free_port()
    server = IngestServer(tmp_path, dbname, "ack-before-commit", port, "server-ack.log")
    servers.append(server)
    data, report_path, log_path = tmp_path / "fleet", tmp_path / "report.json", tmp_path / "fleet.log"
    with open(log_path, "w") as log:
        fleet = subprocess.Popen(fleet_command(data, server.url, report_path), stdout=log, stderr=subprocess.STDOUT)
        # Kill mid-run, while the writer holds acknowledged uploads it has not committed: past
        # KILL_AFTER_UPLOADS answers, after at least one commit, with uploads queued and the next
        # commit at least a second away.
        deadline = time.monotonic() + 120
        while True:
            assert fleet.poll() is None, f"the fleet ended before the kill:\n{log_path.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"no moment to kill the server came: {server.stats()}"
            stats = server.stats()
            if (stats["answered_uploads"] >= KILL_AFTER_UPLOADS and stats["committed_uploads"] > 0
                    and stats["queued_uploads"] > 0 and stats["seconds_since_flush"] < stats["flush_interval"] - 1):
                break
            time.sleep(0.02)
        server.kill()
        say(f"ack-before-commit: SIGKILL after {stats['answered_uploads']} answered uploads, "
            f"{stats['committed_uploads']} committed, {stats['queued_uploads']} queued")
        restarted = IngestServer(tmp_path, dbname, "correct", port, "server-correct.log")
        servers.append(restarted)
        report = finish_fleet(fleet, log_path, report_path)

    assert_every_fix_heard_acknowledged(report)
    answered, stored = answered_fix_ids(restarted), stored_fix_ids(dbname)
    expected_lost = answered - stored
    duplicates = held_more_than_once(dbname)
    say(f"ack-before-commit: expected lost {len(expected_lost)}, duplicates {len(duplicates)}; "
        f"answered {len(answered)} distinct fixes, stored {len(stored)}, admitted {report['fixes']['admitted']}; "
        f"after the restart the server answered {restarted.stats()['answered_uploads']} uploads; "
        f"fleet digest {report['digest']}")
    assert len(answered) == report["fixes"]["admitted"], "the answered log is not the run's fixes"
    assert stored <= answered
    assert len(expected_lost) > 0, "the kill lost no acknowledged fix"
    assert not duplicates

    code, answer = verify(dbname, data)
    assert answer["fixes"]["lost"] == len(expected_lost), answer["fixes"]
    assert answer["fixes"]["duplicates"] == 0, answer["fixes"]
    examples = example_fix_ids(answer, "lost")
    assert examples and examples <= expected_lost, (examples, answer.get("examples"))
    assert (code, answer["verdict"]) == (99, "fail"), answer


def test_run_verify_gives_the_whole_verdict_in_one_command(tmp_path, servers):
    """`run --verify --stored-cmd "psql ..."`: the run and the server's store judged together, the
    duplicates of a server that does not dedupe failing the run (exit 99) and in its report."""
    dbname = fresh_database("pgcheck_run_verify")
    server = IngestServer(tmp_path, dbname, "no-dedupe", free_port(), "server.log")
    servers.append(server)
    data, report = run_fleet(
        tmp_path, server.url, extra=["--verify", "--stored-cmd", psql_rows_command(dbname)], expected_rc=99)
    expected = held_more_than_once(dbname)
    say(f"run --verify: expected duplicates {len(expected)}; exit code {report['exit_code']}")
    assert len(expected) > 0
    truth = report["server_truth"]
    assert truth["fixes"]["duplicates"] == len(expected), truth["fixes"]
    assert truth["fixes"]["lost"] == 0 and truth["verdict"] == "fail", truth
    assert report["exit_code"] == 99 and all(t["passed"] for t in report["thresholds"]), report["thresholds"]
