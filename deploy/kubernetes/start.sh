#!/bin/sh
# Start one fleet run: set its start instant to now + a margin, then apply.
#
#   deploy/kubernetes/start.sh [DIR] [KUBECTL_FLAG...]
#     DIR            the kustomization to apply (default: deploy/kubernetes; or
#                    deploy/kubernetes/with-receiver, or an overlay of your own)
#     KUBECTL_FLAG   passed to every kubectl call, e.g. -n loadtest or --context lab
#   BEEKON_START_MARGIN   seconds from now to the start instant (default 120): time enough for
#                         the cluster to schedule every pod, pull the image and make the stores
#
# It renders DIR with the start instant in place of run.env's start-at (a temporary overlay:
# nothing in the repository changes), refuses to go on while the admin token is secret.env's
# placeholder or while a Job beekon-fleet still exists (a Job runs once: copy its reports out,
# then `kubectl delete -k DIR`), and applies what it rendered. docs/kubernetes.md has the rest.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here}
[ "$#" -gt 0 ] && shift
margin=${BEEKON_START_MARGIN:-120}
case $margin in
'' | *[!0-9]*)
    echo "start.sh: BEEKON_START_MARGIN must be whole seconds, not '$margin'" >&2
    exit 64
    ;;
esac
[ -f "$dir/kustomization.yaml" ] || {
    echo "start.sh: no kustomization.yaml in $dir" >&2
    exit 64
}
dir=$(cd "$dir" && pwd)

at=$(($(date +%s) + margin))
# GNU date (-d @SECONDS), else BSD and macOS date (-r SECONDS).
start=$(date -u -d "@$at" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$at" +%Y-%m-%dT%H:%M:%SZ)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# kustomize takes no absolute path to a base: climb from the temporary folder to / instead.
up=$(printf '%s\n' "$work" | sed 's#[^/][^/]*#..#g; s#^/##')
cat >"$work/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $up$dir
configMapGenerator:
  - name: beekon-fleet-run
    behavior: merge
    literals:
      - start-at=$start
EOF
kubectl kustomize "$work" >"$work/rendered.yaml"

placeholder=$(printf '%s' change-me-before-you-apply | base64)
if grep -q "BEEKON_ADMIN_TOKEN: $placeholder" "$work/rendered.yaml"; then
    echo "start.sh: the admin token is still the placeholder: set BEEKON_ADMIN_TOKEN in" >&2
    echo "  deploy/kubernetes/base/secret.env (e.g. to the output of: openssl rand -hex 24)" >&2
    exit 1
fi
if kubectl "$@" get job beekon-fleet >/dev/null 2>&1; then
    echo "start.sh: the Job beekon-fleet of an earlier run still exists. Copy its reports out" >&2
    echo "  (docs/kubernetes.md), then: kubectl delete -k $dir" >&2
    exit 1
fi

kubectl "$@" apply -f "$work/rendered.yaml"
echo "start.sh: every shard starts at $start (in ${margin} s); watch them with:"
echo "  kubectl ${*:+$* }get pods -l app.kubernetes.io/component=shard -w"
