// The device detail dialog (summary, state timeline, route, uploads, fixes, config) and the
// actions on one device, which the devices table's row menu offers too.
import { $, el, num, ms, shortTime, longTime, debounce, stateKind, stateBadge, streamText } from "./dom.js";
import { api, emit, on, say, showError, clearError } from "./api.js";
import { fleet } from "./fleet.js";
import { showRoute } from "./map-panel.js";
import { FleetMap } from "./map.js";

export const ROW_ACTIONS = [
  ["Details…", null], ["Revoke permission", "revokePermission"], ["Grant permission", "grantPermission"],
  ["Network off", "networkOffline"], ["Network on", "networkOnline"], ["Sync now", "sync"],
  ["Kill", "kill"], ["Kill, relaunch in 30 s", "kill", { relaunchAfterSeconds: 30 }], ["Start", "start"], ["Stop", "stop"],
  ["Get current location", "getCurrentLocation"],
];
// The last getCurrentLocation answer, as the detail lists it.
function currentLocationText(c) {
  if (!c) return "–";
  const at = `#${c.requestId} at ${longTime(c.at)}`;
  if (c.answer === "fix") {
    const f = c.fix;
    return `${f.latitude.toFixed(5)}, ${f.longitude.toFixed(5)}${f.accuracy == null ? "" : ` ±${f.accuracy} m`}${f.quality ? ` (${f.quality})` : ""} · ${at}`;
  }
  return `${c.answer}${c.reason ? ` (${c.reason})` : ""} · ${at}`;
}
export async function deviceAction(id, action, params) {
  try {
    await api("POST", `api/v1/devices/${encodeURIComponent(id)}/actions`, params ? { action, params } : { action });
    say(`${action} applied to ${id}`);
    clearError();
    if (id === detailId) refreshDetailSoon();
  } catch (e) { showError(e, `${action} on ${id}`); }
}

let detailId = null, detailMap = null;
const detailDlg = $("#detail");
export async function openDetail(id) {
  detailId = id;
  $("#d-title").textContent = id;
  const body = $("#d-body");
  body.replaceChildren(
    el("div", { class: "d-actions", role: "group", "aria-label": "Device actions" },
      ...ROW_ACTIONS.slice(1).map(([label, action, params]) => el("button", { type: "button", text: label, onclick: () => deviceAction(id, action, params) })),
      el("button", { type: "button", text: "Show route on map", onclick: () => { detailDlg.close(); showRoute(id); } }),
      el("button", { type: "button", text: "Delete device", onclick: () => deleteDevice(id) })),
    el("div", { id: "d-summary", class: "kv" }),
    el("h3", { text: "State timeline" }), el("div", { id: "d-timeline" }),
    el("div", { class: "d-grid" },
      el("div", {}, el("h3", { text: "Route (recent fixes)" }), el("canvas", { id: "d-route", role: "img", "aria-label": `Recent fixes of ${id}` })),
      el("div", {}, el("h3", { text: "Uploads" }), el("div", { class: "table-wrap", id: "d-uploads" }))),
    el("h3", { text: "SDK streams (syncStatus, authChanges)" }), el("div", { class: "table-wrap", id: "d-streams", style: "max-height:220px" }),
    el("h3", { text: "Recent fixes" }), el("div", { class: "table-wrap", id: "d-fixes", style: "max-height:220px" }),
    el("h3", { text: "SDK config" }), el("pre", { class: "json", id: "d-config" }));
  if (!detailDlg.open) detailDlg.showModal();
  detailMap = new FleetMap($("#d-route"));
  await refreshDetail(true);
}
$("#d-close").addEventListener("click", () => detailDlg.close());
detailDlg.addEventListener("close", () => { detailId = null; detailMap = null; });
const refreshDetailSoon = debounce(() => { if (detailId) refreshDetail(false); }, 1000);
on("devices", ev => { if ((ev.changes || []).some(c => c.id === detailId)) refreshDetailSoon(); });

const storeErrorText = e => (e ? `${e.cause}: ${e.message} (since ${longTime(e.since)})` : "ok");
// The phone's world (network, flapping, Doze, App Standby, battery manager, clock), as rows.
function worldRows(w) {
  if (!w) return [];
  const n = w.network, f = w.flapping;
  // A duration in ms, as a person reads it.
  const dur = v => { const a = Math.abs(v); return `${v < 0 ? "−" : ""}${a >= 3600000 ? `${+(a / 3600000).toFixed(2)} h` : a >= 60000 ? `${+(a / 60000).toFixed(1)} min` : `${+(a / 1000).toFixed(1)} s`}`; };
  return [
    ["Network", n ? `${num(n.uplinkKbps)} kbit/s up, ${n.latencyMedianMillis}/${n.latencyP95Millis} ms, loss ${n.loss}` : "not modelled"],
    ["Flapping", f ? `${dur(f.meanOnlineMillis)} up, ${dur(f.meanOfflineMillis)} down (means), handover ${f.handover} · ${w.networkUp ? "up" : "down"} now` : "none"],
    ["Captive portal", w.captivePortal ?? "none"],
    ["Latency · timeouts (faults)", `${w.latencyMillis} ms · ${w.timeoutFraction}`],
    ["Doze", w.doze ?? "never"], ["App Standby bucket", w.standbyBucket],
    ["Battery manager kills/day", w.oemKillsPerDay],
    ["Clock", w.clockOffsetMillis == null ? "true time" : `${w.clockOffsetMillis > 0 ? "+" : ""}${dur(w.clockOffsetMillis)} off true time`]];
}
async function refreshDetail(first) {
  const id = detailId;
  const enc = encodeURIComponent(id);
  let d, locs, ups;
  try {
    [d, locs, ups] = await Promise.all([
      api("GET", `api/v1/devices/${enc}`),
      api("GET", `api/v1/devices/${enc}/locations?limit=200`),
      api("GET", `api/v1/devices/${enc}/uploads`)]);
  } catch (e) {
    if (id === detailId) $("#d-summary").replaceChildren(el("p", { class: "outcome-bad", text: `Could not load ${id}: ${e.message} (${e.code})` }));
    return;
  }
  if (id !== detailId) return;
  const kv = (title, pairs, attrs = {}) => el("section", attrs, el("h3", { text: title }),
    el("dl", {}, ...pairs.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, v instanceof Node ? v : String(v ?? "–"))])));
  const s = d.sync || {}, a = d.auth || {};
  $("#d-summary").replaceChildren(
    kv("Device", [["State", stateBadge(d.state, d.storeError?.message)], ["Store", storeErrorText(d.storeError)], ["Group", d.group],
      ["Platform", [d.platform, d.model].filter(Boolean).join(" · ")], ["SDK", d.sdkVersion], ["Install id", d.installId],
      ["Alive", d.alive ? "yes" : "no"]]),
    kv("OS", [["Release", d.osVersion], ["Permission", d.permission], ["Location services", d.locationServices ? "on" : "off"], ["Network", d.network],
      ["Source address", d.sourceAddress ?? "the system's"],
      ["Position", d.latitude == null ? "–" : `${d.latitude.toFixed(5)}, ${d.longitude.toFixed(5)}`],
      ["Current location", currentLocationText(d.currentLocation)]]),
    kv("Sync", [["Status", s.status], ["Pending fixes", num(d.pending)], ["Consecutive failures", s.consecutiveFailures], ["Next attempt", longTime(s.nextAttemptAt)],
      ["Last outcome", d.lastOutcome ?? "–"], ["Last upload", longTime(d.lastUploadAt)]]),
    kv("Auth", [["State", a.state], ["Valid until", longTime(a.validUntil)], ["Last refresh", a.lastRefreshOutcome ?? "–"], ["Breaker open until", longTime(a.breakerOpenUntil)]]),
    kv("World", worldRows(d.world), { class: "wide" }));
  renderTimeline(d.stateHistory || []);
  const uploads = (ups && ups.uploads) || d.uploads || [];
  $("#d-uploads").replaceChildren(miniTable(["At", "Batch", "Fixes", "Outcome heard", "Latency ms (virtual)", "Server ms (real)"],
    uploads.map(u => [shortTime(u.at), u.batchId, u.fixes, u.outcome, ms(u.latencyMs), u.serverMs == null ? "–" : ms(u.serverMs)]), "No uploads yet."));
  $("#d-streams").replaceChildren(miniTable(["At", "Stream", "Value"],
    (d.streams || []).map(r => [shortTime(r.at), r.stream, streamText(r)]), "Nothing emitted yet."));
  const fixes = (locs && locs.locations) || [];
  $("#d-fixes").replaceChildren(miniTable(["Time", "Latitude", "Longitude", "Accuracy m", "Speed m/s", "Trigger", "Uploaded"],
    fixes.slice(-100).reverse().map(f => [shortTime(f.timestamp), f.latitude?.toFixed(5), f.longitude?.toFixed(5), f.accuracy, f.speed, f.trigger, f.uploaded ? "yes" : "no"]), "No fixes stored."));
  $("#d-config").textContent = JSON.stringify(d.config ?? {}, null, 2);
  if (detailMap) {
    detailMap.setDevices(d.latitude != null ? [d] : []);
    detailMap.setRoute(id, fixes);
    if (first) { if (!detailMap.fitRoute()) detailMap.fitDevices(); }
  }
}
const RELAUNCH_CAUSES = {
  significantLocationChange: "a significant location change (iOS)", workManager: "WorkManager (Android)",
  boot: "the boot receiver (Android)", userLaunch: "the user opening the app (iOS)",
};
function renderTimeline(hist) {
  const box = $("#d-timeline");
  if (!hist.length) { box.replaceChildren(el("p", { class: "muted", text: "No state changes recorded." })); return; }
  const t = hist.map(h => Date.parse(h.at));
  const end = Math.max(fleet ? fleet.virtualTimeMillis : 0, t[t.length - 1] + 1);
  const span = Math.max(1, end - t[0]);
  const colors = { tracking: "#2b8a3e", starting: "#1f5fbf", paused: "#e67700", dead: "#c92a2a", stopped: "#495057", idle: "#adb5bd", storeError: "#862e9c" };
  const bar = el("div", { class: "timeline", "aria-hidden": "true" },
    ...hist.map((h, i) => el("span", { title: `${h.state}${h.cause ? ` (relaunched: ${h.cause})` : ""} from ${longTime(h.at)}`,
      style: `flex:${Math.max(0.002, ((t[i + 1] ?? end) - t[i]) / span)};background:${colors[stateKind(h.state)] || "#868e96"}` })));
  const list = el("ol", { class: "log small" }, ...hist.slice(-12).reverse().map(h => el("li", {}, `${longTime(h.at)} — `, stateBadge(h.state),
    h.cause ? ` relaunched by ${RELAUNCH_CAUSES[h.cause] || h.cause}` : null)));
  box.replaceChildren(bar, list);
}
function miniTable(head, rows, empty) {
  if (!rows.length) return el("p", { class: "muted", text: empty });
  return el("table", { class: "data" }, el("thead", {}, el("tr", {}, ...head.map(h => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows.map(r => el("tr", {}, ...r.map(c => el("td", { text: c ?? "–" }))))));
}
async function deleteDevice(id) {
  if (!confirm(`Delete device ${id}? Its store is removed.`)) return;
  try { await api("DELETE", `api/v1/devices/${encodeURIComponent(id)}`); say(`Deleted ${id}`); detailDlg.close(); emit("deleted", id); }
  catch (e) { showError(e, `Deleting ${id}`); }
}
