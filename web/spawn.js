// The Spawn tab: new devices from a group's template or an inline group spec.
import { $ } from "./dom.js";
import { api, ApiError, say, showError, clearError } from "./api.js";
import { showNewest } from "./devices.js";

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
  showNewest(lastSpawn.group, lastSpawn.ids.length);
  say(`Showing the newest devices of ${lastSpawn.group}, newest first`);
});
