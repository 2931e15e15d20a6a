#!/usr/bin/env bash
# Starts beekon-fleet with its admin server on a free loopback port, runs the browser test
# against it, and stops the fleet again (by its PID), pass or fail.
#   tests/browser/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Extra pytest arguments go in PYTEST_ARGS; set BEEKON_ADMIN_TOKEN to run with an admin token.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN=${1:-.build/debug/beekon-fleet}
[ -x "$BIN" ] || { echo "run.sh: no executable beekon-fleet at $BIN (swift build first)" >&2; exit 2; }

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
DATA=$(mktemp -d "${TMPDIR:-/tmp}/beekon-browser.XXXXXX")
LOG="$DATA/fleet.log"
URL="http://127.0.0.1:$PORT/"
TOKEN_ARGS=()
[ -n "${BEEKON_ADMIN_TOKEN:-}" ] && TOKEN_ARGS=(--admin-token "$BEEKON_ADMIN_TOKEN")

"$BIN" run fleets/demo.yaml --warp 30 --duration 15m --admin "127.0.0.1:$PORT" --data "$DATA/stores" \
    "${TOKEN_ARGS[@]}" >"$LOG" 2>&1 &
FLEET_PID=$!

cleanup() {
    status=$?
    if kill -0 "$FLEET_PID" 2>/dev/null; then
        kill -TERM "$FLEET_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$FLEET_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$FLEET_PID" 2>/dev/null || true
        wait "$FLEET_PID" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ]; then echo "--- last lines of the fleet's log ($LOG) ---" >&2; tail -n 40 "$LOG" >&2 || true; fi
    rm -rf "$DATA/stores"
    exit "$status"
}
trap cleanup EXIT INT TERM

# Wait (up to 60 s) until GET /api/v1/fleet answers.
python3 - "$URL" "$FLEET_PID" <<'PY'
import os, sys, time, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
req = urllib.request.Request(url + "api/v1/fleet")
if os.environ.get("BEEKON_ADMIN_TOKEN"):
    req.add_header("Authorization", "Bearer " + os.environ["BEEKON_ADMIN_TOKEN"])
deadline = time.monotonic() + 60
while True:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("run.sh: beekon-fleet exited before its admin server answered")
    try:
        with urllib.request.urlopen(req, timeout=2) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("run.sh: the admin server did not answer GET /api/v1/fleet within 60 s")
    time.sleep(0.3)
print("admin server up at", url)
PY

BEEKON_ADMIN_URL="$URL" python3 -m pytest -v tests/browser ${PYTEST_ARGS:-}
