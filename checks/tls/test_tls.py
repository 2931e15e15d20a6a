"""HTTP/2 over TLS, source addresses and the virtual idle close, end to end (issue #38).

A certificate for 127.0.0.1 (openssl), Debian's nginx terminating TLS with HTTP/2 in front of the
reference receiver (`beekon-fleet receive`, a separate process), and fleet.yaml run through it at
max warp with --ca-file and --source-addresses 127.0.0.2-127.0.0.41. nginx logs each request's
client address, protocol, TLS version and connection serial number; the tests hold that log to
what the fleet was told to do:

    protocol     every upload HTTP/2.0 over TLSv1.3 (ALPN); with --http2 off, HTTP/1.1
    addresses    40 client addresses, one per phone, in the fleet's order
    connections  a background phone (an upload every 15 virtual minutes, past the 5-minute idle
                 close) opens a new connection for each round of uploads; a foreground phone
                 (every minute) keeps one connection for the whole run
    the store    `beekon-fleet verify` finds every acknowledged fix in the receiver's database

Run by checks/tls/run.sh, which sets BEEKON_FLEET (the binary).
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
FLEET_FILE = HERE / "fleet.yaml"
BINARY = os.environ.get("BEEKON_FLEET", str(HERE.parent.parent / ".build/debug/beekon-fleet"))
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
ADDRESSES = [f"127.0.0.{last}" for last in range(2, 42)]
BACKGROUND, FOREGROUND = ADDRESSES[:20], ADDRESSES[20:]
VIRTUAL = "2h"
FIELDS = ["address", "protocol", "tls", "connection", "connection_requests", "status", "method", "uri"]


def say(line):
    print(f"tls-check: {line}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, log_path, what):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{what} exited ({process.returncode}): {Path(log_path).read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on 127.0.0.1:{port} within 20 s")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def nginx_conf(prefix, port, upstream):
    return f"""
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format fleet '$remote_addr $server_protocol $ssl_protocol $connection $connection_requests $status '
                     '$request_method $uri';
    access_log {prefix}/access.log fleet;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    client_body_buffer_size 1m;
    # Idle connections are the fleet's to close (on its virtual clock), not nginx's.
    keepalive_timeout 600s;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_certificate {prefix}/cert.pem;
        ssl_certificate_key {prefix}/key.pem;
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }}
    }}
}}
"""


def read_log(text):
    rows = []
    for line in text.splitlines():
        parts = line.split(" ")
        assert len(parts) == len(FIELDS), f"an access log line of another shape: {line!r}"
        rows.append(dict(zip(FIELDS, parts)))
    return [row for row in rows if row["method"] == "POST" and row["uri"] == "/ingest"]


@pytest.fixture(scope="module")
def setup():
    """The certificate, the receiver and nginx, up for the module; everything removed after."""
    workdir = Path(tempfile.mkdtemp(prefix="beekon-tls."))
    processes = []
    try:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
             "-keyout", str(workdir / "key.pem"), "-out", str(workdir / "cert.pem")],
            check=True, capture_output=True)
        receiver_port, nginx_port = free_port(), free_port()
        receiver_log = workdir / "receiver.log"
        with open(receiver_log, "w") as log:
            processes.append(subprocess.Popen(
                [BINARY, "receive", "--listen", f"127.0.0.1:{receiver_port}", "--db", str(workdir / "ingest.db")],
                stdout=log, stderr=subprocess.STDOUT))
        wait_for_port(receiver_port, processes[-1], receiver_log, "the receiver")
        for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (workdir / folder).mkdir(mode=0o777)
        (workdir / "nginx.conf").write_text(nginx_conf(workdir, nginx_port, receiver_port))
        nginx_log = workdir / "nginx.out"
        with open(nginx_log, "w") as log:
            processes.append(subprocess.Popen(
                [NGINX, "-c", str(workdir / "nginx.conf"), "-p", str(workdir), "-g", "daemon off;"],
                stdout=log, stderr=subprocess.STDOUT))
        wait_for_port(nginx_port, processes[-1], workdir / "error.log", "nginx")
        yield SimpleNamespace(dir=workdir, url=f"https://127.0.0.1:{nginx_port}/ingest",
                              receiver=f"http://127.0.0.1:{receiver_port}")
    finally:
        for process in reversed(processes):
            stop(process)
        shutil.rmtree(workdir, ignore_errors=True)


def run_fleet(setup, name, *extra):
    """fleet.yaml through nginx on a fresh data folder; returns the report and the lines nginx
    logged during the run."""
    data, report = setup.dir / f"data-{name}", setup.dir / f"{name}.json"
    log = setup.dir / "access.log"
    before = log.stat().st_size if log.exists() else 0
    command = [BINARY, "run", str(FLEET_FILE), "--ingest", setup.url, "--ca-file", str(setup.dir / "cert.pem"),
               "--source-addresses", f"{ADDRESSES[0]}-{ADDRESSES[-1]}", "--data", str(data), "--deterministic",
               "--warp", "max", "--for", VIRTUAL, "--admin", "off", "--report", str(report), *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    (setup.dir / f"{name}.log").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, f"run {name} exited {result.returncode}:\n{(result.stdout + result.stderr)[-3000:]}"
    with open(log, "rb") as file:
        file.seek(before)
        lines = file.read().decode()
    return SimpleNamespace(data=data, report=json.loads(report.read_text()), rows=read_log(lines))


@pytest.fixture(scope="module")
def http2(setup):
    return run_fleet(setup, "http2")


def test_uploads_go_over_http2_and_tls13_by_alpn(http2):
    rows = http2.rows
    uploads = http2.report["uploads"]["total"]
    say(f"{len(rows)} uploads through nginx, {uploads} heard by the fleet")
    assert len(rows) == uploads > 100
    assert {row["protocol"] for row in rows} == {"HTTP/2.0"}
    assert {row["tls"] for row in rows} == {"TLSv1.3"}
    assert {row["status"] for row in rows} == {"200"}


def test_each_phone_comes_from_its_own_address(http2):
    by_address = defaultdict(int)
    for row in http2.rows:
        by_address[row["address"]] += 1
    assert sorted(by_address) == sorted(ADDRESSES)
    devices = json.loads((http2.data / "devices.json").read_text())
    assert len(devices) == 40


def test_a_connection_idle_past_the_close_is_not_reused(http2):
    connections = defaultdict(set)
    for row in http2.rows:
        connections[row["address"]].add(row["connection"])
    background = [len(connections[address]) for address in BACKGROUND]
    foreground = [len(connections[address]) for address in FOREGROUND]
    say(f"connections per background phone {sorted(background)}, per foreground phone {sorted(foreground)}")
    # Every minute, never idle 5 minutes: one connection for two virtual hours.
    assert foreground == [1] * 20
    # Every 15 minutes: a new connection for each round (2 h: 7 or 8 rounds after the first fixes).
    assert min(background) >= 6
    # A connection is never shared by two phones.
    owners = defaultdict(set)
    for row in http2.rows:
        owners[row["connection"]].add(row["address"])
    assert all(len(addresses) == 1 for addresses in owners.values())


def test_the_server_stored_every_acknowledged_fix(setup, http2):
    result = subprocess.run(
        [BINARY, "verify", "--data", str(http2.data), "--db", str(setup.dir / "ingest.db"), "--json"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    truth = json.loads(result.stdout)
    acknowledged = http2.report["fixes"]["acknowledged"]
    assert truth["verdict"] == "pass"
    assert truth["fixes"]["acknowledged_stored"] == acknowledged > 0
    assert truth["fixes"]["lost"] == 0


def test_http2_off_speaks_http11(setup, http2):
    off = run_fleet(setup, "http11", "--http2", "off")
    assert {row["protocol"] for row in off.rows} == {"HTTP/1.1"}
    assert off.report["digest"] == http2.report["digest"], "the protocol is not part of what was sent"
