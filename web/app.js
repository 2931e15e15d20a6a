// Beekon Fleet admin page: a client of the admin REST API v1 and its SSE stream, nothing else.
import { TimeChart } from "./charts.js";
import { FleetMap } from "./map.js";

/* ---------- small helpers ---------- */
const $ = sel => document.querySelector(sel);
function el(tag, attrs = {}, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === "class") n.className = v;
    else if (k === "text") n.textContent = v;
    else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(n.dataset, v);
    else n.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k != null) n.append(k);
  return n;
}
const NF = new Intl.NumberFormat("en-US");
const num = v => (v == null ? "–" : NF.format(v));
function ms(v) {
  if (v == null) return "–";
  return v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US");
}
const shortTime = iso => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "").slice(11) : "–");
const longTime = iso => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") + " UTC" : "–");
const debounce = (f, wait) => { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => f(...a), wait); }; };

const STATE_LABELS = {
  "paused(permissionRevoked)": "Paused · permission revoked",
  "paused(locationDisabled)": "Paused · location services off",
  "paused(unknown)": "Paused · OS error",
  storeError: "Store error",
};
const stateLabel = s => STATE_LABELS[s] || (s ? s[0].toUpperCase() + s.slice(1) : "–");
const stateKind = s => (s || "").replace(/\(.*$/, "");
// `why` (a store error's message) becomes the tooltip.
function stateBadge(s, why) {
  return el("span", { class: "badge", "data-state": s, dataset: { kind: stateKind(s) }, title: why || s, text: stateLabel(s) });
}
const storeErrorText = e => (e ? `${e.cause}: ${e.message} (since ${longTime(e.since)})` : "ok");

/* ---------- status and errors ---------- */
function say(msg) {
  $("#status").textContent = `${new Date().toLocaleTimeString()} · ${msg}`;
}
function showError(err, context = "") {
  const box = $("#error");
  box.replaceChildren();
  const text = el("div", {}, el("strong", { text: context ? `${context}: ` : "Error: " }), err.message || String(err));
  if (err.code) text.append(" ", el("code", { text: err.code }));
  if (err.field) text.append(" field ", el("code", { text: err.field }));
  box.append(text);
  if (err.status === 401) box.append(el("button", { type: "button", text: "Enter admin token", onclick: () => askToken("").then(afterToken, () => {}) }));
  box.append(el("button", { type: "button", text: "Dismiss", "aria-label": "Dismiss error", onclick: () => { box.hidden = true; } }));
  box.hidden = false;
}
function clearError() { $("#error").hidden = true; }

/* ---------- API client ---------- */
class ApiError extends Error {
  constructor(status, code, message, field) { super(message); this.status = status; this.code = code; this.field = field; }
}
const TOKEN_KEY = "beekonAdminToken";
let token = sessionStorage.getItem(TOKEN_KEY) || "";
let tokenPrompt = null;
let tokenDeclined = false;

function askToken(reason) {
  if (tokenPrompt) return tokenPrompt;
  const dlg = $("#token-dlg");
  $("#tok-msg").textContent = reason === "rejected"
    ? "The admin server rejected the token. Enter the admin token again."
    : "The admin server answered 401. Enter the admin token (kept in this tab's session storage only).";
  tokenPrompt = new Promise((resolve, reject) => {
    const done = ok => {
      dlg.removeEventListener("close", onClose);
      tokenPrompt = null;
      if (ok) { tokenDeclined = false; resolve(token); } else { tokenDeclined = true; reject(new ApiError(401, "unauthorized", "No admin token given")); }
    };
    const onClose = () => {
      const v = $("#tok-input").value.trim();
      if (dlg.returnValue === "ok" && v) { token = v; sessionStorage.setItem(TOKEN_KEY, v); done(true); } else done(false);
    };
    dlg.addEventListener("close", onClose);
    dlg.returnValue = "";
    $("#tok-input").value = "";
    dlg.showModal();
  });
  return tokenPrompt;
}
$("#tok-cancel").addEventListener("click", () => $("#token-dlg").close(""));
function afterToken() { clearError(); connectEvents(); refreshAll(); }

async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, "network", `Cannot reach the admin server (${e.message})`);
    }
    if (res.status === 401 && attempt < 2 && !tokenDeclined) {
      const sent = token;
      await askToken(sent ? "rejected" : "");
      if (attempt === 0) connectEvents();
      continue;
    }
    if (res.status === 204) return null;
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    if (!res.ok) {
      const e = data && data.error;
      throw new ApiError(res.status, (e && e.code) || `http_${res.status}`, (e && e.message) || text || res.statusText, e && e.field);
    }
    return data;
  }
}
const qs = o => Object.entries(o).filter(([, v]) => v !== "" && v != null).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");

/* ---------- tabs ---------- */
const tabs = [...document.querySelectorAll("[role=tab]")];
let currentTab = "overview";
function showTab(name, focus = false) {
  currentTab = name;
  for (const t of tabs) {
    const on = t.id === `tab-${name}`;
    t.setAttribute("aria-selected", on); t.tabIndex = on ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    if (on && focus) t.focus();
  }
  if (name === "overview") { drawCharts(); pollStats(); }
  if (name === "devices") loadDevices();
  if (name === "map") { fleetMap.draw(); pollMap(); }
  if (name === "faults") $("#fa-selcount").textContent = selected.size;
}
tabs.forEach((t, i) => {
  t.addEventListener("click", () => showTab(t.id.slice(4)));
  t.addEventListener("keydown", e => {
    const d = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (d) { showTab(tabs[(i + d + tabs.length) % tabs.length].id.slice(4), true); e.preventDefault(); }
  });
});

/* ---------- fleet header ---------- */
let fleet = null;
let groups = [];
function onFleet(f) {
  fleet = f;
  $("#fleet-name").textContent = f.name;
  document.title = `${f.name} · Beekon Fleet admin`;
  $("#vtime").textContent = longTime(f.virtualTime);
  // At max warp the clock jumps from event to event; the figure is the rate it reached.
  $("#warp").textContent = f.maxWarp ? `max (×${Math.round(f.warp)})` : `×${f.warp}`;
  const p = $("#paused-state");
  p.textContent = f.paused ? "paused" : "running"; p.dataset.paused = f.paused;
  $("#pause-btn").textContent = f.paused ? "Resume" : "Pause";
  $("#pause-btn").setAttribute("aria-pressed", f.paused);
  $("#device-count").textContent = num(f.devices);
  $("#fix-counts").textContent = f.fixes ? `${num(f.fixes.uploaded)} / ${num(f.fixes.pending)}` : "–";
  $("#batch-count").textContent = f.batches ? num(f.batches.sent) : "–";
  const warpInput = $("#warp-input");
  if (document.activeElement !== warpInput && !warpInput.value) warpInput.placeholder = f.maxWarp ? "max" : f.warp;
  const gs = [...new Set([...(f.groups || []), ...Object.keys(f.byGroup || {})])];
  if (gs.join() !== groups.join()) { groups = gs; fillGroupSelects(); }
  chartStates.push(Date.now(), withZeros(chartStates, f.byState || {}));
  chartPending.push(Date.now(), { pending: f.fixes ? f.fixes.pending : null });
  if (currentTab === "overview") { chartStates.draw(); chartPending.draw(); }
}
function fillGroupSelects() {
  for (const [sel, first] of [["#f-group", "All groups"], ["#map-group", "All groups"], ["#fa-group", null], ["#sp-group", null]]) {
    const s = $(sel), keep = s.value;
    s.replaceChildren(...(first ? [el("option", { value: "", text: first })] : []), ...groups.map(g => el("option", { value: g, text: g })));
    if ([...s.options].some(o => o.value === keep)) s.value = keep;
  }
}
async function loadFleet() {
  try { onFleet(await api("GET", "api/v1/fleet")); } catch (e) { showError(e, "Loading the fleet"); }
}
$("#warp-form").addEventListener("submit", async e => {
  e.preventDefault();
  const v = Number($("#warp-input").value);
  try { onFleet(await api("PATCH", "api/v1/fleet", { warp: v })); say(`Warp set to ×${v}`); $("#warp-input").value = ""; clearError(); }
  catch (err) { showError(err, "Setting warp"); }
});
$("#pause-btn").addEventListener("click", async () => {
  const want = !(fleet && fleet.paused);
  try { onFleet(await api("PATCH", "api/v1/fleet", { paused: want })); say(want ? "Fleet paused" : "Fleet resumed"); clearError(); }
  catch (err) { showError(err, want ? "Pausing" : "Resuming"); }
});

/* ---------- live events (SSE) ---------- */
let es = null, reconnectTimer = null, reconnectDelay = 2000;
function setConn(s, label) { const c = $("#conn"); c.dataset.conn = s; c.textContent = label || s; }
function connectEvents() {
  if (es) es.close();
  clearTimeout(reconnectTimer);
  es = new EventSource(`api/v1/events${token ? `?token=${encodeURIComponent(token)}` : ""}`);
  setConn("connecting", "connecting…");
  es.onopen = () => { setConn("live", "live"); reconnectDelay = 2000; };
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) { setConn("down", "disconnected"); scheduleReconnect(); }
    else setConn("connecting", "reconnecting…");
  };
  const on = (name, f) => es.addEventListener(name, e => { try { f(JSON.parse(e.data)); } catch (err) { console.error(`bad ${name} event`, err); } });
  on("fleet", onFleet);
  on("uploads", onUploads);
  on("devices", onDeviceChanges);
  on("action", onActionEvent);
}
function scheduleReconnect() {
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(async () => {
    reconnectDelay = Math.min(reconnectDelay * 2, 30000);
    try { await api("GET", "api/v1/fleet"); connectEvents(); } catch { scheduleReconnect(); }
  }, reconnectDelay);
}

/* ---------- charts ---------- */
const chartUploads = new TimeChart($("#chart-uploads"), { unit: "uploads/s", summary: $("#sum-uploads") });
const chartLatency = new TimeChart($("#chart-latency"), { unit: "ms", summary: $("#sum-latency") });
const chartStates = new TimeChart($("#chart-states"), { unit: "devices", summary: $("#sum-states"), integer: true });
const chartPending = new TimeChart($("#chart-pending"), { unit: "fixes", summary: $("#sum-pending"), integer: true });
function withZeros(chart, values) { const o = {}; for (const k of chart.keys) o[k] = 0; return Object.assign(o, values); }
function drawCharts() { for (const c of [chartUploads, chartLatency, chartStates, chartPending]) c.draw(); }
function onUploads(u) {
  const t = Date.now();
  chartUploads.push(t, withZeros(chartUploads, u.byOutcome || {}));
  const l = u.latencyMs || {};
  chartLatency.push(t, { p50: l.p50 ?? null, p95: l.p95 ?? null, p99: l.p99 ?? null });
  if (currentTab === "overview") { chartUploads.draw(); chartLatency.draw(); }
}
window.addEventListener("resize", debounce(() => { if (currentTab === "overview") drawCharts(); }, 150));

/* ---------- statistics table ---------- */
let statsTimer = null;
async function pollStats() {
  clearTimeout(statsTimer);
  try {
    const s = await api("GET", "api/v1/stats");
    renderStats(s);
  } catch (e) { if (e.status !== 401) showError(e, "Loading statistics"); }
  statsTimer = setTimeout(() => { if (currentTab === "overview" && !document.hidden) pollStats(); else statsTimer = setTimeout(pollStats, 2000); }, 2000);
}
function renderStats(s) {
  const tb = $("#stats-table tbody");
  const rows = (s.outcomes || []).map(o => {
    const L = o.latencyMs || {}, R = (o.last10s && o.last10s.latencyMs) || {};
    const bad = !/^2\d\d$/.test(o.outcome);
    return el("tr", {},
      el("th", { scope: "row", class: bad ? "outcome-bad" : "" , text: o.outcome }),
      el("td", { text: o.kind }),
      el("td", { class: "num", text: num(o.count) }), el("td", { class: "num", text: o.ratePerSecond == null ? "–" : o.ratePerSecond.toFixed(2) }),
      ...["p50", "p90", "p95", "p99", "max"].map(k => el("td", { class: "num", text: ms(L[k]) })),
      el("td", { class: "num", text: num(o.last10s ? o.last10s.count : null) }),
      ...["p50", "p90", "p95", "p99", "max"].map(k => el("td", { class: "num", text: ms(R[k]) })));
  });
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 15, class: "muted", text: "No uploads yet." })));
  tb.replaceChildren(...rows);
  const f = s.fixes || {};
  $("#stats-foot").textContent = `Fixes admitted ${num(f.admitted)} · uploaded ${num(f.uploaded)} · pending ${num(f.pending)} · ` +
    `uploads/s ${s.uploadsPerSecond == null ? "–" : s.uploadsPerSecond.toFixed(2)} · devices ` +
    Object.entries(s.devicesByState || {}).map(([k, v]) => `${k} ${num(v)}`).join(", ");
  $("#stats-updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
  const dl = $("#outcome-list");
  const have = new Set([...dl.options].map(o => o.value));
  for (const o of s.outcomes || []) if (!have.has(o.outcome)) dl.append(el("option", { value: o.outcome }));
}

/* ---------- devices table ---------- */
const dev = { sort: "id", cursors: [null], page: 0, next: null, total: 0, rows: [], loading: false, again: false };
const selected = new Set();
const rowsById = new Map(); // id -> {tr, d}

function filters() {
  return { group: $("#f-group").value, state: $("#f-state").value.trim(), outcome: $("#f-outcome").value.trim(), q: $("#f-q").value.trim() };
}
async function loadDevices({ keepPage = true } = {}) {
  if (dev.loading) { dev.again = true; return; }
  if (!keepPage) { dev.cursors = [null]; dev.page = 0; }
  dev.loading = true;
  const limit = Number($("#f-limit").value);
  try {
    const r = await api("GET", `api/v1/devices?${qs({ ...filters(), sort: dev.sort, limit, cursor: dev.cursors[dev.page] })}`);
    dev.next = r.next; dev.total = r.total;
    renderDevices(r.devices || []);
    const from = dev.page * limit;
    $("#dev-range").textContent = r.total ? `Devices ${from + 1}–${from + r.devices.length} of ${num(r.total)}` : "No devices match.";
    $("#pg-prev").disabled = $("#pg-first").disabled = dev.page === 0;
    $("#pg-next").disabled = !r.next;
  } catch (e) {
    if (e.status === 400 && dev.page > 0) { dev.cursors = [null]; dev.page = 0; } // stale cursor
    showError(e, "Loading devices");
  } finally {
    dev.loading = false;
    if (dev.again) { dev.again = false; loadDevices(); }
  }
}
const reloadSoon = debounce(() => loadDevices(), 400);

function renderDevices(list) {
  const tb = $("#dev-table tbody");
  const sameOrder = list.length === dev.rows.length && list.every((d, i) => d.id === dev.rows[i].id);
  dev.rows = list;
  if (sameOrder) {
    for (const d of list) { const r = rowsById.get(d.id); if (r) { r.d = d; fillRow(r.tr, d); } }
  } else {
    rowsById.clear();
    const frag = document.createDocumentFragment();
    for (const d of list) { const tr = makeRow(d); rowsById.set(d.id, { tr, d }); frag.append(tr); }
    if (!list.length) frag.append(el("tr", {}, el("td", { colspan: 11, class: "muted", text: "No devices match these filters." })));
    tb.replaceChildren(frag);
  }
  updateSelectionUI();
}
function makeRow(d) {
  const tr = el("tr", { "data-id": d.id });
  const cb = el("input", { type: "checkbox", class: "row-cb", "aria-label": `Select ${d.id}` });
  cb.checked = selected.has(d.id);
  cb.addEventListener("change", () => { cb.checked ? selected.add(d.id) : selected.delete(d.id); updateSelectionUI(); });
  tr.append(
    el("td", { class: "cb" }, cb),
    el("td", {}, el("button", { type: "button", class: "link", text: d.id, title: "Show details", onclick: () => openDetail(d.id) })),
    el("td"), el("td"), el("td"), el("td"), el("td"), el("td", { class: "num" }), el("td"), el("td"),
    el("td", {}, el("button", { type: "button", class: "rowbtn", "aria-haspopup": "menu", "aria-label": `Actions for ${d.id}`, text: "Actions ▾",
      onclick: e => openRowMenu(e.currentTarget, d.id) })));
  fillRow(tr, d);
  return tr;
}
const setText = (node, v) => { const t = String(v); if (node.textContent !== t) node.textContent = t; };
function fillRow(tr, d) {
  // Only touch what changed: with 1,000 rows and 4 events a second, needless writes cost layouts.
  const c = tr.cells;
  if (tr.dataset.state !== d.state) tr.dataset.state = d.state;
  const sel = String(selected.has(d.id));
  if (tr.getAttribute("aria-selected") !== sel) tr.setAttribute("aria-selected", sel);
  setText(c[2], d.group ?? "");
  setText(c[3], d.model ? `${d.platform} · ${d.model}` : (d.platform ?? ""));
  const st = c[4];
  if (st.firstChild?.dataset?.state !== d.state) {
    if (st.firstChild) { st.classList.remove("flash"); void st.offsetWidth; st.classList.add("flash"); }
    st.replaceChildren(stateBadge(d.state, d.storeError?.message));
  }
  if (d.permission !== undefined) setText(c[5], d.permission ?? "");
  if (d.network !== undefined) setText(c[6], d.network ?? "");
  setText(c[7], num(d.pending));
  const oc = c[8];
  setText(oc, d.lastOutcome ?? "–");
  oc.classList.toggle("outcome-bad", !!d.lastOutcome && !/^2\d\d$/.test(d.lastOutcome));
  if (d.lastUploadAt !== undefined) setText(c[9], shortTime(d.lastUploadAt));
}
function onDeviceChanges(ev) {
  for (const c of ev.changes || []) {
    const r = rowsById.get(c.id);
    if (r) { Object.assign(r.d, c); fillRow(r.tr, r.d); }
    if (c.id === detailId) refreshDetailSoon();
  }
  if (ev.truncated && currentTab === "devices") reloadSoon();
}

// selection
function updateSelectionUI() {
  const ids = dev.rows.map(d => d.id);
  const n = ids.filter(id => selected.has(id)).length;
  const all = $("#sel-page");
  all.checked = ids.length > 0 && n === ids.length;
  all.indeterminate = n > 0 && n < ids.length;
  for (const { tr, d } of rowsById.values()) {
    const on = selected.has(d.id);
    tr.setAttribute("aria-selected", on);
    const cb = tr.querySelector(".row-cb"); if (cb.checked !== on) cb.checked = on;
  }
  $("#sel-count").textContent = `${num(selected.size)} selected`;
  $("#selbar").dataset.empty = selected.size === 0;
  $("#fa-selcount").textContent = selected.size;
  fleetMap.selected = selected; // drawn when the map is shown
}
$("#sel-page").addEventListener("change", e => {
  for (const d of dev.rows) e.target.checked ? selected.add(d.id) : selected.delete(d.id);
  updateSelectionUI();
});
$("#sel-clear").addEventListener("click", () => { selected.clear(); updateSelectionUI(); say("Selection cleared"); });
$("#sel-more").addEventListener("click", () => {
  document.querySelector('input[name=sel][value=ids]').checked = true;
  showTab("faults"); $("#fa-action").focus();
});
$("#sel-map").addEventListener("click", () => { showTab("map"); setTimeout(() => fleetMap.fitSelection(), 50); });
for (const b of document.querySelectorAll("[data-bulk]")) {
  b.addEventListener("click", () => applyToSelection(b.dataset.bulk));
}
async function applyToSelection(action) {
  if (!selected.size) { say("Select some devices first (checkboxes in the table)."); return; }
  const ids = [...selected];
  try {
    const r = await api("POST", "api/v1/fleet/actions", { action, selector: { ids } });
    say(`${action} applied to ${num(r.applied)} device${r.applied === 1 ? "" : "s"}`);
    clearError();
  } catch (e) { showError(e, `Applying ${action} to the selection`); }
}

// sorting, filters and paging
for (const th of document.querySelectorAll("#dev-table th[data-sort]")) {
  th.querySelector("button").addEventListener("click", () => {
    const k = th.dataset.sort;
    setSort(dev.sort === k ? `-${k}` : k);
    loadDevices({ keepPage: false });
  });
}
function setSort(s) {
  dev.sort = s;
  for (const th of document.querySelectorAll("#dev-table th[data-sort]")) {
    const k = th.dataset.sort;
    if (s === k) th.setAttribute("aria-sort", "ascending");
    else if (s === `-${k}`) th.setAttribute("aria-sort", "descending");
    else th.removeAttribute("aria-sort");
  }
}
$("#filters").addEventListener("submit", e => { e.preventDefault(); loadDevices({ keepPage: false }); });
for (const id of ["#f-group", "#f-limit"]) $(id).addEventListener("change", () => loadDevices({ keepPage: false }));
$("#f-q").addEventListener("input", debounce(() => loadDevices({ keepPage: false }), 300));
$("#f-reset").addEventListener("click", () => {
  $("#filters").reset(); setSort("id"); loadDevices({ keepPage: false });
});
$("#dev-refresh").addEventListener("click", () => loadDevices());
$("#pg-next").addEventListener("click", () => { if (dev.next) { dev.cursors[dev.page + 1] = dev.next; dev.page++; dev.cursors.length = dev.page + 1; loadDevices(); } });
$("#pg-prev").addEventListener("click", () => { if (dev.page > 0) { dev.page--; loadDevices(); } });
$("#pg-first").addEventListener("click", () => loadDevices({ keepPage: false }));
setInterval(() => { if (currentTab === "devices" && !document.hidden && $("#row-menu").hidden) loadDevices(); }, 5000);

// per-row action menu (one shared menu element)
const ROW_ACTIONS = [
  ["Details…", null], ["Revoke permission", "revokePermission"], ["Grant permission", "grantPermission"],
  ["Network off", "networkOffline"], ["Network on", "networkOnline"], ["Sync now", "sync"],
  ["Kill", "kill"], ["Kill, relaunch in 30 s", "kill", { relaunchAfterSeconds: 30 }], ["Start", "start"], ["Stop", "stop"],
];
let menuAnchor = null;
function openRowMenu(anchor, id) {
  const m = $("#row-menu");
  m.replaceChildren(...ROW_ACTIONS.map(([label, action, params]) => el("button", {
    type: "button", role: "menuitem", tabindex: -1, text: label,
    onclick: () => { closeRowMenu(); action ? deviceAction(id, action, params) : openDetail(id); },
  })));
  const r = anchor.getBoundingClientRect();
  m.hidden = false;
  const top = r.bottom + window.scrollY + 2, h = m.offsetHeight;
  m.style.top = `${top + h > window.scrollY + innerHeight ? r.top + window.scrollY - h - 2 : top}px`;
  m.style.left = `${Math.min(r.left + window.scrollX, innerWidth - m.offsetWidth - 8)}px`;
  anchor.setAttribute("aria-expanded", "true");
  menuAnchor = anchor;
  m.firstChild.focus();
}
function closeRowMenu(refocus = false) {
  const m = $("#row-menu");
  if (m.hidden) return;
  m.hidden = true;
  if (menuAnchor) { menuAnchor.setAttribute("aria-expanded", "false"); if (refocus) menuAnchor.focus(); }
  menuAnchor = null;
}
$("#row-menu").addEventListener("keydown", e => {
  const items = [...$("#row-menu").children], i = items.indexOf(document.activeElement);
  if (e.key === "Escape") { e.preventDefault(); closeRowMenu(true); }
  else if (e.key === "ArrowDown") { e.preventDefault(); items[(i + 1) % items.length].focus(); }
  else if (e.key === "ArrowUp") { e.preventDefault(); items[(i - 1 + items.length) % items.length].focus(); }
  else if (e.key === "Tab") closeRowMenu();
});
document.addEventListener("pointerdown", e => { if (!$("#row-menu").contains(e.target) && e.target !== menuAnchor) closeRowMenu(); });

async function deviceAction(id, action, params) {
  try {
    await api("POST", `api/v1/devices/${encodeURIComponent(id)}/actions`, params ? { action, params } : { action });
    say(`${action} applied to ${id}`);
    clearError();
    if (id === detailId) refreshDetailSoon();
  } catch (e) { showError(e, `${action} on ${id}`); }
}

/* ---------- device detail dialog ---------- */
let detailId = null, detailMap = null;
const detailDlg = $("#detail");
async function openDetail(id) {
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
    el("h3", { text: "Recent fixes" }), el("div", { class: "table-wrap", id: "d-fixes", style: "max-height:220px" }),
    el("h3", { text: "SDK config" }), el("pre", { class: "json", id: "d-config" }));
  if (!detailDlg.open) detailDlg.showModal();
  detailMap = new FleetMap($("#d-route"));
  await refreshDetail(true);
}
$("#d-close").addEventListener("click", () => detailDlg.close());
detailDlg.addEventListener("close", () => { detailId = null; detailMap = null; });
const refreshDetailSoon = debounce(() => { if (detailId) refreshDetail(false); }, 1000);

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
  const kv = (title, pairs) => el("section", {}, el("h3", { text: title }),
    el("dl", {}, ...pairs.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, v instanceof Node ? v : String(v ?? "–"))])));
  const s = d.sync || {}, a = d.auth || {};
  $("#d-summary").replaceChildren(
    kv("Device", [["State", stateBadge(d.state, d.storeError?.message)], ["Store", storeErrorText(d.storeError)], ["Group", d.group],
      ["Platform", `${d.platform} · ${d.model}`], ["Install id", d.installId], ["Alive", d.alive ? "yes" : "no"]]),
    kv("OS", [["Permission", d.permission], ["Location services", d.locationServices ? "on" : "off"], ["Network", d.network],
      ["Position", d.latitude == null ? "–" : `${d.latitude.toFixed(5)}, ${d.longitude.toFixed(5)}`]]),
    kv("Sync", [["Status", s.status], ["Pending fixes", num(d.pending)], ["Consecutive failures", s.consecutiveFailures], ["Next attempt", longTime(s.nextAttemptAt)],
      ["Last outcome", d.lastOutcome ?? "–"], ["Last upload", longTime(d.lastUploadAt)]]),
    kv("Auth", [["State", a.state], ["Valid until", longTime(a.validUntil)], ["Last refresh", a.lastRefreshOutcome ?? "–"], ["Breaker open until", longTime(a.breakerOpenUntil)]]));
  renderTimeline(d.stateHistory || []);
  const uploads = (ups && ups.uploads) || d.uploads || [];
  $("#d-uploads").replaceChildren(miniTable(["At", "Batch", "Fixes", "Outcome heard", "Latency ms (virtual)", "Server ms (real)"],
    uploads.map(u => [shortTime(u.at), u.batchId, u.fixes, u.outcome, ms(u.latencyMs), u.serverMs == null ? "–" : ms(u.serverMs)]), "No uploads yet."));
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
  try { await api("DELETE", `api/v1/devices/${encodeURIComponent(id)}`); say(`Deleted ${id}`); detailDlg.close(); selected.delete(id); loadDevices(); }
  catch (e) { showError(e, `Deleting ${id}`); }
}

/* ---------- map ---------- */
const fleetMap = new FleetMap($("#map"), { onPick: id => showRoute(id, false) });
let mapTimer = null, routeId = null;
async function pollMap() {
  clearTimeout(mapTimer);
  if (currentTab !== "map") return;
  try {
    // Up to 2,000 devices: the chosen group's first 2,000, or for all groups a share of each
    // group (so every city shows even when the first 2,000 ids are all in one group).
    const group = $("#map-group").value;
    const parts = group || groups.length < 2 || groups.length > 20 ? [[group, 2000]] : groups.map(g => [g, Math.ceil(2000 / groups.length)]);
    let list = [], total = 0;
    for (const [g, want] of parts) {
      let cursor = null, got = 0;
      while (got < want) {
        const r = await api("GET", `api/v1/devices?${qs({ group: g, limit: Math.min(1000, want - got), cursor })}`);
        if (cursor === null) total += r.total; // first page of this group
        list = list.concat(r.devices || []); got += (r.devices || []).length; cursor = r.next;
        if (!cursor) break;
      }
    }
    fleetMap.setDevices(list);
    if (routeId) {
      const l = await api("GET", `api/v1/devices/${encodeURIComponent(routeId)}/locations?limit=500`);
      fleetMap.setRoute(routeId, l.locations || []);
    }
    $("#map-info").textContent = `${num(list.length)} of ${num(total)} devices${routeId ? ` · route of ${routeId} (click a device to change)` : " · click a device to show its route"}`;
  } catch (e) { showError(e, "Loading the map"); }
  mapTimer = setTimeout(pollMap, 4000);
}
async function showRoute(id, fit = true) {
  routeId = id;
  if (currentTab !== "map") showTab("map");
  try {
    const l = await api("GET", `api/v1/devices/${encodeURIComponent(id)}/locations?limit=500`);
    fleetMap.setRoute(id, l.locations || []);
    if (fit) fleetMap.fitRoute();
    say(`Showing the route of ${id} (${(l.locations || []).length} fixes)`);
  } catch (e) { showError(e, `Route of ${id}`); }
}
$("#map-group").addEventListener("change", async () => { fleetMap.fitted = false; await pollMap(); fleetMap.fitDevices(); });
$("#map-fit").addEventListener("click", () => fleetMap.fitDevices() || say("No device positions yet"));
$("#map-fit-sel").addEventListener("click", () => fleetMap.fitSelection() || say("None of the selected devices is on the map"));
$("#map-fit-route").addEventListener("click", () => fleetMap.fitRoute() || say("No route shown: click a device first"));
$("#map-zoom-in").addEventListener("click", () => fleetMap.zoom(1.5));
$("#map-zoom-out").addEventListener("click", () => fleetMap.zoom(1 / 1.5));
$("#map-legend").replaceChildren(...[["tracking", "#2b8a3e"], ["starting", "#1f5fbf"], ["paused", "#e67700"], ["dead", "#c92a2a"], ["stopped/idle", "#868e96"]]
  .map(([k, c]) => el("div", {}, el("span", { class: "sw", style: `background:${c}` }), k)));

/* ---------- faults panel ---------- */
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
function onActionEvent(a) {
  const log = $("#action-log");
  log.prepend(el("li", {}, `${longTime(a.at)} — `, el("strong", { text: a.action }), ` on ${num(a.applied)} device${a.applied === 1 ? "" : "s"}`));
  while (log.children.length > 50) log.lastChild.remove();
}

/* ---------- spawn form ---------- */
for (const r of document.querySelectorAll("input[name=spawn-mode]")) r.addEventListener("change", spawnMode);
function spawnMode() {
  const spec = document.querySelector("input[name=spawn-mode]:checked").value === "spec";
  $("#sp-spec").disabled = !spec; $("#sp-group").disabled = spec; $("#sp-count").disabled = spec;
}
spawnMode();
let lastSpawn = null;
$("#spawn-form").addEventListener("submit", async e => {
  e.preventDefault();
  const out = $("#sp-result");
  out.dataset.ok = "false";
  $("#sp-show").hidden = true;
  try {
    const spec = document.querySelector("input[name=spawn-mode]:checked").value === "spec";
    let body, group;
    if (spec) {
      let s;
      try { s = JSON.parse($("#sp-spec").value); } catch (err) { throw new ApiError(0, "bad_type", `The spec is not valid JSON (${err.message})`, "spec"); }
      body = { spec: s }; group = s && s.name;
    } else {
      group = $("#sp-group").value;
      body = { group, count: Number($("#sp-count").value) };
    }
    if ($("#sp-rate").value !== "") body.ratePerSecond = Number($("#sp-rate").value);
    const r = await api("POST", "api/v1/devices", body);
    const ids = r.ids || [];
    lastSpawn = { group, ids };
    out.textContent = ids.length ? `Spawning ${ids.length} device${ids.length === 1 ? "" : "s"}: ${ids[0]}${ids.length > 1 ? ` … ${ids[ids.length - 1]}` : ""}` : "No devices spawned.";
    out.dataset.ids = JSON.stringify(ids);
    out.dataset.ok = "true";
    $("#sp-show").hidden = !ids.length;
    say(out.textContent); clearError();
  } catch (err) {
    out.textContent = `Not spawned: ${err.message}${err.field ? ` (field ${err.field})` : ""}`;
    showError(err, "Spawning devices");
  }
});
$("#sp-show").addEventListener("click", () => {
  if (!lastSpawn) return;
  $("#filters").reset();
  if (groups.includes(lastSpawn.group)) $("#f-group").value = lastSpawn.group;
  const n = lastSpawn.ids.length;
  $("#f-limit").value = [...$("#f-limit").options].map(o => o.value).find(v => Number(v) >= n) || "1000";
  setSort("-id");
  showTab("devices");
  loadDevices({ keepPage: false });
  say(`Showing the newest devices of ${lastSpawn.group}, newest first`);
});

/* ---------- start ---------- */
function refreshAll() {
  loadFleet();
  if (currentTab === "overview") pollStats();
  if (currentTab === "devices") loadDevices();
  if (currentTab === "map") pollMap();
}
setInterval(() => { if ($("#conn").dataset.conn !== "live" && !document.hidden) loadFleet(); }, 5000);
setInterval(() => { if (currentTab === "overview" && !document.hidden) { chartStates.draw(); chartPending.draw(); chartUploads.draw(); chartLatency.draw(); } }, 5000);
await loadFleet();
connectEvents();
showTab("overview");
