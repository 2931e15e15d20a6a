# Sourced by checks/browser/run.sh and checks/contract/run.sh: starts beekon-fleet (fleets/demo.yaml)
# with its admin server on a free loopback port and a temporary data folder, waits (up to 60 s)
# until GET /api/v1/fleet answers, and stops it again (by its PID) when the script exits.
#   start_fleet BINARY [extra `run` arguments…]
# Sets PORT, URL (http://127.0.0.1:PORT/), DATA (the temporary folder) and FLEET_PID.
# BEEKON_ADMIN_TOKEN, when set, is passed as --admin-token.

start_fleet() {
    local bin=$1
    shift
    [ -x "$bin" ] || { echo "$0: no executable beekon-fleet at $bin (swift build first)" >&2; exit 2; }
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    DATA=$(mktemp -d "${TMPDIR:-/tmp}/beekon-tests.XXXXXX")
    LOG="$DATA/fleet.log"
    URL="http://127.0.0.1:$PORT/"
    local token_args=()
    [ -n "${BEEKON_ADMIN_TOKEN:-}" ] && token_args=(--admin-token "$BEEKON_ADMIN_TOKEN")
    "$bin" run fleets/demo.yaml --admin "127.0.0.1:$PORT" --data "$DATA/stores" "${token_args[@]}" "$@" >"$LOG" 2>&1 &
    FLEET_PID=$!
    trap stop_fleet EXIT INT TERM
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
        sys.exit("beekon-fleet exited before its admin server answered")
    try:
        with urllib.request.urlopen(req, timeout=2) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("the admin server did not answer GET /api/v1/fleet within 60 s")
    time.sleep(0.3)
print("admin server up at", url)
PY
}

# Whether the fleet is still running (a crash under test is a failure).
fleet_alive() {
    kill -0 "$FLEET_PID" 2>/dev/null
}

stop_fleet() {
    local status=$?
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
