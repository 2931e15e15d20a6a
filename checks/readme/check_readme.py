"""Every command the README and the guides it points to show works as written.

Reads each ```sh block of README.md and of the guides in GUIDES and handles it by the rule for its
first line (RULES below):
- run: the block runs as it stands (bash, from the repository's root) and must exit 0;
- serve: the block is one long-running command; it runs until `ready` holds, then gets Ctrl-C
  (SIGINT to its process group, as a terminal sends it) and must exit 0 with `says` in its output;
- covered: another test runs it (named, and checked to exist); this machine cannot run it as
  written (no Docker engine) or CI already runs it word for word.
A block no rule matches, or a rule no block matches, fails: the table stays true to the pages.
Also checks that the Swift version the README names is the one installed and the Dockerfile's.

    python3 checks/readme/check_readme.py [--only TEXT]
        (after `swift build -c release --product beekon-fleet` and `--product beekon-bench`)

Needs ports 8080, 8081 and 9000 free on 127.0.0.1, and root for the README's apt-get line.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.path.join(ROOT, ".build", "release", "beekon-fleet")
TOKEN = "beekon-demo"


def get(url, token=None):
    """(status, body) of a GET; (0, reason) when nothing answers."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except OSError as error:
        return 0, str(error)


def answers(url):
    return lambda: get(url)[0] == 200


def stored_batches(url):
    def check():
        status, body = get(url)
        return status == 200 and json.loads(body)["batches"]["stored"] > 0
    return check


@dataclass
class Rule:
    first_line: str
    kind: str  # "run", "serve" or "covered"
    why: str = ""
    ready: object = None  # serve: a check that the command is up and doing its job
    says: str = ""  # serve: printed once it stopped cleanly
    needs: list = field(default_factory=list)  # helpers started before the block
    seconds: int = 120
    root_only: bool = False


RULES = [
    Rule("docker compose up fleet", "covered",
         "checks/compose/run.sh brings docker-compose.yml up with podman-compose (no Docker engine runs here)"),
    Rule("docker compose up --no-deps fleet", "covered",
         "checks/compose/run.sh checks that BEEKON_INGEST_URL reaches the fleet's --ingest (docker-compose config)"),
    Rule("swift test", "covered", ".ci/run runs it word for word"),
    Rule("swift run -c release beekon-fleet run", "serve", ready=answers("http://127.0.0.1:8080/healthz"),
         says="beekon-fleet: done.", seconds=120),
    Rule("swift run -c release beekon-fleet run fleets/demo.yaml --ingest http://127.0.0.1:9000/ingest \\", "serve",
         ready=stored_batches("http://127.0.0.1:9000/stats"), says="beekon-fleet: done.", needs=["receiver:9000"],
         seconds=180),
    Rule("swift run -c release beekon-fleet receive --listen 127.0.0.1:8081 --mix 503:10", "serve",
         ready=answers("http://127.0.0.1:8081/stats"), seconds=60),
    Rule("curl -fsS -H 'Authorization: Bearer beekon-demo' http://127.0.0.1:8080/api/v1/fleet", "run",
         needs=["fleet:8080"]),
    Rule("swift run -c release beekon-fleet validate fleets/demo.yaml", "run"),
    Rule("swift run -c release beekon-fleet run --warp max --for 1h --admin off --data /tmp/beekon-report "
         "--report /tmp/beekon-report.json --threshold 'fixes.lost == 0'", "run", seconds=300),
    Rule("# Two shards of the demo fleet, started together and judged as one.", "run", seconds=600),
    Rule("psql -At -F, -c 'select install_id, id from locations' | beekon-fleet verify --stored -", "covered",
         "checks/postgres/test_verify_postgres.py runs this pipeline against a real PostgreSQL (its own host and port)"),
    Rule("swift run -c release beekon-fleet run --warp max --for 1h --admin off --data /tmp/beekon-verify --fresh",
         "run", seconds=300),
    Rule("apt-get install libsqlite3-dev zlib1g-dev libcurl4-openssl-dev libmicrohttpd-dev pkg-config", "run",
         root_only=True, seconds=600),
    Rule("swift run -c release beekon-bench store ", "run", seconds=900),
    Rule("swift run -c release beekon-bench admin ", "run", seconds=900),
]
# The pages whose commands a newcomer copies: the README's reference moved into them.
GUIDES = ["README.md", "docs/running.md", "docs/compose.md", "docs/admin.md", "docs/receiver.md", "docs/benchmarks.md"]
COVERED_BY = {
    "docker compose up fleet": "checks/compose/run.sh",
    "docker compose up --no-deps fleet": "checks/compose/test_compose.py",
    "swift test": ".ci/run",
    "psql -At -F, -c 'select install_id, id from locations' | beekon-fleet verify --stored -":
        "checks/postgres/test_verify_postgres.py",
}


def blocks(readme):
    """(line number, text) of each ```sh block."""
    found, inside, start, lines = [], False, 0, []
    for number, line in enumerate(readme.splitlines(), 1):
        if not inside and line.strip() == "```sh":
            inside, start, lines = True, number + 1, []
        elif inside and line.strip() == "```":
            inside = False
            found.append((start, "\n".join(lines)))
        elif inside:
            lines.append(line)
    return found


def rule_for(text):
    first = text.splitlines()[0].strip()
    matches = [rule for rule in RULES if first == rule.first_line or (rule.first_line.endswith(" ") and first.startswith(rule.first_line))]
    return matches[0] if len(matches) == 1 else None


class Helper:
    """A process a block needs running beside it (a receiver, a fleet), stopped afterwards."""

    def __init__(self, need, folder):
        if need == "receiver:9000":
            command = [BINARY, "receive", "--listen", "127.0.0.1:9000", "--db", os.path.join(folder, "ingest.db")]
            self.ready = answers("http://127.0.0.1:9000/stats")
        elif need == "fleet:8080":
            # With the compose fleet's token, so the examples must send it to get anything.
            command = [BINARY, "run", "fleets/demo.yaml", "--admin", "127.0.0.1:8080", "--admin-token", TOKEN,
                       "--data", os.path.join(folder, "fleet"), "--duration", "10m"]
            self.ready = answers("http://127.0.0.1:8080/healthz")
        else:
            raise ValueError(need)
        self.name = need
        self.log = open(os.path.join(folder, need.replace(":", "-") + ".log"), "w")
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{need} did not start (see {self.log.name})")
            time.sleep(0.3)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def run_block(text, rule, log):
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            timeout=rule.seconds)
    return None if result.returncode == 0 else f"exited {result.returncode}"


def serve_block(text, rule, log):
    # A command continued with a backslash is one command, as the shell reads it.
    text = text.replace("\\\n", " ")
    commands = [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if len(commands) != 1:
        return f"a serve block must hold one command, not {len(commands)}"
    # Its own process group: Ctrl-C reaches `swift run` and the program it runs, as in a terminal.
    process = subprocess.Popen(["bash", "-c", "exec " + commands[0]], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.monotonic() + rule.seconds
    try:
        while not rule.ready():
            if process.poll() is not None:
                return f"exited {process.returncode} before it was ready"
            if time.monotonic() > deadline:
                return f"not ready within {rule.seconds} s"
            time.sleep(0.5)
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(timeout=60)
        if code != 0:
            return f"exited {code} after Ctrl-C"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if rule.says:
        log.flush()
        with open(log.name) as output:
            if rule.says not in output.read():
                return f"did not print {rule.says!r} when it stopped"
    return None


def swift_versions(readme):
    """Problems with the Swift version: README, Dockerfile and the installed toolchain must agree."""
    named = set(re.findall(r"Swift (\d+\.\d+\.\d+)", readme))
    with open(os.path.join(ROOT, "Dockerfile")) as file:
        image = re.search(r"^FROM swift:(\d+\.\d+\.\d+)-", file.read(), re.M)
    installed = re.search(r"Swift version (\d+\.\d+\.\d+)", subprocess.run(
        ["swift", "--version"], capture_output=True, text=True).stdout + "")
    problems = []
    if len(named) != 1:
        problems.append(f"README.md names Swift versions {sorted(named) or 'none'}; it should name one")
    if not image:
        problems.append("Dockerfile's build stage is not FROM swift:X.Y.Z-…")
    if not installed:
        problems.append("`swift --version` printed no version")
    versions = named | ({image.group(1)} if image else set()) | ({installed.group(1)} if installed else set())
    if not problems and len(versions) != 1:
        problems.append(f"README.md says Swift {named.pop()}, the Dockerfile builds with {image.group(1)}, "
                        f"and {installed.group(1)} is installed")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the blocks whose text contains this")
    args = parser.parse_args()
    with open(os.path.join(ROOT, "README.md")) as file:
        readme = file.read()
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"readme: no {BINARY}; run `swift build -c release --product beekon-fleet` first")
    passed, failed = 0, 0

    def report(where, problem, what):
        nonlocal passed, failed
        if problem:
            failed += 1
            print(f"readme: FAIL {where}: {what}: {problem}", flush=True)
        else:
            passed += 1
            print(f"readme: ok   {where}: {what}", flush=True)

    if not args.only:
        problems = swift_versions(readme)
        report("README.md", "; ".join(problems), "one Swift version in README, Dockerfile and the toolchain")

    found = []
    for page in GUIDES:
        with open(os.path.join(ROOT, page)) as file:
            found += [(f"{page}:{line}", text) for line, text in blocks(file.read())]
    used = set()
    for where, text in found:
        first = text.splitlines()[0].strip() if text.strip() else ""
        rule = rule_for(text)
        if rule is None:
            report(where, "no rule in checks/readme/check_readme.py says how to run it", first)
            continue
        used.add(rule.first_line)
        if args.only and args.only not in text:
            continue
        if rule.kind == "covered":
            path = COVERED_BY[rule.first_line]
            exists = os.path.exists(os.path.join(ROOT, path))
            report(where, None if exists else f"{path} is missing", f"{first}  (covered: {rule.why})")
            continue
        if rule.root_only and os.geteuid() != 0:
            report(where, "needs root (CI runs as root)", first)
            continue
        before = set(os.listdir(ROOT))
        folder = tempfile.mkdtemp(prefix="beekon-readme-")
        helpers = []
        log = open(os.path.join(folder, "block.log"), "w")
        started = time.monotonic()
        try:
            for need in rule.needs:
                helpers.append(Helper(need, folder))
            problem = (run_block if rule.kind == "run" else serve_block)(text, rule, log)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            problem = str(error)
        finally:
            for helper in helpers:
                helper.stop()
            log.close()
        if problem:
            with open(log.name) as output:
                sys.stdout.write("".join(output.readlines()[-30:]))
        report(where, problem, f"{first}  ({rule.kind}, {time.monotonic() - started:.0f} s)")
        shutil.rmtree(folder, ignore_errors=True)
        # What the command made in the checkout (`.beekon-fleet/`, `beekon-ingest.db`) goes again;
        # the build folder stays for the next command.
        for made in set(os.listdir(ROOT)) - before - {".build"}:
            path = os.path.join(ROOT, made)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    if not args.only:
        for rule in RULES:
            if rule.first_line not in used:
                report("checks/readme/check_readme.py", "no block of the pages starts with it any more", rule.first_line)
    print(f"readme: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
