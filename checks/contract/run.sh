#!/usr/bin/env bash
# The admin API against its contract: starts beekon-fleet (fleets/demo.yaml) with its admin
# server on a free loopback port, runs Schemathesis over every operation of the OpenAPI document
# the fleet serves (docs/openapi.yaml with the action schemas it generates) twice, every phase and
# every check, each bounded by --max-examples and a time budget: first bare (no config, no
# exclusions: the document alone must say what the server takes; its links lead the stateful
# phase to real devices), then with schemathesis.toml (short streams, response-time limits);
# fails if the fleet is not running afterwards, and stops it (by its PID), pass or fail; then
# holds the run report (live, and a `run --report` file) to docs/report.schema.json.
#   checks/contract/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs: pip install -r checks/contract/requirements.txt. CONTRACT_EXAMPLES (default 40) and
# CONTRACT_SEED (default 1) tune the run, CONTRACT_ARGS adds Schemathesis arguments (e.g.
# --include-operation-id getFleet); set BEEKON_ADMIN_TOKEN to run with an admin token.
set -euo pipefail
cd "$(dirname "$0")/../.."
source checks/fleet-for-tests.sh

start_fleet "${1:-.build/debug/beekon-fleet}" --warp 30 --duration 10m
AUTH=()
[ -n "${BEEKON_ADMIN_TOKEN:-}" ] && AUTH=(--header "Authorization: Bearer $BEEKON_ADMIN_TOKEN")
# Each run from its own folder, so no schemathesis.toml of the working directory is read.
contract_run() {
    local name=$1
    shift
    local st_status=0
    mkdir -p "$DATA/$name"
    (cd "$DATA/$name" && timeout --signal=INT 240 st "$@" run "http://127.0.0.1:$PORT/api/v1/openapi.yaml" \
        --url "http://127.0.0.1:$PORT" --checks all --max-examples "${CONTRACT_EXAMPLES:-40}" \
        --seed "${CONTRACT_SEED:-1}" --max-time 120 --no-color --report junit --report-dir "$DATA/$name/report" \
        "${AUTH[@]}" ${CONTRACT_ARGS:-}) || st_status=$?
    if ! fleet_alive; then
        echo "contract: beekon-fleet is no longer running after the $name Schemathesis run" >&2
        exit 1
    fi
    [ "$st_status" -eq 0 ] || {
        echo "contract: Schemathesis ($name) failed (exit $st_status); report in $DATA/$name/report" >&2
        exit "$st_status"
    }
}
# Bare first, on the fleet as it starts (the first run's spawns leave it busier).
contract_run bare
contract_run configured --config-file "$PWD/checks/contract/schemathesis.toml"
echo "contract: docs/openapi.yaml holds for every operation Schemathesis tried, with its config and bare"
python3 checks/contract/report_check.py "${1:-.build/debug/beekon-fleet}" "$URL" "$DATA"
