"""The run report against its JSON Schema (docs/report.schema.json, JSON Schema 2020-12):
GET /api/v1/report on the running fleet, and the file `run --report` writes at the end of a
short max-warp run of the demo fleet (which must exit 0, every fix accounted for).
  python3 checks/contract/report_check.py BINARY ADMIN_URL WORK_DIR
"""
import json
import os
import subprocess
import sys
import urllib.request

import jsonschema

binary, admin, work = sys.argv[1:4]
with open("docs/report.schema.json") as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def check(report, where):
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    for error in errors:
        print(f"report: {where}: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    if errors:
        sys.exit(1)
    fixes = report["fixes"]
    outcomes = ["acknowledged", "rejected", "pending", "expired", "deleted", "lost", "uninstalled"]
    if fixes["carried_over"] + fixes["admitted"] != sum(fixes[k] for k in outcomes) or fixes["unaccounted"] != 0:
        sys.exit(f"report: {where}: the fixes do not add up: {fixes}")


request = urllib.request.Request(admin + "api/v1/report")
if os.environ.get("BEEKON_ADMIN_TOKEN"):
    request.add_header("Authorization", "Bearer " + os.environ["BEEKON_ADMIN_TOKEN"])
with urllib.request.urlopen(request, timeout=15) as answer:
    live = json.load(answer)
check(live, "GET /api/v1/report")
if live["exit_code"] is not None:
    sys.exit("report: GET /api/v1/report has an exit code while the run goes on")

path = os.path.join(work, "run.json")
run = subprocess.run(
    [binary, "run", "fleets/demo.yaml", "--warp", "max", "--for", "20m", "--admin", "off",
     "--data", os.path.join(work, "report-run"), "--report", path, "--threshold", "fixes.lost == 0"],
    capture_output=True, text=True, timeout=600)
if run.returncode != 0:
    sys.exit(f"report: the run exited {run.returncode}\n{run.stdout}\n{run.stderr}")
with open(path) as f:
    written = json.load(f)
check(written, path)
if written["exit_code"] != 0 or written["ended_by"] != "virtual_time_limit":
    sys.exit(f"report: {path}: exit_code {written['exit_code']}, ended_by {written['ended_by']}")
if set(written["groups"]) != {"walkers-london", "cyclists-berlin", "drivers-paris"}:
    sys.exit(f"report: {path}: groups {sorted(written['groups'])}")
print(f"report: GET /api/v1/report and {path} hold to docs/report.schema.json; every fix accounted for")
