#!/usr/bin/env python3
"""A small Beekon ingest server of the kind a user writes: Python's http.server and PostgreSQL
(psycopg 3), to seed 05's "Build your ingest endpoint" contract. POST gzipped JSON to --path;
2xx means "I have it", 400 a payload that can never be stored, 503 a database that failed.

Three modes, one honest and two with the bugs such servers ship with:

  correct            one transaction per upload: the batch and its rows, each
                     `INSERT ... ON CONFLICT DO NOTHING` against a primary key on batch_id and on
                     each fix and geofence-event id; COMMIT, then 200. A re-sent batch is harmless.
  ack-before-commit  answers 200 at once and hands the upload to a background writer that stores
                     what has queued every --flush-interval seconds (the same deduping inserts, one
                     transaction per flush). Whatever is queued when the process dies is gone,
                     though the devices were told it was stored.
  no-dedupe          no uniqueness at all: every upload's rows are inserted as they come, so a batch
                     sent again (its 2xx never reached the phone) is stored again.

Before each 2xx it appends one JSON line to --answered-log: {"mode", "batch_id", "install_id",
"fix_ids"}, written to the file (not a userspace buffer) before the answer goes out, so it
survives a SIGKILL; a test reads it to know exactly what the server said it had.

GET /healthz answers 200 once the database is reachable; GET /stats the server's counts.

    ingest_server.py --dsn 'host=127.0.0.1 port=5432 dbname=ingest user=postgres' \
        --listen 127.0.0.1:8081 --mode correct --answered-log answered.jsonl
"""

import argparse
import datetime
import json
import os
import queue
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg
from psycopg_pool import ConnectionPool

MODES = ("correct", "ack-before-commit", "no-dedupe")
MAX_BODY = 4 << 20  # bytes on the wire and after gunzip, as the reference receiver's default

# Uniqueness is the whole difference between the schemas: with it, ON CONFLICT DO NOTHING makes
# a replay harmless; without it (no-dedupe), every replay adds rows.
SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id    text NOT NULL {pk},
    install_id  text NOT NULL,
    session_id  text NOT NULL,
    sent_at     timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    locations   integer NOT NULL,
    geofence_events integer NOT NULL,
    extras      jsonb
);
CREATE TABLE IF NOT EXISTS locations (
    id          text NOT NULL {pk},
    batch_id    text NOT NULL,
    install_id  text NOT NULL,
    session_id  text NOT NULL,
    ts          timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    trigger     text NOT NULL,
    motion      text NOT NULL,
    is_mock     boolean NOT NULL,
    lat         double precision NOT NULL,
    lng         double precision NOT NULL,
    accuracy    double precision,
    speed       double precision,
    bearing     double precision,
    altitude    double precision,
    activity    text,
    quality     text
);
CREATE INDEX IF NOT EXISTS locations_by_install ON locations (install_id, ts);
CREATE TABLE IF NOT EXISTS geofence_events (
    id          text NOT NULL {pk},
    batch_id    text NOT NULL,
    install_id  text NOT NULL,
    session_id  text NOT NULL,
    geofence_id text NOT NULL,
    type        text NOT NULL,
    ts          timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
"""

LOCATION_COLUMNS = ("id, batch_id, install_id, session_id, ts, trigger, motion, is_mock, lat, lng, "
                    "accuracy, speed, bearing, altitude, activity, quality")


class BadPayload(ValueError):
    """The upload can never be stored as sent: answered 400 (the SDK drops it, no retry)."""


def _string(obj, key, where, optional=False):
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise BadPayload(f"{where}.{key}: expected a non-empty string")
    return value


def _number(obj, key, where, optional=False):
    value = obj.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadPayload(f"{where}.{key}: expected a number")
    return float(value)


def _instant(obj, key, where):
    text = _string(obj, key, where)
    try:
        instant = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise BadPayload(f"{where}.{key}: not an ISO-8601 instant: {text!r}") from None
    if instant.tzinfo is None:
        raise BadPayload(f"{where}.{key}: the instant has no zone: {text!r}")
    return instant


def parse_upload(body, content_encoding):
    """The upload as rows to insert, or BadPayload."""
    if content_encoding == "gzip":
        try:
            inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            body = inflater.decompress(body, MAX_BODY)
            if inflater.unconsumed_tail:
                raise BadPayload(f"the body inflates past {MAX_BODY} bytes")
            if not inflater.eof:
                raise BadPayload("the gzip stream is truncated")
        except zlib.error as error:
            raise BadPayload(f"not gzip: {error}") from None
    elif content_encoding not in ("", "identity"):
        raise BadPayload(f"unsupported Content-Encoding {content_encoding!r}")
    try:
        envelope = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadPayload(f"not JSON: {error}") from None
    if not isinstance(envelope, dict):
        raise BadPayload("the upload is not a JSON object")
    if envelope.get("schema_version") != 1 or isinstance(envelope.get("schema_version"), bool):
        raise BadPayload("schema_version: expected 1")
    batch_id = _string(envelope, "batch_id", "$")
    session_id = _string(envelope, "session_id", "$")
    sent_at = _instant(envelope, "sent_at", "$")
    device = envelope.get("device")
    if not isinstance(device, dict):
        raise BadPayload("$.device: expected an object")
    install_id = _string(device, "install_id", "$.device")
    extras = envelope.get("extras")
    if extras is not None and not isinstance(extras, dict):
        raise BadPayload("$.extras: expected an object")
    locations = envelope.get("locations")
    if not isinstance(locations, list):
        raise BadPayload("$.locations: expected an array")
    events = envelope.get("geofence_events", [])
    if not isinstance(events, list):
        raise BadPayload("$.geofence_events: expected an array")

    location_rows = []
    for index, fix in enumerate(locations):
        where = f"$.locations[{index}]"
        if not isinstance(fix, dict):
            raise BadPayload(f"{where}: expected an object")
        if not isinstance(fix.get("is_mock"), bool):
            raise BadPayload(f"{where}.is_mock: expected a boolean")
        lat, lng = _number(fix, "latitude", where), _number(fix, "longitude", where)
        if not (-90 <= lat <= 90 and -180 <= lng <= 180):
            raise BadPayload(f"{where}: latitude/longitude out of range")
        location_rows.append((
            _string(fix, "id", where), batch_id, install_id, session_id, _instant(fix, "timestamp", where),
            _string(fix, "trigger", where), _string(fix, "motion", where), fix["is_mock"], lat, lng,
            _number(fix, "accuracy", where, True), _number(fix, "speed", where, True),
            _number(fix, "bearing", where, True), _number(fix, "altitude", where, True),
            _string(fix, "activity", where, True), _string(fix, "quality", where, True),
        ))
    event_rows = []
    for index, event in enumerate(events):
        where = f"$.geofence_events[{index}]"
        if not isinstance(event, dict):
            raise BadPayload(f"{where}: expected an object")
        kind = _string(event, "type", where)
        if kind not in ("enter", "exit"):
            raise BadPayload(f"{where}.type: expected enter or exit")
        event_rows.append((_string(event, "id", where), batch_id, install_id, session_id,
                           _string(event, "geofence_id", where), kind, _instant(event, "timestamp", where)))
    batch_row = (batch_id, install_id, session_id, sent_at, len(location_rows), len(event_rows),
                 json.dumps(extras) if extras is not None else None)
    return {"batch": batch_row, "locations": location_rows, "events": event_rows,
            "batch_id": batch_id, "install_id": install_id}


class Store:
    """The database side: the schema and one function that writes uploads in one transaction."""

    def __init__(self, dsn, dedupe):
        self.dedupe = dedupe
        # Opened here, so a server that cannot reach its database fails at start, not at the
        # first upload.
        self.pool = ConnectionPool(dsn, min_size=2, max_size=8, open=True, timeout=10)
        self.pool.wait(timeout=10)
        pk = "PRIMARY KEY" if dedupe else ""
        with self.pool.connection() as conn:
            conn.execute(SCHEMA.format(pk=pk))
        conflict = " ON CONFLICT DO NOTHING" if dedupe else ""
        self.insert_batch = ("INSERT INTO batches (batch_id, install_id, session_id, sent_at, locations, "
                             "geofence_events, extras) VALUES (%s, %s, %s, %s, %s, %s, %s)" + conflict)
        self.insert_location = (f"INSERT INTO locations ({LOCATION_COLUMNS}) VALUES "
                                f"({', '.join(['%s'] * 16)})" + conflict)
        self.insert_event = ("INSERT INTO geofence_events (id, batch_id, install_id, session_id, "
                             "geofence_id, type, ts) VALUES (%s, %s, %s, %s, %s, %s, %s)" + conflict)

    def write(self, uploads):
        """Stores the uploads in one transaction; returns once it has committed. Every row is
        offered even for a batch_id already stored: with dedupe, rows already held are skipped, so
        a replay that carries fewer or other rows still lands what is new."""
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            for upload in uploads:
                cur.execute(self.insert_batch, upload["batch"])
                if upload["locations"]:
                    cur.executemany(self.insert_location, upload["locations"])
                if upload["events"]:
                    cur.executemany(self.insert_event, upload["events"])

    def ping(self):
        with self.pool.connection() as conn:
            conn.execute("SELECT 1")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # a restart on the same port right after a SIGKILL

    def __init__(self, address, store, mode, path, answered_log, flush_interval):
        super().__init__(address, Handler)
        self.store, self.mode, self.path = store, mode, path
        self.flush_interval = flush_interval
        self.log_fd = os.open(answered_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.lock = threading.Lock()
        self.counts = {"answered_uploads": 0, "answered_fixes": 0, "committed_uploads": 0,
                       "rejected_uploads": 0, "failed_uploads": 0, "flushes": 0}
        self.queue = queue.Queue()
        self.last_flush = time.monotonic()
        if mode == "ack-before-commit":
            threading.Thread(target=self.writer, name="writer", daemon=True).start()

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def answered(self, upload):
        """Records, before the 2xx leaves, that this upload is answered 2xx."""
        line = json.dumps({"mode": self.mode, "batch_id": upload["batch_id"],
                           "install_id": upload["install_id"],
                           "fix_ids": [row[0] for row in upload["locations"]]}) + "\n"
        with self.lock:
            os.write(self.log_fd, line.encode())  # one write(2) on O_APPEND: whole lines
            self.counts["answered_uploads"] += 1
            self.counts["answered_fixes"] += len(upload["locations"])

    def writer(self):
        """ack-before-commit's write-behind: every flush_interval, store all that queued, in one
        transaction. Nothing makes the queue durable: that is the bug."""
        while True:
            time.sleep(self.flush_interval)
            pending = []
            while True:
                try:
                    pending.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            if pending:
                try:
                    self.store.write(pending)
                    self.count("committed_uploads", len(pending))
                except psycopg.Error as error:
                    # Already acknowledged: nothing to tell the devices. Such servers log it.
                    print(f"ingest: writer: {len(pending)} acknowledged uploads not stored: {error}",
                          file=sys.stderr, flush=True)
            with self.lock:
                self.counts["flushes"] += 1
                self.last_flush = time.monotonic()

    def stats(self):
        with self.lock:
            stats = dict(self.counts)
            stats["seconds_since_flush"] = round(time.monotonic() - self.last_flush, 3)
        stats["mode"] = self.mode
        stats["queued_uploads"] = self.queue.qsize()
        stats["flush_interval"] = self.flush_interval
        return stats


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as libcurl expects
    server_version = "beekon-pg-ingest/1"

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        pass  # one line per upload would drown the test's output; the answered log says it all

    def answer(self, status, body=None):
        payload = json.dumps(body if body is not None else {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        if self.path == "/healthz":
            try:
                self.server.store.ping()
            except psycopg.Error as error:
                return self.answer(503, {"error": str(error)})
            return self.answer(200, {"ok": True})
        if self.path == "/stats":
            return self.answer(200, self.server.stats())
        return self.answer(404, {"error": "not found"})

    def do_POST(self):
        server = self.server
        if self.path != server.path:
            return self.answer(404, {"error": "not found"})
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            return self.answer(411, {"error": "Content-Length required"})
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True
            return self.answer(411, {"error": "Content-Length required"})
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return self.answer(413, {"error": f"body over {MAX_BODY} bytes"})
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            return None  # the client went away mid-body: nothing to answer
        try:
            upload = parse_upload(body, self.headers.get("Content-Encoding", "").strip().lower())
        except BadPayload as error:
            server.count("rejected_uploads")
            return self.answer(400, {"error": str(error)})

        if server.mode == "ack-before-commit":
            server.answered(upload)
            server.queue.put(upload)
            return self.answer(200, {"accepted": len(upload["locations"])})
        try:
            server.store.write([upload])
        except psycopg.Error as error:
            server.count("failed_uploads")
            print(f"ingest: batch {upload['batch_id']}: {error}", file=sys.stderr, flush=True)
            return self.answer(503, {"error": "database unavailable"})
        server.count("committed_uploads")
        server.answered(upload)
        return self.answer(200, {"accepted": len(upload["locations"])})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", required=True, help="libpq connection string of the database")
    parser.add_argument("--listen", default="127.0.0.1:8081", help="ADDR:PORT (default %(default)s)")
    parser.add_argument("--path", default="/ingest", help="the ingest path (default %(default)s)")
    parser.add_argument("--mode", choices=MODES, default="correct")
    parser.add_argument("--answered-log", required=True, help="append a JSON line per 2xx here")
    parser.add_argument("--flush-interval", type=float, default=2.0,
                        help="ack-before-commit: seconds between the writer's commits (default %(default)s)")
    args = parser.parse_args()
    host, _, port = args.listen.rpartition(":")
    store = Store(args.dsn, dedupe=args.mode != "no-dedupe")
    server = Server((host, int(port)), store, args.mode, args.path, args.answered_log, args.flush_interval)
    print(f"ingest: {args.mode} on http://{host}:{server.server_address[1]}{args.path}", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
