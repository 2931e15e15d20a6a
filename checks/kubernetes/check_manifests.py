"""What deploy/kubernetes renders to, checked offline (run by checks/kubernetes/run.sh).

    python3 checks/kubernetes/check_manifests.py static BASE.yaml WITH_RECEIVER.yaml BASE_N7.yaml
    python3 checks/kubernetes/check_manifests.py checkov CHECKOV.json
    python3 checks/kubernetes/check_manifests.py pods BASE.yaml BINARY WORKDIR
    python3 checks/kubernetes/check_manifests.py scrape-config DOCS.md WORKDIR

static: the Job is an Indexed Job whose args carry `--shard $(JOB_COMPLETION_INDEX)/N` with N its
completions (also in a copy of the base whose completions were changed to 7: N has one place),
every $(VAR) it uses is defined where the kubelet expands it, every ConfigMap and Secret key it
names exists, the headless Service is the pods' subdomain, the security settings hold, the
probes cannot kill a shard waiting at --start-at or lingering, and with-receiver points the
shards' ingest URL at its receiver.

checkov: the checks this deployment exists to pass did pass, on every workload.

pods: the rendered Job's command line as the kubelet would run it, for all of its N pods on
this machine: the fleet file out of the rendered ConfigMap (its routes mapped from the image's
/usr/local/share/beekon-fleet/fleets/ to the repository's fleets/, which the Dockerfile copies
there), `beekon-fleet validate` on it, then each pod's env resolved (downward API, ConfigMap,
Secret) and its $(VAR)s expanded. What differs from a pod, and only that: each pod's paths
(/etc/beekon-fleet, /var/lib/beekon/...) are folders of its own under WORKDIR; --admin listens
on a free loopback port instead of 0.0.0.0:8080; start-at is now + a few seconds (start.sh's
job); the ingest URL is a `beekon-fleet receive` on loopback; and `--devices 40 --duration 8s`
are added, so the run takes seconds. Then the probes are asked what the kubelet would ask:
readiness 503 at the start barrier, 200 while running, 503 while lingering; liveness 200 in
all three. /metrics answers with the token and the pod IP or a pod DNS name as Host, 421 for
another Host, 401 without the token. After SIGTERM, the reports are where `kubectl cp` would
find them, and `report merge` puts them together.

scrape-config: the docs page's dns_sd scrape config passes `promtool check config`.
"""

import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMAGE_FLEETS = "/usr/local/share/beekon-fleet/fleets/"
PLACEHOLDER_TOKEN = "change-me-before-you-apply"
PER_POD = 2500  # devices a shard pod's resources are sized for (base/job.yaml)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def finish(what):
    if failures:
        print(f"kubernetes {what}: {len(failures)} problem(s):")
        for failure in failures:
            print(f"  - {failure}")
        sys.exit(1)
    print(f"kubernetes {what}: ok")


def load(path):
    with open(path) as file:
        return [doc for doc in yaml.safe_load_all(file) if doc]


def one(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    if len(found) != 1:
        raise SystemExit(f"expected one {kind} {name or ''}, found {len(found)}")
    return found[0]


def container(pod_spec, name):
    return next(c for c in pod_spec["containers"] if c["name"] == name)


def arg_after(args, flag):
    return args[args.index(flag) + 1] if flag in args else None


VAR = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def expand(text, env):
    """Kubernetes' $(VAR) expansion: a defined name is replaced, $$ is a $, the rest stays."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
            continue
        match = VAR.match(text, i)
        if match and match.group(1) in env:
            out.append(env[match.group(1)])
            i = match.end()
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def labels_ok(obj, where):
    labels = obj["metadata"].get("labels", {})
    for key in ("app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component",
                "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by"):
        check(key in labels, f"{where}: no label {key}")


def security_ok(pod_spec, where, writable):
    pod_sc = pod_spec.get("securityContext", {})
    check(pod_spec.get("automountServiceAccountToken") is False, f"{where}: automountServiceAccountToken is not false")
    check(pod_sc.get("runAsNonRoot") is True, f"{where}: pod runAsNonRoot is not true")
    check(pod_sc.get("runAsUser") == 10001, f"{where}: pod runAsUser is not the image's 10001")
    check(pod_sc.get("seccompProfile", {}).get("type") == "RuntimeDefault", f"{where}: seccomp is not RuntimeDefault")
    mounts_by_volume = {}
    for c in pod_spec["containers"]:
        sc = c.get("securityContext", {})
        name = f"{where}/{c['name']}"
        check(sc.get("readOnlyRootFilesystem") is True, f"{name}: readOnlyRootFilesystem is not true")
        check(sc.get("allowPrivilegeEscalation") is False, f"{name}: allowPrivilegeEscalation is not false")
        check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{name}: capabilities do not drop ALL")
        check(sc.get("runAsNonRoot") is True and sc.get("runAsUser") == 10001, f"{name}: not runAsNonRoot as 10001")
        check(c.get("imagePullPolicy") in ("IfNotPresent", "Always", "Never"), f"{name}: imagePullPolicy not explicit")
        for part in ("requests", "limits"):
            for resource in ("cpu", "memory"):
                check(resource in c.get("resources", {}).get(part, {}), f"{name}: no {part}.{resource}")
        check(c["resources"]["limits"]["memory"] == c["resources"]["requests"]["memory"],
              f"{name}: the memory limit is not the request (the kernel could OOM-kill it mid-run)")
        for mount in c.get("volumeMounts", []):
            mounts_by_volume[mount["mountPath"]] = mount["name"]
    volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
    for path in writable:
        volume = mounts_by_volume.get(path)
        check(volume is not None and "emptyDir" in volumes.get(volume, {}),
              f"{where}: {path} is written but is no emptyDir mount (the root file system is read-only)")


def static(base_path, overlay_path, n7_path):
    base, overlay, n7 = load(base_path), load(overlay_path), load(n7_path)
    for docs, where in ((base, "base"), (overlay, "with-receiver")):
        job = one(docs, "Job", "beekon-fleet")
        spec, pod = job["spec"], job["spec"]["template"]["spec"]
        fleet = container(pod, "fleet")
        args, n = fleet["args"], spec.get("completions")
        check(spec.get("completionMode") == "Indexed", f"{where}: the Job is not Indexed")
        check(spec.get("parallelism") == n, f"{where}: parallelism {spec.get('parallelism')} is not completions {n}")
        check(arg_after(args, "--shard") == f"$(JOB_COMPLETION_INDEX)/{n}",
              f"{where}: --shard is {arg_after(args, '--shard')!r}, not $(JOB_COMPLETION_INDEX)/{n}")
        check(args[0] == "run", f"{where}: the args do not start with run")
        check("--linger" in args, f"{where}: no --linger")
        check(arg_after(args, "--start-at") == "$(BEEKON_START_AT)", f"{where}: --start-at is not $(BEEKON_START_AT)")
        report = arg_after(args, "--report") or ""
        check("$(JOB_COMPLETION_INDEX)" in report, f"{where}: --report {report!r} is not one file per shard")
        check(pod.get("restartPolicy") == "Never", f"{where}: restartPolicy is not Never")
        check(spec.get("backoffLimitPerIndex") == 0, f"{where}: a failed shard would be run again, late")
        check(isinstance(spec.get("activeDeadlineSeconds"), int), f"{where}: no activeDeadlineSeconds bounds the linger")
        # Every $(VAR): the kubelet expands args from the whole env, an env value from the
        # variables before it; an undefined one would reach the binary as "$(VAR)".
        defined = []
        for entry in fleet["env"]:
            for name in VAR.findall(entry.get("value", "")):
                check(name in defined, f"{where}: env {entry['name']} uses $({name}) before it is defined")
            defined.append(entry["name"])
        check(defined[0] == "JOB_COMPLETION_INDEX", f"{where}: JOB_COMPLETION_INDEX is not the first env var")
        for arg in args:
            for name in VAR.findall(arg):
                check(name in defined, f"{where}: arg {arg!r} uses $({name}), which no env var defines")
        for entry in fleet["env"]:
            source = entry.get("valueFrom", {})
            for ref, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                if ref in source:
                    target = one(docs, kind, source[ref]["name"])
                    check(source[ref]["key"] in target.get("data", {}),
                          f"{where}: {kind} {source[ref]['name']} has no key {source[ref]['key']}")
        env = {e["name"]: e for e in fleet["env"]}
        allowed = env["BEEKON_ADMIN_ALLOWED_HOSTS"]["value"].split(",")
        check("$(POD_IP)" in allowed, f"{where}: the pod IP (Prometheus' Host) is not an allowed admin host")
        check(env["BEEKON_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "beekon-fleet-admin",
              f"{where}: the token is not from the Secret beekon-fleet-admin")
        # The fleet file: a ConfigMap key where the args say.
        fleet_file = args[3]
        mount = next(m for m in fleet["volumeMounts"] if fleet_file.startswith(m["mountPath"] + "/"))
        volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
        file_map = one(docs, "ConfigMap", volume["configMap"]["name"])
        check(os.path.basename(fleet_file) in file_map["data"], f"{where}: the fleet file {fleet_file} is in no ConfigMap")
        security_ok(pod, where, [arg_after(args, "--data"), os.path.dirname(report), "/tmp"])
        # Probes: readiness is /healthz; liveness must not be (503 at the barrier and lingering).
        ready, live = fleet.get("readinessProbe", {}), fleet.get("livenessProbe", {})
        check(ready.get("httpGet", {}).get("path") == "/healthz", f"{where}: readiness is not GET /healthz")
        check(live and live.get("httpGet", {}).get("path") != "/healthz",
              f"{where}: a liveness probe on /healthz would kill a shard at the barrier or lingering")
        check("/healthz" not in json.dumps(fleet.get("startupProbe", {})),
              f"{where}: a startupProbe on /healthz would kill a shard waiting at --start-at")
        # The headless Service: the pods' subdomain, selecting them, every address published.
        service = one(docs, "Service", pod.get("subdomain"))
        labels = job["spec"]["template"]["metadata"]["labels"]
        check(service["spec"].get("clusterIP") == "None", f"{where}: the shards' Service is not headless")
        check(service["spec"].get("publishNotReadyAddresses") is True,
              f"{where}: shards at the barrier or lingering (not Ready) would leave DNS")
        check(all(labels.get(k) == v for k, v in service["spec"]["selector"].items()),
              f"{where}: the Service does not select the Job's pods")
        ports = {p["name"]: p["containerPort"] for p in fleet["ports"]}
        check(any(p["name"] == "admin" and p["targetPort"] == "admin" for p in service["spec"]["ports"]),
              f"{where}: the Service has no port admin")
        check(arg_after(args, "--admin").endswith(f":{ports.get('admin')}"), f"{where}: --admin is not the admin port")
        check(any(f".{service['metadata']['name']}" in host for host in allowed),
              f"{where}: the pods' DNS names under the Service are not allowed admin hosts")
        policy = one(docs, "NetworkPolicy", "beekon-fleet")
        check(all(labels.get(k) == v for k, v in policy["spec"]["podSelector"]["matchLabels"].items()),
              f"{where}: the NetworkPolicy does not select the shards")
        for doc in docs:
            labels_ok(doc, f"{where}: {doc['kind']} {doc['metadata']['name']}")
        labels_ok(job["spec"]["template"], f"{where}: the Job's pod template")

    base_env = {e["name"]: e for e in container(one(base, "Job")["spec"]["template"]["spec"], "fleet")["env"]}
    run_map = one(base, "ConfigMap", base_env["BEEKON_INGEST_URL"]["valueFrom"]["configMapKeyRef"]["name"])
    check(run_map["data"]["ingest-url"].endswith(".invalid/ingest"), "base: the ingest URL is not the placeholder")
    secret = one(base, "Secret", "beekon-fleet-admin")
    check(base64.b64decode(secret["data"]["BEEKON_ADMIN_TOKEN"]).decode() == PLACEHOLDER_TOKEN,
          "base: secret.env's token is not the placeholder start.sh refuses (change both, or neither)")

    # with-receiver: the shards upload to its receiver, which runs their image.
    job = one(overlay, "Job", "beekon-fleet")
    fleet = container(job["spec"]["template"]["spec"], "fleet")
    env = {e["name"]: e for e in fleet["env"]}
    run_map = one(overlay, "ConfigMap", env["BEEKON_INGEST_URL"]["valueFrom"]["configMapKeyRef"]["name"])
    url = run_map["data"]["ingest-url"]
    deployment = one(overlay, "Deployment", "beekon-ingest")
    receiver_pod = deployment["spec"]["template"]["spec"]
    receiver = container(receiver_pod, "receiver")
    service = one(overlay, "Service", "beekon-ingest")
    port = service["spec"]["ports"][0]
    check(url == f"http://{service['metadata']['name']}:{port['port']}/ingest",
          f"with-receiver: ingest-url {url} is not the receiver Service's /ingest")
    check(arg_after(receiver["args"], "--listen") == f"0.0.0.0:{receiver['ports'][0]['containerPort']}",
          "with-receiver: the receiver does not listen on its container port")
    check(port["targetPort"] == receiver["ports"][0]["name"], "with-receiver: the Service's targetPort is not the receiver's")
    check(all(deployment["spec"]["template"]["metadata"]["labels"].get(k) == v
              for k, v in service["spec"]["selector"].items()), "with-receiver: the Service does not select the receiver")
    check(receiver["image"] == fleet["image"], f"with-receiver: the receiver's image {receiver['image']} is not the shards'")
    security_ok(receiver_pod, "with-receiver: receiver",
                [os.path.dirname(arg_after(receiver["args"], "--db")), "/tmp"])
    check(deployment["spec"].get("strategy", {}).get("type") == "Recreate",
          "with-receiver: two receivers could share one database during a rollout")

    # N in one place: the copy of the base with completions 7.
    job = one(n7, "Job", "beekon-fleet")
    args = container(job["spec"]["template"]["spec"], "fleet")["args"]
    check(job["spec"]["completions"] == 7 and job["spec"]["parallelism"] == 7
          and arg_after(args, "--shard") == "$(JOB_COMPLETION_INDEX)/7",
          f"completions 7 did not carry to parallelism and --shard: {job['spec']['parallelism']}, {arg_after(args, '--shard')}")
    finish("static checks")


# The checks this deployment exists to pass, on every workload (checkov's ids).
REQUIRED_CHECKS = {
    "CKV_K8S_20": "allowPrivilegeEscalation false",
    "CKV_K8S_22": "read-only root file system",
    "CKV_K8S_23": "no root containers admitted",
    "CKV_K8S_40": "a high UID",
    "CKV_K8S_37": "capabilities dropped",
    "CKV_K8S_28": "no NET_RAW",
    "CKV_K8S_31": "seccomp RuntimeDefault",
    "CKV_K8S_38": "no service account token",
    "CKV_K8S_10": "CPU requests",
    "CKV_K8S_11": "CPU limits",
    "CKV_K8S_12": "memory requests",
    "CKV_K8S_13": "memory limits",
}
# checkov asks probes of long-running workloads only (not of a Job); `static` checks the Job's.
REQUIRED_OF_DEPLOYMENTS = {"CKV_K8S_8": "a liveness probe", "CKV_K8S_9": "a readiness probe"}


def checkov(path):
    with open(path) as file:
        report = json.load(file)
    reports = report if isinstance(report, list) else [report]
    passed, failed = {}, []
    for entry in reports:
        results = entry.get("results", {})
        for item in results.get("passed_checks", []):
            passed.setdefault(f"{item['resource']} ({item['file_path'].lstrip('/')})", set()).add(item["check_id"])
        failed += results.get("failed_checks", [])
    for item in failed:
        check(False, f"{item['check_id']} {item['check_name']}: {item['resource']} ({item.get('file_path')})")
    workloads = [r for r in passed if r.split(".")[0] in ("Job", "Deployment")]
    check(any(r.startswith("Job.") for r in workloads) and any(r.startswith("Deployment.") for r in workloads),
          f"checkov checked no Job or no Deployment: {sorted(passed)}")
    for resource in workloads:
        required = REQUIRED_CHECKS | (REQUIRED_OF_DEPLOYMENTS if resource.startswith("Deployment.") else {})
        for check_id, what in required.items():
            check(check_id in passed[resource], f"{resource}: {check_id} ({what}) did not pass")
    print(f"checkov: {sum(len(v) for v in passed.values())} passed, {len(failed)} failed; "
          f"the required ones ({', '.join(sorted(REQUIRED_CHECKS | REQUIRED_OF_DEPLOYMENTS))}) "
          f"on {len(workloads)} workloads: {', '.join(sorted(workloads))}")
    finish("checkov")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http(port, path, headers=None):
    """(status, body) of a GET on loopback; 0 when nothing answers."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except OSError:
        return 0, ""


def wait_for(what, condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    check(False, f"{what} did not happen within {seconds} s")
    return False


def probe(port, spec, pod_ip, container_port):
    """What the kubelet's httpGet probe would get: Host is the pod IP unless the probe sets one."""
    get = spec["httpGet"]
    headers = {"Host": f"{pod_ip}:{container_port}"}
    headers.update({h["name"]: h["value"] for h in get.get("httpHeaders", [])})
    return http(port, get["path"], headers)[0]


def pods(base_path, binary, work):
    docs = load(base_path)
    job = one(docs, "Job", "beekon-fleet")
    pod = job["spec"]["template"]["spec"]
    fleet = container(pod, "fleet")
    n = job["spec"]["completions"]
    maps = {d["metadata"]["name"]: d for d in docs if d["kind"] in ("ConfigMap", "Secret")}

    # The fleet file as the pod reads it, its image paths mapped to the repository's fleets/.
    with open(os.path.join(ROOT, "Dockerfile")) as file:
        check(f"COPY fleets {IMAGE_FLEETS.rstrip('/')}" in file.read(),
              "the Dockerfile no longer copies fleets/ to /usr/local/share/beekon-fleet/fleets")
    args = fleet["args"]
    fleet_arg = args[3]
    mount = next(m for m in fleet["volumeMounts"] if fleet_arg.startswith(m["mountPath"] + "/"))
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    files = maps[volume["configMap"]["name"]]["data"]
    check(os.path.basename(fleet_arg) in files, f"the fleet file {fleet_arg} is not in its ConfigMap")

    def local(path, index):
        return os.path.join(work, f"pod-{index}", path.lstrip("/"))

    # Every key of the ConfigMap is a file in the mount (route files of your own beside the fleet).
    for index in range(n):
        os.makedirs(local(mount["mountPath"], index), exist_ok=True)
        for key, text in files.items():
            with open(os.path.join(local(mount["mountPath"], index), key), "w") as file:
                file.write(text.replace(IMAGE_FLEETS, os.path.join(ROOT, "fleets") + "/"))
    result = subprocess.run([binary, "validate", local(fleet_arg, 0)], capture_output=True, text=True)
    print(f"beekon-fleet validate (the ConfigMap's fleet file, image paths mapped): {result.stdout.strip()}")
    check(result.returncode == 0, f"beekon-fleet validate refused the example fleet file: {result.stdout}{result.stderr}")
    devices = re.search(r"(\d+) devices?\b", result.stdout)
    check(devices and int(devices.group(1)) <= PER_POD * n,
          f"{devices and devices.group(1)} devices over {n} shards is more than the {PER_POD} a pod is sized for "
          "(docs/kubernetes.md, \"How big a pod\")")
    if failures:
        finish("pods")

    processes, logs = [], []
    try:
        ingest_port = free_port()
        receiver = subprocess.Popen(
            [binary, "receive", "--listen", f"127.0.0.1:{ingest_port}", "--db", os.path.join(work, "ingest.db")],
            stdout=open(os.path.join(work, "receiver.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(receiver)
        wait_for("the receiver answering", lambda: http(ingest_port, "/stats")[0] == 200, 30)
        start_at = (datetime.now(timezone.utc) + timedelta(seconds=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
        shards = []
        for index in range(n):
            pod_ip = f"10.244.1.{10 + index}"
            env = {}
            for entry in fleet["env"]:
                source = entry.get("valueFrom")
                if source is None:
                    env[entry["name"]] = expand(entry["value"], env)
                elif "fieldRef" in source:
                    env[entry["name"]] = {
                        "metadata.annotations['batch.kubernetes.io/job-completion-index']": str(index),
                        "metadata.labels['batch.kubernetes.io/job-name']": job["metadata"]["name"],
                        "status.podIP": pod_ip,
                        "metadata.namespace": "loadtest",
                    }[source["fieldRef"]["fieldPath"]]
                elif "configMapKeyRef" in source:
                    env[entry["name"]] = maps[source["configMapKeyRef"]["name"]]["data"][source["configMapKeyRef"]["key"]]
                else:
                    ref = source["secretKeyRef"]
                    env[entry["name"]] = base64.b64decode(maps[ref["name"]]["data"][ref["key"]]).decode()
            env["BEEKON_START_AT"] = start_at  # start.sh's job
            env["BEEKON_INGEST_URL"] = f"http://127.0.0.1:{ingest_port}/ingest"
            command = [expand(arg, env) for arg in args]
            check(command[2] == f"{index}/{n}", f"pod {index}: --shard expanded to {command[2]}")
            # The pod's volumes: each mount an empty folder of this pod's (the fleet file's has it).
            for volume_mount in fleet["volumeMounts"]:
                os.makedirs(local(volume_mount["mountPath"], index), exist_ok=True)
            command = [local(arg, index) if arg.startswith("/") else arg for arg in command]
            admin_port = free_port()
            command[command.index("--admin") + 1] = f"127.0.0.1:{admin_port}"
            command += ["--devices", "40", "--duration", "8s"]
            log = os.path.join(work, f"pod-{index}.log")
            process_env = {k: v for k, v in os.environ.items() if not k.startswith("BEEKON_")}
            process_env.update(env)
            shard = subprocess.Popen([binary] + command, env=process_env, stdout=open(log, "w"),
                                     stderr=subprocess.STDOUT, cwd=os.path.join(work, f"pod-{index}"))
            processes.append(shard)
            shards.append({"index": index, "process": shard, "port": admin_port, "ip": pod_ip, "env": env,
                           "log": log, "report": command[command.index("--report") + 1]})
        container_port = fleet["ports"][0]["containerPort"]
        ready, live = fleet["readinessProbe"], fleet["livenessProbe"]

        def phase_probes(phase, expect_ready):
            for shard in shards:
                got_ready = probe(shard["port"], ready, shard["ip"], container_port)
                got_live = probe(shard["port"], live, shard["ip"], container_port)
                check(got_ready == expect_ready, f"pod {shard['index']} {phase}: readiness answered {got_ready}")
                check(got_live == 200, f"pod {shard['index']} {phase}: liveness answered {got_live} (the kubelet "
                                       "would kill it)")
            print(f"{phase}: readiness {expect_ready} and liveness 200 expected of {len(shards)} pods")

        for shard in shards:
            wait_for(f"pod {shard['index']}'s admin listening", lambda s=shard: http(s["port"], "/healthz")[0] != 0, 30)
        if datetime.now(timezone.utc) < datetime.fromisoformat(start_at.replace("Z", "+00:00")) - timedelta(seconds=1):
            phase_probes("at the start barrier", 503)
        else:
            print("note: the shards were not ready before the start instant; barrier probes not asked")
        for shard in shards:
            wait_for(f"pod {shard['index']} running", lambda s=shard: http(s["port"], "/healthz")[0] == 200, 30)
        phase_probes("running", 200)
        token = shards[0]["env"]["BEEKON_ADMIN_TOKEN"]
        for shard in shards:
            bearer = {"Authorization": f"Bearer {token}"}
            name = f"beekon-fleet-{shard['index']}.beekon-fleet.loadtest.svc"
            status, body = http(shard["port"], "/metrics", {**bearer, "Host": f"{shard['ip']}:8080"})
            check(status == 200 and f'beekon_fleet_shard_info{{shard="{shard["index"]}",shards="{n}"}} 1' in body,
                  f"pod {shard['index']}: /metrics with the pod IP as Host answered {status}")
            check(http(shard["port"], "/metrics", {**bearer, "Host": f"{name}:8080"})[0] == 200,
                  f"pod {shard['index']}: /metrics with Host {name} refused")
            check(http(shard["port"], "/metrics", {**bearer, "Host": "rebinding.example:8080"})[0] == 421,
                  f"pod {shard['index']}: /metrics answered a Host that is not allowed")
            check(http(shard["port"], "/metrics", {"Host": f"{shard['ip']}:8080"})[0] == 401,
                  f"pod {shard['index']}: /metrics answered without the token")
        for shard in shards:
            wait_for(f"pod {shard['index']} lingering",
                     lambda s=shard: "(--linger)" in open(s["log"]).read() or s["process"].poll() is not None, 60)
            check(shard["process"].poll() is None, f"pod {shard['index']} exited {shard['process'].returncode}: "
                                                   f"see {shard['log']}")
        phase_probes("lingering", 503)
        for shard in shards:
            check(os.path.exists(shard["report"]), f"pod {shard['index']}: no report at {shard['report']}")
            shard["process"].send_signal(signal.SIGTERM)  # kubectl delete
        for shard in shards:
            code = shard["process"].wait(timeout=60)
            check(code in (0, 99), f"pod {shard['index']} exited {code} after SIGTERM; see {shard['log']}")
        # What the user does with the reports once copied out.
        merged = os.path.join(work, "all.json")
        result = subprocess.run([binary, "report", "merge"] + [s["report"] for s in shards]
                                + ["--report", merged, "--html", os.path.join(work, "all.html")],
                                capture_output=True, text=True)
        check(result.returncode in (0, 99), f"report merge exited {result.returncode}: {result.stdout}{result.stderr}")
        if os.path.exists(merged):
            with open(merged) as file:
                check(json.load(file)["devices"] == 40, "the merged report does not hold the 40 devices")
        print(f"{n} pods' command lines ran: barrier, run, linger, SIGTERM; report merge exited {result.returncode}")
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    finish("pods")


def scrape_config(docs_path, work):
    with open(docs_path) as file:
        text = file.read()
    marker = "<!-- promtool check config: checks/kubernetes/run.sh -->"
    check(marker in text, f"{docs_path} has no block marked {marker}")
    if failures:
        finish("scrape config")
    block = text.split(marker, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    token_file = os.path.join(work, "token")
    with open(token_file, "w") as file:
        file.write("token")
    config = re.sub(r"credentials_file: \S+", f"credentials_file: {token_file}", block)
    rules = os.path.join(ROOT, "deploy", "prometheus", "beekon-fleet.rules.yml")
    config = config.replace("/etc/prometheus/rules/beekon-fleet.rules.yml", rules)
    path = os.path.join(work, "prometheus.yml")
    with open(path, "w") as file:
        file.write(config)
    result = subprocess.run(["promtool", "check", "config", path], capture_output=True, text=True)
    check(result.returncode == 0, f"promtool check config: {result.stdout}{result.stderr}")
    finish("scrape config (promtool)")


if __name__ == "__main__":
    mode = sys.argv[1]
    {"static": static, "checkov": checkov, "pods": pods, "scrape-config": scrape_config}[mode](*sys.argv[2:])
