"""Hostile pages against the token-less loopback admin, in real Chromium.

A page on another origin (a second local HTTP server, reached as 127.0.0.1:OTHER and as
attacker.test:OTHER) tries to spawn devices and change the warp with fetch (CORS, no-cors,
text/plain) and with an auto-submitted HTML form; a DNS-rebinding page (rebind.test mapped to
127.0.0.1, so the page and the admin share the origin http://rebind.test:ADMINPORT) tries the
same with same-origin fetches. Afterwards the API, asked from Python with a proper Host, must show
nothing changed: the same device count and warp.

BEEKON_ADMIN_URL / BEEKON_ADMIN_TOKEN / BEEKON_CHROMIUM as in test_admin_page.py; run with
checks/browser/run.sh.
"""
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import sync_playwright

from test_admin_page import BASE, api, base  # the same admin URL and API client as the page test

GROUP = "walkers-london"  # a group of fleets/demo.yaml

pytestmark = pytest.mark.skipif(not BASE, reason="set BEEKON_ADMIN_URL to the admin server's base URL (or use checks/browser/run.sh)")


def admin_port():
    return urlsplit(base()).port


# The attacks, run in the attacker's page (ADMIN is the admin's base URL as the page sees it).
# Each outcome is "status" when the page could read the answer, else "opaque"/"error: …".
FETCH_ATTACKS = """
async (ADMIN) => {
  const spawn = JSON.stringify({group: "%(group)s", count: 7});
  const warp = JSON.stringify({warp: 3});
  const attempts = {
    "POST json (cors)": () => fetch(ADMIN + "api/v1/devices", {method: "POST", headers: {"Content-Type": "application/json"}, body: spawn}),
    "POST json (no-cors)": () => fetch(ADMIN + "api/v1/devices", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/json"}, body: spawn}),
    "POST text/plain (cors)": () => fetch(ADMIN + "api/v1/devices", {method: "POST", headers: {"Content-Type": "text/plain"}, body: spawn}),
    "POST text/plain (no-cors)": () => fetch(ADMIN + "api/v1/devices", {method: "POST", mode: "no-cors", body: spawn}),
    "POST form-urlencoded (no-cors)": () => fetch(ADMIN + "api/v1/devices", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: spawn}),
    "PATCH json (cors)": () => fetch(ADMIN + "api/v1/fleet", {method: "PATCH", headers: {"Content-Type": "application/json"}, body: warp}),
    "PATCH text/plain (no-cors)": () => fetch(ADMIN + "api/v1/fleet", {method: "PATCH", mode: "no-cors", body: warp}),
    "POST fleet actions text/plain (no-cors)": () => fetch(ADMIN + "api/v1/fleet/actions", {method: "POST", mode: "no-cors", body: JSON.stringify({action: "kill", selector: {all: true}})}),
  };
  const outcomes = {};
  for (const [name, attempt] of Object.entries(attempts)) {
    try {
      const response = await attempt();
      outcomes[name] = response.type === "opaque" ? "opaque" : String(response.status);
    } catch (e) {
      outcomes[name] = "error: " + e.message;
    }
  }
  return outcomes;
}
""" % {"group": GROUP}

# A text/plain form whose body is JSON: `{"group":"x=","group":"walkers-london","count":7}` (the
# last member of a name wins), the classic way to post JSON from a form.
FORM_PAGE = """<!doctype html><title>win a prize</title>
<form method="POST" action="%(admin)sapi/v1/devices" enctype="text/plain">
<input type="hidden" name='{"group":"x' value='","group":"%(group)s","count":7}'>
</form><script>document.forms[0].submit()</script>"""


class AttackerServer:
    """A second local HTTP server: another origin, serving the attacker's pages."""

    def __init__(self, admin):
        pages = {"/": "<!doctype html><title>attacker</title><p>hello</p>", "/form": FORM_PAGE % {"admin": admin, "group": GROUP}}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path.split("?")[0])
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                data = (body or "not found").encode()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def attacker():
    server = AttackerServer(base())
    yield server
    server.close()


@pytest.fixture(scope="module")
def browser():
    exe = os.environ.get("BEEKON_CHROMIUM") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    rules = "MAP rebind.test 127.0.0.1, MAP attacker.test 127.0.0.1"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", f"--host-resolver-rules={rules}"])
        yield b
        b.close()


@pytest.fixture
def unchanged():
    """Checks after the test, through the API with a proper Host, that the attacks changed nothing:
    one legitimate spawn of 1 afterwards leaves exactly one more device, and the warp is as before."""
    before = api("GET", "api/v1/fleet")
    yield
    after_attacks = api("GET", "api/v1/fleet")
    assert after_attacks["warp"] == before["warp"], "an attack changed the warp"
    assert after_attacks["devices"] == before["devices"], "an attack spawned devices"
    # The snapshot after a command's answer shows the command, so any accepted attack shows by now.
    api("POST", "api/v1/devices", {"group": GROUP, "count": 1})
    after = api("GET", "api/v1/fleet")
    assert after["devices"] == before["devices"] + 1
    assert after["warp"] == before["warp"]


@pytest.mark.parametrize("attacker_host", ["127.0.0.1", "attacker.test"])
def test_a_page_on_another_origin_cannot_spawn_devices_or_change_the_warp_with_fetch(browser, attacker, unchanged, attacker_host):
    ctx = browser.new_context()
    page = ctx.new_page()
    seen = []
    page.on("response", lambda r: seen.append((r.request.method, r.url, r.status)))
    page.goto(f"http://{attacker_host}:{attacker.port}/")
    outcomes = page.evaluate(FETCH_ATTACKS, base())
    ctx.close()
    # Nothing the page can read says it worked.
    for name, outcome in outcomes.items():
        assert outcome in ("opaque", "403", "415") or outcome.startswith("error:"), f"{name}: {outcome}"
    # The simple requests the browser did send were refused by the admin (403), not just unreadable.
    sent = [(m, u, s) for (m, u, s) in seen if u.startswith(base()) and m in ("POST", "PATCH")]
    assert sent, f"no attack request reached the admin: {outcomes} {seen}"
    for method, url, status in sent:
        assert status in (403, 415), f"{method} {url} answered {status}"


def test_an_auto_submitted_form_on_another_origin_cannot_spawn_devices(browser, attacker, unchanged):
    ctx = browser.new_context()
    page = ctx.new_page()
    with page.expect_response(lambda r: r.url == base() + "api/v1/devices" and r.request.method == "POST") as answer:
        page.goto(f"http://attacker.test:{attacker.port}/form")
    status = answer.value.status
    body = answer.value.text()
    ctx.close()
    assert status == 403, f"the form post was answered {status}: {body}"


def test_a_dns_rebinding_page_cannot_reach_the_admin(browser, unchanged):
    ctx = browser.new_context()
    page = ctx.new_page()
    origin = f"http://rebind.test:{admin_port()}/"
    first = page.goto(origin)
    assert first.status == 421, "the admin answered a page under a foreign name"
    # The attacker's script now runs in a page of the admin's origin, so its fetches are same-origin
    # (the page can read the answers, and Origin matches Host): only the Host check stands.
    seen = []
    page.on("response", lambda r: seen.append((r.request.method, r.url, r.status)))
    outcomes = page.evaluate(FETCH_ATTACKS, origin)
    reads = page.evaluate("async (url) => { const r = await fetch(url + 'api/v1/fleet'); return [r.status, await r.text()]; }", origin)
    ctx.close()
    for name, outcome in outcomes.items():
        # Same-origin answers are readable; only PATCH in no-cors mode is not even sent.
        refused_by_browser = "unsupported in no-cors mode" in outcome
        assert outcome in ("421", "opaque") or refused_by_browser, f"{name}: {outcome}"
    sent = [(m, u, s) for (m, u, s) in seen if m in ("POST", "PATCH")]
    assert len(sent) >= 6, f"the attacks did not reach the admin: {outcomes} {seen}"
    for method, url, status in sent:
        assert status == 421, f"{method} {url} answered {status}"
    assert reads[0] == 421 and "--admin-allowed-host" in reads[1], reads
