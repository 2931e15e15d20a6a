#!/usr/bin/env bash
# `docker compose up fleet`, for real, with Podman (no Docker engine runs on these machines):
#   1. a Debian bookworm base image made locally (debootstrap from the machine's own Debian
#      mirror, `podman import`), since no image registry is reachable;
#   2. the Dockerfile's runtime stage built as it stands, with the binary built on the host by the
#      Dockerfile's own build command in place of its `build` stage (`--build-context`);
#   3. the project's docker-compose.yml brought up by podman-compose, with checks/compose/override.yml
#      on top (only the limits this VM cannot grant), and checks/compose/test_compose.py run against
#      it: health, uploads landing, the admin with the documented token, `restart fleet`, `down -v`;
#   4. docker-compose.shards.yml the same way with BEEKON_SHARDS=2 (checks/compose/test_compose_shards.py):
#      each replica holds another shard, they start together, `stop` writes both reports, and
#      `report merge` of them accounts for what the receiver stored.
#   checks/compose/run.sh [path/to/beekon-fleet]   (a release build with the Swift runtime linked
#                                                   in; default: builds it)
# Needs (Debian): podman runc podman-compose debootstrap golang-github-containernetworking-plugin-dnsname
# docker-compose (its `config` only); pytest. Ports 8080 and 8081 on the host's loopback must be free.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
say() { echo "compose: $*"; }
fail() { echo "compose: $*" >&2; exit 1; }

for tool in podman runc podman-compose debootstrap docker-compose; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (see the header of $0)"
done
[ -x /usr/lib/cni/dnsname ] || fail "the CNI dnsname plugin is missing, so services cannot reach each other by name" \
    "(apt-get install golang-github-containernetworking-plugin-dnsname)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/beekon-compose.XXXXXX")
export COMPOSE_TEST_PROJECT=beekon-compose-test
export COMPOSE_SHARDS_TEST_PROJECT=beekon-compose-shards-test
# crun refuses this VM's hybrid cgroups, and Podman's default ulimits exceed its hard limits.
export CONTAINERS_CONF="$WORK/containers.conf"
cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
EOF

cleanup() {
    local status=$?
    if podman ps -a --format '{{.Names}}' | grep -q "^${COMPOSE_TEST_PROJECT}_"; then
        [ "$status" -ne 0 ] && for name in ingest fleet; do
            echo "--- last lines of ${name}'s log ---" >&2
            podman logs --tail 30 "${COMPOSE_TEST_PROJECT}_${name}_1" >&2 2>&1 || true
        done
        podman-compose -p "$COMPOSE_TEST_PROJECT" -f docker-compose.yml -f checks/compose/override.yml down -v \
            >/dev/null 2>&1 || true
    fi
    if podman ps -a --format '{{.Names}}' | grep -q "^${COMPOSE_SHARDS_TEST_PROJECT}_"; then
        [ "$status" -ne 0 ] && for name in ingest_1 fleet_1 fleet_2; do
            echo "--- last lines of ${name}'s log (shards) ---" >&2
            podman logs --tail 30 "${COMPOSE_SHARDS_TEST_PROJECT}_${name}" >&2 2>&1 || true
        done
        BEEKON_SHARDS=2 podman-compose -p "$COMPOSE_SHARDS_TEST_PROJECT" -f docker-compose.shards.yml \
            -f checks/compose/override.yml down -v >/dev/null 2>&1 || true
    fi
    # podman-compose 1.0.3 leaves the project's network behind (docker compose removes it).
    podman network rm -f "${COMPOSE_TEST_PROJECT}_default" >/dev/null 2>&1 || true
    podman network rm -f "${COMPOSE_SHARDS_TEST_PROJECT}_default" >/dev/null 2>&1 || true
    rm -rf "$WORK"
    echo "compose: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
    exit "$status"
}
trap cleanup EXIT INT TERM

# 1. The base image: Debian of the host's own release (the binary links the host's glibc).
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ "$suite" = bookworm ] || fail "the Dockerfile runs on Debian bookworm; this host is '${suite:-unknown}'"
base=localhost/debian:bookworm-slim
# CI makes it anew each run, as a fresh machine must; elsewhere one made earlier is kept.
if [ -n "${CI:-}" ] || ! podman image exists "$base"; then
    mirror=$(apt-cache policy | awk -v suite="$suite/main" '$3 == suite { print $2; exit }')
    [ -n "$mirror" ] || fail "no Debian mirror for $suite/main in apt's sources (apt-get update first)"
    say "making $base with debootstrap from $mirror"
    debootstrap --variant=minbase "$suite" "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap failed"; }
    # As the slim image has them: no downloaded packages, no package lists (the Dockerfile's
    # `apt-get update` fetches them).
    rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"*
    tar -C "$WORK/rootfs" -c . | podman import --quiet - "$base" >/dev/null
    rm -rf "$WORK/rootfs"
fi

# 2. The binary, and the image the compose file names.
bin=${1:-}
if [ -z "$bin" ]; then
    swift build -c release --static-swift-stdlib --product beekon-fleet
    bin=.build/release/beekon-fleet
fi
[ -x "$bin" ] || fail "no executable at $bin"
if ldd "$bin" | grep -q libswiftCore; then
    fail "$bin links the Swift runtime dynamically; build it with --static-swift-stdlib, as the Dockerfile does"
fi
image=$(python3 -c '
import sys, yaml
services = yaml.safe_load(open("docker-compose.yml"))["services"]
images = {s.get("image") for s in services.values()}
if len(images) != 1 or None in images: sys.exit(f"expected one image for every service, found {images}")
print(images.pop())')
mkdir -p "$WORK/build/src/.build/release"
cp "$bin" "$WORK/build/src/.build/release/beekon-fleet"
say "building $image from the Dockerfile's runtime stage"
podman build --quiet --pull=never --build-context build="$WORK/build" -t "$image" -f Dockerfile . >/dev/null

# 3. The stack, and the checks.
say "images ready after $((SECONDS - started)) s"
python3 -m pytest -v -p no:cacheprovider checks/compose/test_compose.py checks/compose/test_compose_shards.py
