"""The admin page in Firefox (Debian's firefox-esr, driven headless over Marionette).

Playwright drives Chromium (test_admin_page.py); Firefox is driven by Mozilla's own Marionette
client, which works with the Debian build and needs no download. Skipped when firefox-esr or
marionette-driver is missing. Same environment as test_admin_page.py (BEEKON_ADMIN_URL, and
BEEKON_ADMIN_TOKEN when the server has one).
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

BASE = os.environ.get("BEEKON_ADMIN_URL", "")
TOKEN = os.environ.get("BEEKON_ADMIN_TOKEN", "")
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
ARTIFACTS = Path(__file__).parent / "artifacts"

try:
    from marionette_driver.marionette import Marionette
except ImportError:  # pragma: no cover
    Marionette = None

pytestmark = pytest.mark.skipif(
    not BASE or not FIREFOX or Marionette is None,
    reason="needs BEEKON_ADMIN_URL, firefox-esr and marionette-driver")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_page_runs_live_in_firefox():
    port = free_port()
    profile = tempfile.mkdtemp(prefix="beekon-firefox-")
    # Marionette listens on the profile's port preference, written before Firefox reads it.
    Path(profile, "user.js").write_text(f'user_pref("marionette.port", {port});\n')
    firefox = subprocess.Popen(
        [FIREFOX, "--headless", "--marionette", "--no-remote", "--profile", profile, "--window-size=1366,768"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HOME": profile})
    client = None
    try:
        deadline = time.monotonic() + 60
        while client is None:
            try:
                client = Marionette(host="127.0.0.1", port=port, startup_timeout=5)
                client.start_session()
            except Exception:
                client = None
                if time.monotonic() > deadline or firefox.poll() is not None:
                    raise
                time.sleep(0.5)
        base = BASE if BASE.endswith("/") else BASE + "/"
        client.navigate(base)
        if TOKEN:
            client.execute_script("sessionStorage.setItem('beekonAdminToken', arguments[0]); location.reload();", script_args=[TOKEN])
        client.execute_script("window.__beekonErrors = []; window.addEventListener('error', e => window.__beekonErrors.push(String(e.message)));")
        state = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = client.execute_script("""
                const text = s => (document.querySelector(s) || {}).textContent || '';
                return {
                  header: (document.querySelector('header') || {}).innerText || '',
                  statsRows: document.querySelectorAll('#stats-table tbody tr').length,
                  uploadsChart: text('#sum-uploads'),
                  errors: window.__beekonErrors || [],
                };""")
            if "live" in state["header"] and state["statsRows"] > 0 and "Waiting" not in state["uploadsChart"]:
                break
            time.sleep(0.5)
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "firefox-overview.png").write_bytes(client.screenshot(format="binary"))
        assert "live" in state["header"], f"the live event stream never connected: {json.dumps(state)}"
        assert state["statsRows"] > 0, "the statistics table stayed empty"
        assert "Waiting" not in state["uploadsChart"], "the uploads chart never drew"
        assert not state["errors"], f"errors in Firefox: {state['errors']}"
    finally:
        if client is not None:
            try:
                client.delete_session()
            except Exception:
                pass
        firefox.terminate()
        try:
            firefox.wait(timeout=10)
        except subprocess.TimeoutExpired:
            firefox.kill()
        shutil.rmtree(profile, ignore_errors=True)
