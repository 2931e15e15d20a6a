"""Browser test of the admin page (web/) against a running admin server.

BEEKON_ADMIN_URL   base URL of the admin server, e.g. http://127.0.0.1:8080/ (required; skipped without it)
BEEKON_ADMIN_TOKEN the admin token, when the server has one (optional)
BEEKON_CHROMIUM    the browser binary (default /usr/bin/chromium when it exists, else Playwright's own)

Run with checks/browser/run.sh, which starts beekon-fleet for you, or by hand:
    BEEKON_ADMIN_URL=http://127.0.0.1:8080/ python3 -m pytest -v checks/browser
"""
import json
import os
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

BASE = os.environ.get("BEEKON_ADMIN_URL", "")
TOKEN = os.environ.get("BEEKON_ADMIN_TOKEN", "")
ARTIFACTS = Path(__file__).parent / "artifacts"
REVOKED = "paused(permissionRevoked)"

pytestmark = pytest.mark.skipif(not BASE, reason="set BEEKON_ADMIN_URL to the admin server's base URL (or use checks/browser/run.sh)")


def base():
    return BASE if BASE.endswith("/") else BASE + "/"


def api(method, path, body=None):
    req = urllib.request.Request(base() + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Accept", "application/json")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if TOKEN:
        req.add_header("Authorization", "Bearer " + TOKEN)
    with urllib.request.urlopen(req, timeout=10) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


@pytest.fixture(scope="module")
def browser():
    exe = os.environ.get("BEEKON_CHROMIUM") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


# A 1×1 PNG: the map's OpenStreetMap tiles, answered here (a test machine may be offline).
TILE = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082")
OSM = "https://tile.openstreetmap.org/**"


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.route(OSM, lambda route: route.fulfill(status=200, content_type="image/png", body=TILE))
    if TOKEN:
        ctx.add_init_script("sessionStorage.setItem('beekonAdminToken', %s)" % json.dumps(TOKEN))
    pg = ctx.new_page()
    errors = []
    pg.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    pg.console_errors = errors
    pg.set_default_timeout(15_000)
    pg.goto(base())
    pg.wait_for_function("document.querySelector('#fleet-name').textContent !== '…'")
    yield pg
    ctx.close()


def wait_rows(page, ids, state, timeout_s, refresh=True):
    """Waits until every row of `ids` in the devices table has data-state `state`."""
    deadline = time.monotonic() + timeout_s
    check = """([ids, state]) => ids.every(id => {
        const tr = document.querySelector(`#dev-table tbody tr[data-id="${CSS.escape(id)}"]`);
        return tr && tr.dataset.state === state && tr.querySelector('[data-state]').dataset.state === state;
    })"""
    while time.monotonic() < deadline:
        if page.evaluate(check, [ids, state]):
            return
        if refresh:
            page.click("#dev-refresh")
        page.wait_for_timeout(1000)
    shown = page.evaluate("""() => [...document.querySelectorAll('#dev-table tbody tr[data-id]')].map(tr => `${tr.dataset.id}=${tr.dataset.state}`)""")
    pytest.fail(f"devices did not all reach {state} within {timeout_s}s; table shows {shown}")


def test_spawn_revoke_and_grant_permission(page):
    group = api("GET", "api/v1/fleet")["groups"][0]

    # Spawn 20 copies of the first group's template through the Spawn form.
    page.click("#tab-spawn")
    page.check("input[name=spawn-mode][value=group]")
    # The groups arrive with the page's first fleet summary, which a busy machine can hold back.
    page.wait_for_selector(f"#sp-group option[value='{group}']", state="attached", timeout=60_000)
    page.select_option("#sp-group", group)
    page.fill("#sp-count", "20")
    page.fill("#sp-rate", "")
    page.click("#spawn-form button[type=submit]")
    page.wait_for_selector("#sp-result[data-ok=true]")
    ids = json.loads(page.get_attribute("#sp-result", "data-ids"))
    assert len(ids) == 20, ids

    # Show them in the table: their group, newest first, 20 rows.
    page.click("#sp-show")
    assert page.get_attribute("#tab-devices", "aria-selected") == "true"
    assert page.input_value("#f-group") == group
    assert page.get_attribute("#dev-table th[data-sort=id]", "aria-sort") == "descending"
    wait_rows(page, ids, "tracking", 120)
    shown = page.eval_on_selector_all("#dev-table tbody tr[data-id]", "rows => rows.map(r => r.dataset.id)")
    assert sorted(shown) == sorted(ids), shown

    # Select the page and revoke permission from the selection bar.
    page.check("#sel-page")
    assert page.text_content("#sel-count") == "20 selected"
    page.click("[data-bulk=revokePermission]")
    page.wait_for_function("document.querySelector('#status').textContent.includes('revokePermission applied to 20 devices')")
    wait_rows(page, ids, REVOKED, 60, refresh=False)  # SSE `devices` events update the rows

    # The detail dialog shows the device and its state history; Esc closes it.
    page.click(f"#dev-table tr[data-id='{ids[0]}'] button.link")
    page.wait_for_selector(f"#d-summary [data-state='{REVOKED}']")
    page.wait_for_selector(f"#d-timeline [data-state='{REVOKED}']")
    # Its SDK streams: the sync engine went in flight for its uploads (most recent first).
    page.wait_for_selector("#d-streams table tbody tr")
    assert "syncStatus" in page.text_content("#d-streams")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.querySelector('#detail').open")

    # Grant it back; they track again.
    page.click("[data-bulk=grantPermission]")
    page.wait_for_function("document.querySelector('#status').textContent.includes('grantPermission applied to 20 devices')")
    wait_rows(page, ids, "tracking", 60, refresh=False)

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-page.png"))
    assert page.console_errors == [], page.console_errors

    for i in ids:  # leave the fleet as it was (best effort)
        try:
            api("DELETE", "api/v1/devices/" + i)
        except OSError:
            pass


def test_every_tab_renders_without_errors(page):
    page.wait_for_selector("#stats-table tbody tr")
    page.wait_for_function("document.querySelector('#conn').dataset.conn === 'live'")
    for tab in ["devices", "map", "faults", "spawn", "overview"]:
        page.click(f"#tab-{tab}")
        assert page.is_visible(f"#panel-{tab}")
        page.wait_for_timeout(500)
    page.wait_for_selector("#dev-table tbody tr[data-id]", state="attached")
    # Pause and resume the fleet from the header.
    page.click("#pause-btn")
    page.wait_for_function("document.querySelector('#paused-state').textContent === 'paused'")
    page.click("#pause-btn")
    page.wait_for_function("document.querySelector('#paused-state').textContent === 'running'")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "overview.png"))
    assert page.console_errors == [], page.console_errors


def test_faults_form_is_built_from_the_action_catalog(page):
    catalog = api("GET", "api/v1/actions")["actions"]
    page.click("#tab-faults")
    options = page.eval_on_selector_all("#fa-action option", "os => os.map(o => o.value)")
    assert options == [a["name"] for a in catalog], options

    # latency's one parameter, with the range and unit the catalog gives, prefilled with its example.
    latency = next(a for a in catalog if a["name"] == "latency")
    ms = latency["params"][0]
    page.select_option("#fa-action", "latency")
    summary = latency["summary"]
    assert page.text_content("#fa-help").startswith(summary[0].upper() + summary[1:])
    assert page.get_attribute("#fa-p-ms", "min") == "0" and page.get_attribute("#fa-p-ms", "max") == "600000"
    assert "ms" in page.text_content("label[for=fa-p-ms]")
    assert page.input_value("#fa-p-ms") == ms["example"]

    # Applied to every device, then undone as the catalog says (latency back to 0 ms).
    page.check("input[name=sel][value=all]")
    page.fill("#fa-p-ms", "250")
    page.click("#fault-form button[type=submit]")
    page.wait_for_selector("#fa-result[data-ok=true]")
    assert page.text_content("#fa-result").startswith("latency applied to")
    page.wait_for_function("[...document.querySelectorAll('#action-log strong')].some(s => s.textContent === 'latency')")
    assert latency["undoneBy"] == {"action": "latency", "params": {"ms": 0}}
    page.fill("#fa-p-ms", "0")
    page.click("#fault-form button[type=submit]")
    page.wait_for_function("[...document.querySelectorAll('#action-log strong')].filter(s => s.textContent === 'latency').length === 2")

    # An action without parameters shows none; a value outside the catalog's range is held back
    # by the form itself (the input carries the range), and nothing is sent.
    page.select_option("#fa-action", "sync")
    assert page.eval_on_selector_all("#fa-params [data-param]", "ps => ps.length") == 0
    page.select_option("#fa-action", "timeouts")
    page.fill("#fa-p-fraction", "2")
    assert page.evaluate("!document.querySelector('#fa-p-fraction').checkValidity()")
    # (The log also shows the demo fleet's own timeline faults and SDK stream values as they come,
    # so only a `timeouts` action would say something was sent.)
    page.click("#fault-form button[type=submit]")
    page.wait_for_timeout(500)
    assert page.eval_on_selector_all(
        "#action-log strong", "items => items.filter(s => s.textContent === 'timeouts').length") == 0
    assert page.console_errors == [], page.console_errors


def test_a_standby_bucket_from_the_faults_form_shows_in_a_device_world(page):
    # The catalog's choice parameter is a select; the device dialog's World section shows the result.
    page.click("#tab-faults")
    page.select_option("#fa-action", "standbyBucket")
    page.select_option("#fa-p-bucket", "rare")
    page.check("input[name=sel][value=all]")
    page.click("#fault-form button[type=submit]")
    page.wait_for_selector("#fa-result[data-ok=true]")
    page.click("#tab-devices")
    row = page.wait_for_selector("#dev-table tbody tr[data-id] button.link")
    device = page.eval_on_selector("#dev-table tbody tr[data-id]", "tr => tr.dataset.id")
    row.click()
    page.wait_for_function(
        "[...document.querySelectorAll('#d-summary dt')].some(dt => dt.textContent === 'App Standby bucket' "
        "&& dt.nextElementSibling.textContent === 'rare')")
    assert "Battery manager kills/day" in page.text_content("#d-summary")
    page.keyboard.press("Escape")
    # Back to the groups' own (active), as the catalog's ending says.
    page.click("#tab-faults")
    page.select_option("#fa-action", "standbyBucket")
    page.select_option("#fa-p-bucket", "")
    page.click("#fault-form button[type=submit]")
    page.wait_for_function("[...document.querySelectorAll('#action-log strong')].filter(s => s.textContent === 'standbyBucket').length === 2")
    assert api("GET", f"api/v1/devices/{device}")["world"]["standbyBucket"] == "active"
    assert page.console_errors == [], page.console_errors


def test_set_warp_takes_max_and_a_rate_and_shows_a_refusal(page):
    before = api("GET", "api/v1/fleet")
    assert not before["maxWarp"]
    # max: the clock leaves the wall behind, with modelled answers from then on.
    page.fill("#warp-input", "max")
    page.click("#warp-form button[type=submit]")
    page.wait_for_function("document.querySelector('#warp').textContent.startsWith('max (×')")
    fleet = api("GET", "api/v1/fleet")
    assert fleet["maxWarp"] and fleet["deterministic"], fleet
    # Not a warp: the server's refusal, naming the field, and nothing changes.
    page.fill("#warp-input", "fast")
    page.click("#warp-form button[type=submit]")
    page.wait_for_function("!document.querySelector('#error').hidden && document.querySelector('#error').textContent.includes('`warp` must be')")
    assert api("GET", "api/v1/fleet")["maxWarp"]
    # A rate hands the clock back to the wall; the timing stays modelled and says so.
    page.fill("#warp-input", str(before["warp"]))
    page.click("#warp-form button[type=submit]")
    page.wait_for_function("document.querySelector('#warp').textContent.includes('modelled')")
    after = api("GET", "api/v1/fleet")
    assert not after["maxWarp"] and after["warp"] == before["warp"], after
    # The browser logs the refused request itself (a 400); nothing else went wrong.
    others = [e for e in page.console_errors if "status of 400" not in e]
    assert others == [], page.console_errors


def test_reset_statistics_starts_the_table_over(page):
    page.wait_for_selector("#stats-table tbody tr")
    page.wait_for_function("document.querySelector('#stats-table tbody th') !== null", timeout=60_000)
    before = api("GET", "api/v1/stats")
    assert before["outcomes"], "no uploads yet to reset"
    page.click("#stats-reset")
    page.wait_for_function("document.querySelector('#stats-updated').textContent.includes('since the reset at')")
    after = api("GET", "api/v1/stats")
    assert after["since"] is not None
    # What came in since the reset is less than what was counted before it.
    assert sum(o["count"] for o in after["outcomes"]) < sum(o["count"] for o in before["outcomes"])
    assert page.console_errors == [], page.console_errors


def test_devices_sort_survives_a_reload_and_outcomes_keep_their_class_colour(page):
    page.click("#tab-devices")
    page.wait_for_selector("#dev-table tbody tr[data-id]")
    page.click("#dev-table th[data-sort=pending] button")
    page.click("#dev-table th[data-sort=pending] button")
    page.wait_for_function("document.querySelector('#dev-table th[data-sort=pending]').getAttribute('aria-sort') === 'descending'")
    page.reload()
    page.click("#tab-devices")
    page.wait_for_function("document.querySelector('#dev-table th[data-sort=pending]').getAttribute('aria-sort') === 'descending'")
    colours = page.evaluate("""async () => {
        const m = await import('./charts.js');
        return ['200', '204', 'refused', 'timeout', 'reset', '503', '429', 'offline'].map((k, i) => m.colorFor(k, i));
    }""")
    greens = set(colours[:2])
    assert not greens & set(colours[2:]), colours
    assert page.console_errors == [], page.console_errors


def test_faults_timeline_groups_and_scaling(page):
    # A fault applied through the API is listed after the fleet file's timeline, with its source.
    applied = api("POST", "api/v1/fleet/actions", {"action": "networkOffline", "selector": {"fraction": 0.05, "seed": 3}})
    assert "applied" in applied, applied
    # The Faults tab lists the faults as the API does, each with its phase: the file's two, then
    # the API's (earlier tests' actions from the page too, each ended by its opposite).
    faults = api("GET", "api/v1/faults")["faults"]
    assert [f["action"] for f in faults if f["source"] == "timeline"] == ["networkOffline", "revokePermission"], faults
    ours = faults[-1]
    assert ours["source"] == "api" and ours["action"] == "networkOffline" and ours["endable"], ours
    page.click("#tab-faults")
    page.wait_for_function(f"document.querySelectorAll('#fault-timeline tbody tr[data-fault]').length === {len(faults)}")
    phases = page.eval_on_selector_all("#fault-timeline tbody tr", "rs => rs.map(r => r.dataset.phase)")
    assert set(phases) <= {"upcoming", "active", "done"}, phases
    actions = page.eval_on_selector_all("#fault-timeline tbody tr td strong", "ss => ss.map(s => s.textContent)")
    assert actions == [f["action"] for f in faults], actions
    row = f"#fault-timeline tbody tr[data-fault='{ours['fault']}']"
    assert page.text_content(f"{row} td:nth-child(2)") == "API"
    # End now ends it as it ends a timeline fault.
    page.click(f"{row} button")
    page.wait_for_selector(f"{row}[data-phase=done]")
    assert not any(f["fault"] == ours["fault"] for f in api("GET", "api/v1/fleet")["activeFaults"])

    # The overview's group rows: one per group of the demo fleet, from the run report.
    page.click("#tab-overview")
    page.wait_for_function("document.querySelectorAll('#group-table tbody tr[data-group]').length === 3", timeout=20_000)
    groups = page.eval_on_selector_all("#group-table tbody tr[data-group]", "rs => rs.map(r => r.dataset.group)")
    assert groups == ["walkers-london", "cyclists-berlin", "drivers-paris"], groups

    # Scale down from the header and back: the header shows the target, the API the stopped devices.
    page.fill("#devices-input", "60")
    page.click("#devices-form button[type=submit]")
    page.wait_for_function("document.querySelector('#device-count').textContent.includes('target 60')")
    fleet = api("GET", "api/v1/fleet")
    assert fleet["targetDevices"] == 60 and fleet["byState"].get("stopped", 0) >= 40, fleet["byState"]
    page.fill("#devices-input", "100")
    page.click("#devices-form button[type=submit]")
    page.wait_for_function("document.querySelector('#device-count').textContent.includes('target 100')")
    assert page.console_errors == [], page.console_errors
    # A count out of range is refused, and said (the browser logs the 400 itself).
    page.fill("#devices-input", "100001")
    page.eval_on_selector("#devices-input", "i => i.removeAttribute('max')")
    page.click("#devices-form button[type=submit]")
    page.wait_for_function("!document.querySelector('#error').hidden && document.querySelector('#error').textContent.includes('devices')")
    assert all("status of 400" in e for e in page.console_errors), page.console_errors


def test_the_map_is_leaflet_on_openstreetmap_tiles_and_the_grid_when_they_cannot_load(browser):
    # Online (tiles answered): Leaflet's map with the devices as canvas markers.
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    if TOKEN:
        ctx.add_init_script("sessionStorage.setItem('beekonAdminToken', %s)" % json.dumps(TOKEN))
    tiles = []
    ctx.route(OSM, lambda route: (tiles.append(route.request.url),
                                  route.fulfill(status=200, content_type="image/png", body=TILE)))
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    page.goto(base())
    page.click("#tab-map")
    page.wait_for_selector("#map-tiles .leaflet-tile-loaded", state="attached", timeout=20_000)
    assert page.is_visible("#map-tiles") and not page.is_visible("#map")
    page.wait_for_function("document.querySelector('#map-info').textContent.includes('devices')", timeout=20_000)
    assert tiles, "no tile was asked for"
    assert page.eval_on_selector("#map-tiles", "m => m.querySelectorAll('canvas').length") >= 1
    ctx.close()

    # Offline (every tile fails): the page's own grid map takes over, with the same devices.
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    if TOKEN:
        ctx.add_init_script("sessionStorage.setItem('beekonAdminToken', %s)" % json.dumps(TOKEN))
    ctx.route(OSM, lambda route: route.abort())
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    page.goto(base())
    page.click("#tab-map")
    page.wait_for_function("!document.querySelector('#map').hidden && document.querySelector('#map-tiles').hidden",
                           timeout=20_000)
    page.wait_for_function("document.querySelector('#map-info').textContent.includes('devices')", timeout=20_000)
    ctx.close()
    assert errors == [], errors
