#!/usr/bin/env bash
# `report compare` and `run --baseline` end to end (issue #37): test_compare.py runs fleet.yaml
# against the reference receiver (`beekon-fleet receive`, a separate process) twice, then against
# it restarted 300 ms slower, and holds compare's verdicts, JSON, Markdown and JUnit XML (valid
# against docs/junit.xsd) to what the runs did; hostile inputs exit 64; docs/ci-example.sh runs
# end to end. The tests stop what they start and remove their temporary folder, pass or fail.
#   checks/compare/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs (Debian) libxml2-utils and shellcheck; pip install -r checks/compare/requirements.txt.
# About half a minute.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
binary=${1:-}
[ -z "$binary" ] || binary=$(realpath "$binary")
cd "$(dirname "$0")/../.."
binary=$(realpath "${binary:-.build/debug/beekon-fleet}")
started=$SECONDS
fail() {
    echo "compare: $*" >&2
    exit 1
}

[ -x "$binary" ] || fail "no executable beekon-fleet at $binary (swift build first)"
command -v xmllint >/dev/null || fail "xmllint is not installed (apt-get install libxml2-utils)"
command -v shellcheck >/dev/null || fail "shellcheck is not installed (apt-get install shellcheck)"
python3 -c 'import pytest' 2>/dev/null || fail "python3 lacks pytest (pip install -r checks/compare/requirements.txt)"

finish() {
    local status=$?
    echo "compare: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
    exit "$status"
}
trap finish EXIT

# The example CI job is POSIX sh, whatever /bin/sh a CI has.
shellcheck -s sh docs/ci-example.sh
xmllint --noout docs/junit.xsd
export BEEKON_FLEET="$binary"
python3 -m pytest -v -p no:cacheprovider checks/compare/test_compare.py "${@:2}"
