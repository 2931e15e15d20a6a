#!/bin/sh
# An example CI job for a server build (issue #37): start the build under test, run a fleet
# against it, judge it against the last good build's report, and leave JUnit XML and a Markdown
# summary for the CI to show. Plain POSIX sh; runs as is against the reference receiver:
#
#   BEEKON_FLEET=.build/release/beekon-fleet sh docs/ci-example.sh
#
# The first run (no baseline yet) is a plain run whose report becomes the baseline; later runs
# add --baseline, so the change thresholds below judge this build against it. The report is kept
# as the next baseline only when the run passed. Exits with the fleet's code: 0 passed, 99 a
# threshold not met, 64 bad input (a baseline of another fleet, seed or start: delete it), 1 the
# run could not go on. Keep BASELINE where the next job finds it (a CI cache or artifact).
set -u

BEEKON_FLEET=${BEEKON_FLEET:-beekon-fleet}
FLEET=${FLEET:-fleets/demo.yaml}
BASELINE=${BASELINE:-beekon-baseline.json}
OUT_DIR=${OUT_DIR:-beekon-ci}
PORT=${PORT:-8081}
# The server under test; it must listen on $PORT. The default is the reference receiver on a
# fresh database (paths with spaces need quoting inside the command).
SERVER_CMD=${SERVER_CMD:-"$BEEKON_FLEET receive --listen 127.0.0.1:$PORT --db $OUT_DIR/ingest.db"}
INGEST_URL=${INGEST_URL:-"http://127.0.0.1:$PORT/ingest"}
WAIT_SECONDS=${WAIT_SECONDS:-30}
# Deterministic timing and a pinned start and virtual length: two builds' runs send the same
# requests, so every difference is the server's (docs/compare.md).
CLOCK_START=${CLOCK_START:-2026-01-05T08:00:00Z}
FOR=${FOR:-10m}
# Judged against the baseline, ';' between them. A short run's p99 is noisy: give it room.
THRESHOLDS=${THRESHOLDS:-"upload.errors.rate < +0.5pp;server.latency.p99 < +25%"}

say() { echo "ci-example: $*"; }

mkdir -p "$OUT_DIR" || exit 1
rm -rf "$OUT_DIR/data" "$OUT_DIR/ingest.db" "$OUT_DIR/ingest.db-wal" "$OUT_DIR/ingest.db-shm" \
    "$OUT_DIR/report.json" "$OUT_DIR/junit.xml" "$OUT_DIR/summary.md"

server_pid=
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
        server_pid=
    fi
}
trap stop_server EXIT
trap 'stop_server; exit 130' INT
trap 'stop_server; exit 143' TERM

say "starting the server: $SERVER_CMD"
# exec: $! is the server itself, not a shell around it, so stop_server reaches it.
sh -c "exec $SERVER_CMD" >"$OUT_DIR/server.log" 2>&1 &
server_pid=$!

# Listening once it answers HTTP at all (any status); curl, else wget.
answers() {
    if command -v curl >/dev/null 2>&1; then
        curl -s -o /dev/null --max-time 2 "$INGEST_URL"
    else
        wget -q -O /dev/null -T 2 -t 1 "$INGEST_URL"
        rc=$?
        [ "$rc" -eq 0 ] || [ "$rc" -eq 8 ] # 8: the server answered with an error status
    fi
}
waited=0
until answers; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        server_pid=
        say "the server exited before it listened; its log:"
        cat "$OUT_DIR/server.log"
        exit 1
    fi
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
        say "the server did not answer at $INGEST_URL within $WAIT_SECONDS s"
        exit 1
    fi
    sleep 1
    waited=$((waited + 1))
done
say "the server answers at $INGEST_URL"

set -- run "$FLEET" --ingest "$INGEST_URL" --data "$OUT_DIR/data" --deterministic --warp max \
    --clock-start "$CLOCK_START" --for "$FOR" --admin off --report "$OUT_DIR/report.json" \
    --junit "$OUT_DIR/junit.xml" --markdown "$OUT_DIR/summary.md"
if [ -f "$BASELINE" ]; then
    say "comparing with the baseline $BASELINE"
    set -- "$@" --baseline "$BASELINE"
    # Split THRESHOLDS on ';' only, with globbing off ('*' and '?' stay as written).
    set -f
    old_ifs=$IFS
    IFS=';'
    for threshold in $THRESHOLDS; do
        [ -n "$threshold" ] && set -- "$@" --threshold "$threshold"
    done
    IFS=$old_ifs
    set +f
else
    say "no baseline at $BASELINE: a plain run, whose report becomes the first baseline"
fi

"$BEEKON_FLEET" "$@"
status=$?
stop_server

if [ "$status" -eq 0 ]; then
    # Copy, then rename: a job killed halfway leaves the old baseline whole.
    if ! cp "$OUT_DIR/report.json" "$BASELINE.tmp" || ! mv "$BASELINE.tmp" "$BASELINE"; then
        say "the report could not be kept as $BASELINE"
        exit 1
    fi
    say "passed; $BASELINE is now this run's report"
else
    say "the fleet exited $status; the baseline stays as it was"
fi
say "JUnit XML: $OUT_DIR/junit.xml, summary: $OUT_DIR/summary.md"
exit "$status"
