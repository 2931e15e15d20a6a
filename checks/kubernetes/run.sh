#!/usr/bin/env bash
# deploy/kubernetes, checked as far as a machine without a cluster can (no API server here, so
# no `kubectl apply --dry-run=server`, no admission, no scheduling: docs/kubernetes.md says what
# that leaves unchecked):
#   1. kubectl kustomize renders the base, with-receiver, and a copy of the base with another N;
#   2. kubernetes-validate --strict holds every rendered object to Kubernetes' own schemas, at
#      the oldest version the manifests need and at the newest the pinned package knows;
#   3. checkov runs every Kubernetes policy over them, skipping only checks/kubernetes/.checkov.yaml's
#      (each with its reason), and the checks this deployment exists to pass must have passed;
#   4. check_manifests.py static: the Job's --shard carries N = completions, $(VAR)s, keys,
#      Service, security, probes, the receiver (see its docstring);
#   5. check_manifests.py pods: `beekon-fleet validate` on the ConfigMap's fleet file, then the
#      Job's N command lines run here as the kubelet would run them, probes and /metrics asked,
#      the reports merged;
#   6. start.sh (POSIX sh, under dash) against a stub kubectl: it refuses the placeholder token,
#      then applies a render whose start-at is now + its margin; shellcheck on both scripts;
#   7. the docs page's Prometheus scrape config passes promtool check config.
#
#   checks/kubernetes/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs kubectl (its built-in kustomize), python3 with checks/kubernetes/requirements.txt,
# the shellcheck and dash commands, and promtool (Debian's prometheus package). About a minute.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
binary=${1:-}
[ -z "$binary" ] || binary=$(realpath "$binary")
cd "$(dirname "$0")/../.."
binary=$(realpath "${binary:-.build/debug/beekon-fleet}")
# The oldest Kubernetes the Job needs (backoffLimitPerIndex is on by default from 1.29) and the
# newest kubernetes-validate 1.37.0 carries schemas of.
kubernetes_versions=(1.29.0 1.37.0)

step() { echo "=== kubernetes: $*"; }
for tool in kubectl kubernetes-validate checkov shellcheck dash promtool python3; do
    command -v "$tool" >/dev/null || {
        echo "checks/kubernetes: $tool is missing (see the header of $0)" >&2
        exit 1
    }
done
[ -x "$binary" ] || {
    echo "checks/kubernetes: no beekon-fleet binary at $binary" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "kubectl kustomize (base, with-receiver, and the base with completions 7)"
kubectl kustomize deploy/kubernetes >"$work/base.yaml"
kubectl kustomize deploy/kubernetes/with-receiver >"$work/with-receiver.yaml"
cp -r deploy/kubernetes/base "$work/base-n7"
sed -i 's/^  completions: 4 /  completions: 7 /' "$work/base-n7/job.yaml"
grep -q '^  completions: 7 ' "$work/base-n7/job.yaml" || {
    echo "checks/kubernetes: base/job.yaml has no '  completions: 4 ' line to change" >&2
    exit 1
}
kubectl kustomize "$work/base-n7" >"$work/base-n7.yaml"
echo "rendered: $(grep -c '^kind:' "$work/base.yaml") objects (base), $(grep -c '^kind:' "$work/with-receiver.yaml") (with-receiver)"

step "kubernetes-validate --strict, Kubernetes ${kubernetes_versions[*]}"
for version in "${kubernetes_versions[@]}"; do
    kubernetes-validate --strict --quiet -k "$version" "$work/base.yaml" "$work/with-receiver.yaml"
done
echo "valid against ${kubernetes_versions[*]}"

step "checkov (every Kubernetes check but .checkov.yaml's skips)"
# No call out: neither the policy metadata download nor the update check.
rc=0
BC_SKIP_MAPPING=TRUE CKV_SKIP_PACKAGE_UPDATE_CHECK=true checkov --config-file checks/kubernetes/.checkov.yaml \
    -f "$work/base.yaml" -f "$work/with-receiver.yaml" -o json --output-file-path "$work/checkov" \
    >"$work/checkov.log" 2>&1 || rc=$?
case $rc in
0 | 1) ;; # 1: a check failed; check_manifests.py lists it
*)
    cat "$work/checkov.log"
    echo "checks/kubernetes: checkov exited $rc" >&2
    exit 1
    ;;
esac
python3 checks/kubernetes/check_manifests.py checkov "$work/checkov/results_json.json"

step "the rendered manifests (check_manifests.py static)"
python3 checks/kubernetes/check_manifests.py static "$work/base.yaml" "$work/with-receiver.yaml" "$work/base-n7.yaml"

step "the Job's command lines, run here (check_manifests.py pods)"
mkdir "$work/pods"
python3 checks/kubernetes/check_manifests.py pods "$work/base.yaml" "$binary" "$work/pods"

step "start.sh (dash, stub kubectl) and shellcheck"
shellcheck -s sh deploy/kubernetes/start.sh
shellcheck checks/kubernetes/run.sh
mkdir "$work/stub"
cat >"$work/stub/kubectl" <<EOF
#!/bin/sh
# kustomize: the real kubectl; get: nothing there; apply -f FILE: keep FILE.
for arg in "\$@"; do [ "\$arg" = kustomize ] && exec "$(command -v kubectl)" "\$@"; done
case " \$* " in
*" get "*) exit 1 ;;
*" apply "*) while [ \$# -gt 0 ]; do [ "\$1" = -f ] && cp "\$2" "$work/applied.yaml"; shift; done ;;
esac
EOF
chmod +x "$work/stub/kubectl"
rc=0
PATH="$work/stub:$PATH" dash deploy/kubernetes/start.sh >"$work/start.log" 2>&1 || rc=$?
if [ "$rc" = 0 ] || ! grep -q 'still the placeholder' "$work/start.log" || [ -e "$work/applied.yaml" ]; then
    cat "$work/start.log"
    echo "checks/kubernetes: start.sh applied with the placeholder token" >&2
    exit 1
fi
# A copy of the tree with a real token, as a user would have it.
mkdir -p "$work/tree/deploy"
cp -r deploy/kubernetes "$work/tree/deploy/"
sed -i 's/^BEEKON_ADMIN_TOKEN=.*/BEEKON_ADMIN_TOKEN=a-real-token/' "$work/tree/deploy/kubernetes/base/secret.env"
before=$(date -u +%s)
PATH="$work/stub:$PATH" BEEKON_START_MARGIN=300 dash "$work/tree/deploy/kubernetes/start.sh" \
    "$work/tree/deploy/kubernetes/with-receiver" -n loadtest >"$work/start.log" 2>&1 || {
    cat "$work/start.log"
    exit 1
}
python3 - "$work/applied.yaml" "$before" <<'EOF'
import sys, yaml
from datetime import datetime
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
job = next(d for d in docs if d["kind"] == "Job")
env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
name = env["BEEKON_START_AT"]["valueFrom"]["configMapKeyRef"]["name"]
data = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == name)["data"]
start = datetime.fromisoformat(data["start-at"].replace("Z", "+00:00")).timestamp()
offset = start - int(sys.argv[2])
assert 299 <= offset <= 330, f"start.sh set start-at {data['start-at']}, {offset:.0f} s from now, not about 300"
assert data["ingest-url"] == "http://beekon-ingest:8081/ingest", data["ingest-url"]
assert any(d["kind"] == "Deployment" for d in docs), "start.sh did not apply with-receiver's receiver"
print(f"start.sh applied with-receiver with start-at {data['start-at']} ({offset:.0f} s ahead)")
EOF

step "the docs page's Prometheus scrape config (promtool check config)"
mkdir "$work/promtool"
python3 checks/kubernetes/check_manifests.py scrape-config docs/kubernetes.md "$work/promtool"

step "all passed"
