// The header: the fleet's name and figures, warp and pause. Holds the latest fleet snapshot and
// its groups, which every panel's group select offers.
import { $, el, num, longTime } from "./dom.js";
import { api, emit, on, say, showError, clearError } from "./api.js";

export let fleet = null;
export let groups = [];
on("fleet", f => {
  fleet = f;
  $("#fleet-name").textContent = f.name;
  document.title = `${f.name} · Beekon Fleet admin`;
  $("#vtime").textContent = longTime(f.virtualTime);
  // At max warp the clock jumps from event to event; the figure is the rate it reached.
  const modelled = f.timing === "modelled";
  $("#warp").textContent = f.maxWarp ? `max (×${Math.round(f.warp)})` : `×${f.warp}${modelled ? " · modelled" : ""}`;
  $("#warp").title = modelled
    ? "Modelled timing: every answer takes 100 virtual ms, virtual time waiting for each real answer"
    : "Answers take the server's real time × the warp";
  // Behind: the run cannot keep up with the warp set (never at max warp or while paused).
  const pace = f.pace || {};
  $("#pace-fact").hidden = !pace.behind;
  if (pace.behind) {
    const late = pace.timerLatenessP99Ms >= 1000 ? `${(pace.timerLatenessP99Ms / 1000).toFixed(1)} s` : `${Math.round(pace.timerLatenessP99Ms)} ms`;
    $("#pace-badge").textContent = pace.achievedWarp != null ? `behind: ×${num(Math.round(pace.achievedWarp))} of ×${f.warp}` : "behind";
    $("#pace-badge").title = `The run cannot keep up with its warp: timers p99 ${late} late over the last seconds`;
  }
  const p = $("#paused-state");
  p.textContent = f.paused ? "paused" : "running"; p.dataset.paused = f.paused;
  $("#pause-btn").textContent = f.paused ? "Resume" : "Pause";
  $("#pause-btn").setAttribute("aria-pressed", f.paused);
  $("#device-count").textContent = num(f.devices) + (f.targetDevices != null ? ` (target ${num(f.targetDevices)})` : "");
  $("#fix-counts").textContent = f.fixes ? `${num(f.fixes.acknowledged)} / ${num(f.fixes.pending)}` : "–";
  $("#batch-count").textContent = f.batches ? num(f.batches.sent) : "–";
  const warpInput = $("#warp-input");
  if (document.activeElement !== warpInput && !warpInput.value) warpInput.placeholder = f.maxWarp ? "max" : f.warp;
  const gs = [...new Set([...(f.groups || []), ...Object.keys(f.byGroup || {})])];
  if (gs.join() !== groups.join()) { groups = gs; fillGroupSelects(); }
});
function fillGroupSelects() {
  for (const [sel, first] of [["#f-group", "All groups"], ["#map-group", "All groups"], ["#fa-group", null], ["#sp-group", null]]) {
    const s = $(sel), keep = s.value;
    s.replaceChildren(...(first ? [el("option", { value: "", text: first })] : []), ...groups.map(g => el("option", { value: g, text: g })));
    if ([...s.options].some(o => o.value === keep)) s.value = keep;
  }
}
export async function loadFleet() {
  try { emit("fleet", await api("GET", "api/v1/fleet")); } catch (e) { showError(e, "Loading the fleet"); }
}
on("token", loadFleet);
$("#warp-form").addEventListener("submit", async e => {
  e.preventDefault();
  // A number, or max; anything else goes as written, so the server's refusal names it.
  const raw = $("#warp-input").value.trim();
  const max = raw.toLowerCase() === "max";
  const v = max ? "max" : (raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw);
  try {
    emit("fleet", await api("PATCH", "api/v1/fleet", { warp: v }));
    say(max ? "Warp set to max" : `Warp set to ×${v}`); $("#warp-input").value = ""; clearError();
  }
  catch (err) { showError(err, "Setting warp"); }
});
$("#devices-form").addEventListener("submit", async e => {
  e.preventDefault();
  const raw = $("#devices-input").value.trim();
  const v = raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  try {
    emit("fleet", await api("PATCH", "api/v1/fleet", { devices: v }));
    say(`Scaling to ${num(v)} devices`); $("#devices-input").value = ""; clearError();
  }
  catch (err) { showError(err, "Scaling the fleet"); }
});
$("#pause-btn").addEventListener("click", async () => {
  const want = !(fleet && fleet.paused);
  try { emit("fleet", await api("PATCH", "api/v1/fleet", { paused: want })); say(want ? "Fleet paused" : "Fleet resumed"); clearError(); }
  catch (err) { showError(err, want ? "Pausing" : "Resuming"); }
});
// Without the live stream the header would stand still: poll until it is back.
setInterval(() => { if ($("#conn").dataset.conn !== "live" && !document.hidden) loadFleet(); }, 5000);
