#!/usr/bin/env bash
# HTTP/2 over TLS, source addresses and idle connections closed on the virtual clock (issue #38),
# end to end: test_tls.py makes a certificate for 127.0.0.1 (openssl), puts Debian's nginx
# (`listen … ssl http2`) in front of the reference receiver (`beekon-fleet receive`), runs
# fleet.yaml through it with --ca-file and --source-addresses, and holds nginx's access log to
# what the fleet says it did: HTTP/2.0 over TLS, one client address per phone, a new connection
# for each upload after 5 idle minutes and one reused connection otherwise; `verify` finds every
# acknowledged fix in the receiver's database. It stops what it starts and removes its folder.
#   checks/tls/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs (Debian) nginx and openssl; pip install -r checks/tls/requirements.txt. About 20 s.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
binary=${1:-}
[ -z "$binary" ] || binary=$(realpath "$binary")
cd "$(dirname "$0")/../.."
binary=$(realpath "${binary:-.build/debug/beekon-fleet}")
started=$SECONDS
fail() {
    echo "tls: $*" >&2
    exit 1
}

[ -x "$binary" ] || fail "no executable beekon-fleet at $binary (swift build first)"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || fail "nginx is not installed (apt-get install nginx)"
command -v openssl >/dev/null || fail "openssl is not installed (apt-get install openssl)"
python3 -c 'import pytest' 2>/dev/null || fail "python3 lacks pytest (pip install -r checks/tls/requirements.txt)"

finish() {
    local status=$?
    echo "tls: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
    exit "$status"
}
trap finish EXIT

export BEEKON_FLEET="$binary"
python3 -m pytest -v -p no:cacheprovider checks/tls/test_tls.py "${@:2}"
