// The Overview tab: the statistics table by outcome and the four live charts.
import { $, el, num, ms, debounce, wallNow } from "./dom.js";
import { api, on, showError } from "./api.js";
import { currentTab } from "./tabs.js";
import { TimeChart, outcomeClass } from "./charts.js";

/* ---------- charts ---------- */
const chartUploads = new TimeChart($("#chart-uploads"), { unit: "uploads/s", summary: $("#sum-uploads") });
const chartLatency = new TimeChart($("#chart-latency"), { unit: "ms", summary: $("#sum-latency") });
const chartStates = new TimeChart($("#chart-states"), { unit: "devices", summary: $("#sum-states"), integer: true });
const chartPending = new TimeChart($("#chart-pending"), { unit: "fixes", summary: $("#sum-pending"), integer: true });
function withZeros(chart, values) { const o = {}; for (const k of chart.keys) o[k] = 0; return Object.assign(o, values); }
function drawCharts() { for (const c of [chartUploads, chartLatency, chartStates, chartPending]) c.draw(); }
// The faults on (the fleet file's and the API's) as bands on the charts: from when the page first
// saw one on until it saw it off (the charts' time is the page's clock).
const bands = [];
let openBands = new Map();
function followFaults(active, t) {
  const now = new Map((active || []).map(a => [a.fault, a.source === "api" ? `${a.action} (API)` : a.action]));
  for (const [fault, band] of openBands) if (!now.has(fault)) { band.to = t; openBands.delete(fault); }
  for (const [fault, action] of now) {
    if (!openBands.has(fault)) { const band = { from: t, to: null, label: action }; bands.push(band); openBands.set(fault, band); }
  }
  while (bands.length > 50) bands.shift();
  for (const c of [chartUploads, chartLatency, chartStates, chartPending]) c.setBands(bands);
}
on("fleet", f => {
  followFaults(f.activeFaults, Date.now());
  chartStates.push(Date.now(), withZeros(chartStates, f.byState || {}));
  chartPending.push(Date.now(), { pending: f.fixes ? f.fixes.pending : null });
  if (currentTab === "overview") { chartStates.draw(); chartPending.draw(); }
});
on("uploads", u => {
  const t = Date.now();
  chartUploads.push(t, withZeros(chartUploads, u.byOutcome || {}));
  const l = u.latencyMs || {};
  chartLatency.push(t, { p50: l.p50 ?? null, p95: l.p95 ?? null, p99: l.p99 ?? null });
  if (currentTab === "overview") { chartUploads.draw(); chartLatency.draw(); }
});
window.addEventListener("resize", debounce(() => { if (currentTab === "overview") drawCharts(); }, 150));
setInterval(() => { if (currentTab === "overview" && !document.hidden) drawCharts(); }, 5000);

/* ---------- statistics table ---------- */
let statsTimer = null;
let groupsShown = 0;
async function pollStats() {
  clearTimeout(statsTimer);
  try {
    const s = await api("GET", "api/v1/stats");
    renderStats(s);
    // The per-group rows walk every device on the server: every 5 s is enough.
    if (Date.now() - groupsShown > 5000) { renderGroups(await api("GET", "api/v1/report")); groupsShown = Date.now(); }
  } catch (e) { if (e.status !== 401) showError(e, "Loading statistics"); }
  statsTimer = setTimeout(() => { if (currentTab === "overview" && !document.hidden) pollStats(); else statsTimer = setTimeout(pollStats, 2000); }, 2000);
}
function renderGroups(report) {
  const rows = Object.entries(report.groups || {}).map(([name, g]) => {
    const ok = Object.entries(g.uploads.by_outcome || {}).filter(([k]) => /^2\d\d$/.test(k)).reduce((a, [, o]) => a + o.count, 0);
    const share = g.uploads.total ? (100 * ok / g.uploads.total).toFixed(1) : "–";
    return el("tr", { "data-group": name },
      el("th", { scope: "row", text: name }), el("td", { class: "num", text: num(g.devices) }),
      el("td", { class: "num", text: num(g.uploads.total) }), el("td", { class: "num", text: share }),
      el("td", { class: "num", text: ms(g.latency_ms.p50) }), el("td", { class: "num", text: ms(g.latency_ms.p99) }),
      el("td", { class: "num", text: ms(g.server_latency_ms ? g.server_latency_ms.p99 : null) }),
      el("td", { class: "num", text: num(g.fixes.admitted) }), el("td", { class: "num", text: num(g.fixes.acknowledged) }),
      el("td", { class: "num", text: num(g.fixes.pending) }), el("td", { class: "num", text: num(g.fixes.lost) }),
      el("td", { class: "num", text: num(g.fixes.max_pending) }), el("td", { class: "num", text: ms(g.fix_age_ms.p99 / 1000) }));
  });
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 13, class: "muted", text: "No groups yet." })));
  $("#group-table tbody").replaceChildren(...rows);
}
function renderStats(s) {
  const tb = $("#stats-table tbody");
  const rows = (s.outcomes || []).map(o => {
    const L = o.latencyMs || {}, R = (o.last10s && o.last10s.latencyMs) || {};
    const cls = outcomeClass(o.outcome);
    const style = { ok: "", client: "outcome-bad outcome-client", server: "outcome-bad outcome-server",
      offline: "outcome-bad outcome-offline" }[cls] ?? "outcome-bad";
    return el("tr", {},
      el("th", { scope: "row", class: style, text: o.outcome }),
      el("td", { text: o.kind }),
      el("td", { class: "num", text: num(o.count) }), el("td", { class: "num", text: o.ratePerSecond == null ? "–" : o.ratePerSecond.toFixed(2) }),
      ...["p50", "p90", "p95", "p99", "max"].map(k => el("td", { class: "num", text: ms(L[k]) })),
      el("td", { class: "num", text: num(o.last10s ? o.last10s.count : null) }),
      ...["p50", "p90", "p95", "p99", "max"].map(k => el("td", { class: "num", text: ms(R[k]) })));
  });
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 15, class: "muted", text: "No uploads yet." })));
  tb.replaceChildren(...rows);
  const f = s.fixes || {};
  const age = f.ageAtAcknowledgementMs || {};
  $("#stats-foot").textContent = `Fixes: carried over ${num(f.carriedOver)} + admitted ${num(f.admitted)} = ` +
    `acknowledged ${num(f.acknowledged)} + rejected ${num(f.rejected)} + pending ${num(f.pending)} + ` +
    `expired ${num(f.expired)} + deleted ${num(f.deleted)} + lost ${num(f.lost)}` +
    (f.unaccounted ? ` (${num(f.unaccounted)} unaccounted!)` : "") +
    ` · backlog peak ${num(f.maxPending)} · age at ack p50 ${ms(age.p50)} ms, p99 ${ms(age.p99)} ms · ` +
    `uploads/s ${s.uploadsPerSecond == null ? "–" : s.uploadsPerSecond.toFixed(2)} · devices ` +
    Object.entries(s.devicesByState || {}).map(([k, v]) => `${k} ${num(v)}`).join(", ");
  renderLatencyAndHealth(s);
  $("#stats-updated").textContent = `updated ${wallNow()}` +
    (s.since ? ` · since the reset at ${s.since.replace("T", " ").replace(/\.\d+Z$/, "")} (virtual)` : "");
  // The devices filter's outcome field suggests every outcome seen so far.
  const dl = $("#outcome-list");
  const have = new Set([...dl.options].map(o => o.value));
  for (const o of s.outcomes || []) if (!have.has(o.outcome)) dl.append(el("option", { value: o.outcome }));
}

// The run's two clocks side by side: what the devices heard (virtual) and what the server took
// (real); then what the fleet itself did, said as the fleet's, only when it did anything.
function renderLatencyAndHealth(s) {
  const heard = s.latencyMs || {}, server = s.serverLatencyMs || {};
  $("#stats-latency").textContent = `Over the run: upload p99 ${ms(heard.p99)} ms virtual, as heard ` +
    `(${s.timing === "modelled" ? "answers modelled" : "real time × the warp"}) · server p99 ${ms(server.p99)} ms, ` +
    `max ${ms(server.max)} ms real`;
  const h = s.fleetHealth || {};
  const notSent = Object.entries(h.notSent || {}).filter(([, v]) => v > 0);
  const parts = [];
  if (notSent.length) parts.push("not sent " + notSent.map(([k, v]) => `${k} ${num(v)}`).join(", "));
  if (h.heldBack) parts.push(`held back ${num(h.heldBack)} (wait p99 ${ms(h.connectionWaitMs && h.connectionWaitMs.p99)} ms real)`);
  if (h.cancelledOnWire) parts.push(`cancelled on the wire ${num(h.cancelledOnWire)}`);
  if (h.warpTimeouts) parts.push(`warp-timeouts ${num(h.warpTimeouts)}`);
  if (h.behindSeconds) parts.push(`behind its warp ${h.behindSeconds} s real`);
  if (h.answerWaitSeconds) parts.push(`waited ${h.answerWaitSeconds} s real for the server's answers`);
  const health = $("#stats-health");
  health.hidden = !parts.length;
  health.textContent = parts.length ? "Fleet health (the fleet's own, not the server's): " + parts.join(" · ") : "";
}

$("#stats-reset").addEventListener("click", async () => {
  try { renderStats(await api("DELETE", "api/v1/stats")); } catch (e) { showError(e, "Resetting statistics"); }
});

on("tab", t => { if (t === "overview") { drawCharts(); pollStats(); } });
on("token", () => { if (currentTab === "overview") pollStats(); });
