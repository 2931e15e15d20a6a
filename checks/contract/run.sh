#!/usr/bin/env bash
# The admin API against its contract: starts beekon-fleet (fleets/demo.yaml) with its admin
# server on a free loopback port, runs Schemathesis over every operation of the OpenAPI document
# the fleet serves (docs/openapi.yaml with the action schemas it generates)
# (examples, coverage and fuzzing phases, every check; bounded by --max-examples and a time
# budget), fails if the fleet is not running afterwards, and stops it (by its PID), pass or fail;
# then holds the run report (live, and a `run --report` file) to docs/report.schema.json.
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
st_status=0
timeout --signal=INT 170 st --config-file checks/contract/schemathesis.toml run "http://127.0.0.1:$PORT/api/v1/openapi.yaml" \
    --url "http://127.0.0.1:$PORT" --checks all --max-examples "${CONTRACT_EXAMPLES:-40}" \
    --seed "${CONTRACT_SEED:-1}" --max-time 120 --no-color --report junit --report-dir "$DATA/report" \
    "${AUTH[@]}" ${CONTRACT_ARGS:-} || st_status=$?
if ! fleet_alive; then
    echo "contract: beekon-fleet is no longer running after the Schemathesis run" >&2
    exit 1
fi
[ "$st_status" -eq 0 ] || { echo "contract: Schemathesis failed (exit $st_status); report in $DATA/report" >&2; exit "$st_status"; }
echo "contract: docs/openapi.yaml holds for every operation Schemathesis tried"
python3 checks/contract/report_check.py "${1:-.build/debug/beekon-fleet}" "$URL" "$DATA"
