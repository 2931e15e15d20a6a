#!/usr/bin/env bash
# `beekon-fleet verify` against a real PostgreSQL (issue #36, deliverable 4): starts a private
# PostgreSQL cluster (Debian's, on loopback, a free port, its socket and data in a temporary
# folder), then test_verify_postgres.py runs a fleet with network faults against ingest_server.py
# in each of its modes (correct, ack-before-commit killed mid-run, no-dedupe) and holds verify's
# lost and duplicated fixes to the counts it works out itself. Stops the cluster, pass or fail.
#   checks/postgres/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs (Debian) postgresql; pip install -r checks/postgres/requirements.txt. As root, the
# cluster runs as the postgres user (PostgreSQL refuses root). About a minute.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
binary=${1:-}
[ -z "$binary" ] || binary=$(realpath "$binary")
cd "$(dirname "$0")/../.."
binary=$(realpath "${binary:-.build/debug/beekon-fleet}")
started=$SECONDS
say() { echo "postgres: $*"; }
fail() {
    echo "postgres: $*" >&2
    exit 1
}

[ -x "$binary" ] || fail "no executable beekon-fleet at $binary (swift build first)"
command -v psql >/dev/null || fail "psql is not installed (apt-get install postgresql)"
pgbin=${PGBIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)}
if [ ! -x "${pgbin:-}/initdb" ] || [ ! -x "$pgbin/pg_ctl" ]; then
    fail "no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql), or set PGBIN"
fi
python3 -c 'import psycopg, psycopg_pool, pytest' 2>/dev/null \
    || fail "python3 lacks psycopg, psycopg_pool or pytest (pip install -r checks/postgres/requirements.txt)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/beekon-postgres.XXXXXX")
# PostgreSQL will not run as root: as root, the cluster is the postgres user's.
as_owner=()
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || fail "running as root, but there is no postgres user to run the cluster as"
    chown postgres "$WORK"
    as_owner=(runuser -u postgres --)
fi
PGPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

cleanup() {
    local status=$?
    if [ -f "$WORK/data/postmaster.pid" ]; then
        "${as_owner[@]}" "$pgbin/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    if [ "$status" -ne 0 ] && [ -f "$WORK/postgres.log" ]; then
        echo "--- last lines of PostgreSQL's log ---" >&2
        tail -n 20 "$WORK/postgres.log" >&2 || true
    fi
    rm -rf "$WORK"
    echo "postgres: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
    exit "$status"
}
trap cleanup EXIT INT TERM

say "starting PostgreSQL ($pgbin) on 127.0.0.1:$PGPORT"
"${as_owner[@]}" "$pgbin/initdb" -D "$WORK/data" -A trust -U postgres >"$WORK/initdb.log" 2>&1 \
    || { cat "$WORK/initdb.log" >&2; fail "initdb failed"; }
"${as_owner[@]}" "$pgbin/pg_ctl" -D "$WORK/data" -l "$WORK/postgres.log" -w -t 60 start \
    -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1" >/dev/null \
    || fail "PostgreSQL did not start"
export PGHOST=127.0.0.1 PGPORT PGUSER=postgres BEEKON_FLEET="$binary"
psql -At -d postgres -c 'select version()'

python3 -m pytest -s -v -p no:cacheprovider checks/postgres/test_verify_postgres.py
