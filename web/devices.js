// The Devices tab: filters, the server-paged and sorted table kept current by the live stream,
// the selection bar and each row's action menu.
import { $, el, num, shortTime, debounce, stateBadge } from "./dom.js";
import { api, on, qs, say, showError, clearError } from "./api.js";
import { currentTab, showTab } from "./tabs.js";
import { groups } from "./fleet.js";
import { selected } from "./selection.js";
import { fleetMap } from "./map-panel.js";
import { ROW_ACTIONS, deviceAction, openDetail } from "./detail.js";
import { showSelectedCount, actOnSelection } from "./actions.js";

const dev = { sort: "id", cursors: [null], page: 0, next: null, total: 0, rows: [], loading: false, again: false };
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
on("devices", ev => {
  for (const c of ev.changes || []) {
    const r = rowsById.get(c.id);
    if (r) { Object.assign(r.d, c); fillRow(r.tr, r.d); }
  }
  if (ev.truncated && currentTab === "devices") reloadSoon();
});
on("deleted", id => { selected.delete(id); loadDevices(); });

// selection
function updateSelectionUI() {
  const ids = dev.rows.map(d => d.id);
  const n = ids.filter(id => selected.has(id)).length;
  const all = $("#sel-page");
  all.checked = ids.length > 0 && n === ids.length;
  all.indeterminate = n > 0 && n < ids.length;
  for (const { tr, d } of rowsById.values()) {
    const ticked = selected.has(d.id);
    tr.setAttribute("aria-selected", ticked);
    const cb = tr.querySelector(".row-cb"); if (cb.checked !== ticked) cb.checked = ticked;
  }
  $("#sel-count").textContent = `${num(selected.size)} selected`;
  $("#selbar").dataset.empty = selected.size === 0;
  showSelectedCount();
}
$("#sel-page").addEventListener("change", e => {
  for (const d of dev.rows) e.target.checked ? selected.add(d.id) : selected.delete(d.id);
  updateSelectionUI();
});
$("#sel-clear").addEventListener("click", () => { selected.clear(); updateSelectionUI(); say("Selection cleared"); });
$("#sel-more").addEventListener("click", actOnSelection);
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
// The order chosen is kept across reloads of the page (this tab's session only).
const SORT_KEY = "beekon.devices.sort";
function setSort(s) {
  dev.sort = s;
  try { sessionStorage.setItem(SORT_KEY, s); } catch { /* storage off: the order lasts until reload */ }
  for (const th of document.querySelectorAll("#dev-table th[data-sort]")) {
    const k = th.dataset.sort;
    if (s === k) th.setAttribute("aria-sort", "ascending");
    else if (s === `-${k}`) th.setAttribute("aria-sort", "descending");
    else th.removeAttribute("aria-sort");
  }
}
{
  // Only an order the table offers comes back; anything else in storage is ignored.
  const kept = sessionStorage.getItem(SORT_KEY) || "";
  const keys = [...document.querySelectorAll("#dev-table th[data-sort]")].map(th => th.dataset.sort);
  if (keys.includes(kept.replace(/^-/, ""))) setSort(kept);
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

// The Spawn tab's "Show these devices in the table": `count` devices of `group`, newest first.
export function showNewest(group, count) {
  $("#filters").reset();
  if (groups.includes(group)) $("#f-group").value = group;
  $("#f-limit").value = [...$("#f-limit").options].map(o => o.value).find(v => Number(v) >= count) || "1000";
  setSort("-id");
  showTab("devices");
  loadDevices({ keepPage: false });
}

// per-row action menu (one shared menu element)
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

on("tab", t => { if (t === "devices") loadDevices(); });
on("token", () => { if (currentTab === "devices") loadDevices(); });
