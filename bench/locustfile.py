"""Locust FastHttpUser uploading Beekon batches: what `beekon-bench upload` runs beside the fleet.

Each request builds a fresh batch as a Locust user would write it: the SDK's upload envelope
(schema_version 1, seed 05's example) with new UUIDv7s and timestamps for the batch and every
fix, encoded with json and gzipped with Python's gzip, POSTed with the SDK's headers
(Content-Type: application/json, Content-Encoding: gzip).

Run headless in one process, e.g.

    locust -f bench/locustfile.py --headless -u 64 -r 64 -t 10s --host http://127.0.0.1:8080 \
        --only-summary --fixes 100 --beekon-result /tmp/locust-100.json

With --beekon-result, the file measures its own steady window, the second half of --run-time (the
users have all spawned and Python has long finished importing): the uploads answered 2xx, the
fixes in them, the failures, the wall seconds, and the CPU seconds (user + system, from
/proc/PID/stat) of this process and its children, written as one JSON object when the window
ends.
"""

import gzip
import json
import os
import random
import time
from datetime import datetime, timezone

import gevent
from locust import FastHttpUser, events, task


@events.init_command_line_parser.add_listener
def _arguments(parser):
    parser.add_argument("--fixes", type=int, default=1, help="Fixes per batch (1 to 10000).")
    parser.add_argument("--ingest-path", default="/ingest", help="The path uploads are POSTed to.")
    parser.add_argument("--beekon-result", default="", help="Where to write the steady window's figures (JSON).")


def uuid7():
    """A UUIDv7: 48 bits of Unix milliseconds, the version, 74 random bits and the variant."""
    millis = time.time_ns() // 1_000_000
    value = (millis << 80) | int.from_bytes(os.urandom(10), "big")
    value = (value & ~(0xF << 76)) | (0x7 << 76)
    value = (value & ~(0x3 << 62)) | (0x2 << 62)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def timestamp(seconds):
    """ISO-8601 UTC with exactly three fractional digits and a literal Z."""
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Counts:
    """Uploads answered 2xx, the fixes they carried, and the rest, over the whole run."""

    uploads = 0
    fixes = 0
    failures = 0


class BeekonDevice(FastHttpUser):
    """One install uploading batches back to back, as the fleet's devices do with every-fix."""

    def on_start(self):
        self.install_id = uuid7()
        self.session_id = uuid7()
        self.latitude = 52.520008 + random.uniform(-0.01, 0.01)
        self.longitude = 13.404954 + random.uniform(-0.01, 0.01)

    def batch(self, count):
        now = time.time()
        locations = []
        for index in range(count):
            self.latitude += random.uniform(-0.00002, 0.00002)
            self.longitude += random.uniform(-0.00002, 0.00003)
            locations.append({
                "id": uuid7(),
                "timestamp": timestamp(now - (count - index)),
                "trigger": "interval",
                "motion": "moving",
                "is_mock": False,
                "latitude": round(self.latitude, 7),
                "longitude": round(self.longitude, 7),
                "accuracy": round(random.uniform(3, 12), 1),
                "speed": round(random.uniform(1.2, 1.6), 2),
                "bearing": round(random.uniform(0, 360), 1),
                "altitude": round(34 + random.uniform(-2, 2), 1),
            })
        return {
            "schema_version": 1,
            "batch_id": uuid7(),
            "session_id": self.session_id,
            "sent_at": timestamp(now),
            "device": {"install_id": self.install_id, "platform": "android", "sdk_version": "0.1.1",
                       "model": "Pixel 8"},
            "extras": {"user_id": "courier-0042", "fleet": "bench"},
            "locations": locations,
            "geofence_events": [],
        }

    @task
    def upload(self):
        options = self.environment.parsed_options
        count = options.fixes
        body = gzip.compress(json.dumps(self.batch(count), separators=(",", ":")).encode())
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        with self.client.post(options.ingest_path, data=body, headers=headers, catch_response=True) as response:
            if 200 <= response.status_code < 300:
                Counts.uploads += 1
                Counts.fixes += count
                response.success()
            else:
                Counts.failures += 1
                response.failure(f"status {response.status_code}")


def _cpu_seconds():
    """User + system CPU seconds of this process and of its children, from /proc/PID/stat."""
    own = os.getpid()
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                text = file.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        # After "pid (comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        if int(entry) == own or int(fields[1]) == own:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _sample():
    return {"wall": time.monotonic(), "cpu": _cpu_seconds(), "uploads": Counts.uploads, "fixes": Counts.fixes,
            "failures": Counts.failures}


class Window:
    """The steady window's first sample, taken half the run time after the test starts."""

    first = None


def _measure_from_half(environment):
    run_time = environment.parsed_options.run_time or 0
    if run_time >= 2:
        gevent.sleep(run_time / 2)
        Window.first = _sample()


@events.test_start.add_listener
def _start(environment, **_):
    if environment.parsed_options.beekon_result:
        gevent.spawn(_measure_from_half, environment)


@events.test_stopping.add_listener
def _stopping(environment, **_):
    """The window ends as the run time is up, before the users are stopped."""
    path = environment.parsed_options.beekon_result
    first = Window.first
    if not path or first is None:
        return
    last = _sample()
    Window.first = None  # once: a second stop() fires test_stopping again
    result = {
        "seconds": last["wall"] - first["wall"],
        "cpu_seconds": last["cpu"] - first["cpu"],
        "uploads": last["uploads"] - first["uploads"],
        "fixes": last["fixes"] - first["fixes"],
        "failures": last["failures"] - first["failures"],
        "fixes_per_batch": environment.parsed_options.fixes,
        "users": environment.runner.user_count if environment.runner else 0,
    }
    with open(path, "w") as file:
        json.dump(result, file)
