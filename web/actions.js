// The Faults tab: apply any action, with its parameters, to a selector of devices; and the log
// of recent actions from the live stream.
import { $, el, num, longTime } from "./dom.js";
import { api, on, ApiError, say, showError, clearError } from "./api.js";
import { showTab } from "./tabs.js";
import { selected } from "./selection.js";

const ACTIONS = {
  start: "Start tracking (the app intends to track).",
  stop: "Stop tracking.",
  sync: "Ask the SDK to upload now.",
  configure: { help: "Apply an SDK config (partial config object).", params: [["config", "json", '{"sync": {"intervalSeconds": 30}}']] },
  setExtras: { help: "Set the extras attached to each fix.", params: [["extras", "json", '{"team": "blue"}']] },
  addGeofences: { help: "Add geofences.", params: [["geofences", "json", '[{"id": "office", "latitude": 51.508, "longitude": -0.128, "radius": 150}]']] },
  removeGeofences: { help: "Remove geofences by id.", params: [["ids", "list", "office"]] },
  revokePermission: "The user revokes location permission (tracking pauses).",
  grantPermission: "The user grants location permission again.",
  locationServicesOff: "System-wide location services off.",
  locationServicesOn: "System-wide location services on.",
  osError: "A transient OS location error.",
  background: "The app goes to the background.",
  foreground: "The app comes to the foreground.",
  kill: { help: "The OS kills the app. Android: WorkManager relaunches it after relaunchAfterSeconds (default 60). iOS: it stays dead until the phone has moved 500 m (a significant location change) or, with relaunchAfterSeconds, until the user opens it then, whichever comes first.", params: [["relaunchAfterSeconds", "number", "", "optional"]] },
  reboot: { help: "The phone reboots: down for relaunchAfterSeconds (default 60). Android: the boot receiver then relaunches the app. iOS: the app stays dead until the phone has moved 500 m from where it booted.", params: [["relaunchAfterSeconds", "number", "", "optional"]] },
  networkOffline: "The network goes away (fixes build a backlog).",
  networkOnline: "The network comes back.",
  latency: { help: "Add latency to every upload.", params: [["ms", "number", "800"]] },
  timeouts: { help: "Make a fraction of uploads time out.", params: [["fraction", "number", "0.2"]] },
};
const faSel = $("#fa-action");
faSel.replaceChildren(...Object.keys(ACTIONS).map(a => el("option", { value: a, text: a })));
faSel.value = "revokePermission";
function renderParams() {
  const spec = ACTIONS[faSel.value];
  $("#fa-help").textContent = typeof spec === "string" ? spec : spec.help;
  const params = typeof spec === "string" ? [] : spec.params;
  $("#fa-params").replaceChildren(...params.map(([name, type, value, optional]) => {
    const id = `fa-p-${name}`;
    const label = el("label", { for: id, text: `${name}${type === "json" ? " (JSON)" : type === "list" ? " (comma-separated)" : ""}${optional ? " (optional)" : ""}` });
    const input = type === "json"
      ? el("textarea", { id, rows: 4, spellcheck: "false", "data-param": name, "data-type": type })
      : el("input", { id, type: type === "number" ? "number" : "text", step: "any", "data-param": name, "data-type": type, "data-optional": optional ? "1" : null });
    input.value = value;
    return el("div", { class: "param" }, label, input);
  }));
}
faSel.addEventListener("change", renderParams);
renderParams();
function readParams() {
  const out = {};
  for (const inp of document.querySelectorAll("#fa-params [data-param]")) {
    const name = inp.dataset.param, t = inp.dataset.type, v = inp.value.trim();
    if (!v) { if (inp.dataset.optional) continue; throw new ApiError(0, "bad_request", `${name} is required`, `params.${name}`); }
    if (t === "number") { const n = Number(v); if (!Number.isFinite(n)) throw new ApiError(0, "bad_type", `${name} must be a number`, `params.${name}`); out[name] = n; }
    else if (t === "list") out[name] = v.split(",").map(s => s.trim()).filter(Boolean);
    else { try { out[name] = JSON.parse(v); } catch (e) { throw new ApiError(0, "bad_type", `${name} is not valid JSON (${e.message})`, `params.${name}`); } }
  }
  return Object.keys(out).length ? out : undefined;
}
function readSelector() {
  const kind = document.querySelector("input[name=sel]:checked").value;
  if (kind === "all") return { all: true };
  if (kind === "group") return { group: $("#fa-group").value };
  if (kind === "state") return { state: $("#fa-state").value.trim() };
  if (kind === "ids") {
    if (!selected.size) throw new ApiError(0, "bad_request", "No devices are selected in the table", "selector.ids");
    return { ids: [...selected] };
  }
  const sel = { fraction: Number($("#fa-fraction").value) };
  if ($("#fa-seed").value !== "") sel.seed = Number($("#fa-seed").value);
  return sel;
}
$("#fault-form").addEventListener("submit", async e => {
  e.preventDefault();
  const out = $("#fa-result");
  out.dataset.ok = "false";
  try {
    const body = { action: faSel.value, selector: readSelector() };
    const params = readParams();
    if (params) body.params = params;
    const r = await api("POST", "api/v1/fleet/actions", body);
    out.textContent = `${body.action} applied to ${num(r.applied)} device${r.applied === 1 ? "" : "s"}.`;
    out.dataset.ok = "true";
    say(out.textContent); clearError();
  } catch (err) {
    out.textContent = `Not applied: ${err.message}${err.field ? ` (field ${err.field})` : ""}`;
    showError(err, `Applying ${faSel.value}`);
  }
});
on("action", a => {
  const log = $("#action-log");
  log.prepend(el("li", {}, `${longTime(a.at)} — `, el("strong", { text: a.action }), ` on ${num(a.applied)} device${a.applied === 1 ? "" : "s"}`));
  while (log.children.length > 50) log.lastChild.remove();
});

// The count beside "Selected in the table".
export function showSelectedCount() { $("#fa-selcount").textContent = selected.size; }
// The selection bar's "More faults…": this form, aimed at the table's selection.
export function actOnSelection() {
  document.querySelector('input[name=sel][value=ids]').checked = true;
  showTab("faults"); $("#fa-action").focus();
}
on("tab", t => { if (t === "faults") showSelectedCount(); });
