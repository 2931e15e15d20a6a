#!/usr/bin/env bash
# Starts beekon-fleet with its admin server on a free loopback port, runs the browser tests
# against it (the page in Chromium and Firefox, and hostile pages on other origins), and stops
# the fleet again (by its PID), pass or fail.
#   checks/browser/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Extra pytest arguments go in PYTEST_ARGS; set BEEKON_ADMIN_TOKEN to run with an admin token.
set -euo pipefail
cd "$(dirname "$0")/../.."
source checks/fleet-for-tests.sh

start_fleet "${1:-.build/debug/beekon-fleet}" --warp 30 --duration 15m
BEEKON_ADMIN_URL="$URL" BEEKON_FLEET_BIN="${1:-.build/debug/beekon-fleet}" python3 -m pytest -v checks/browser ${PYTEST_ARGS:-}
