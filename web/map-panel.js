// The Map tab: up to 2,000 devices' positions and one device's route, on OpenStreetMap through
// Leaflet when the admin serves it and the tiles load, else on the FleetMap canvas's grid.
import { $, el, num } from "./dom.js";
import { api, on, qs, say, showError } from "./api.js";
import { currentTab, showTab } from "./tabs.js";
import { groups } from "./fleet.js";
import { selected } from "./selection.js";
import { FleetMap } from "./map.js";
import { LeafletFleetMap } from "./leaflet-map.js";

const canvasMap = new FleetMap($("#map"), { onPick: id => showRoute(id, false) });
// Leaflet is there when the admin found Debian's libjs-leaflet (else vendor/leaflet/leaflet.js is
// an empty script); the tiles, when the browser can reach OpenStreetMap.
export let fleetMap = canvasMap;
if (window.L && window.L.map) {
  $("#map-tiles").hidden = false; $("#map").hidden = true;
  fleetMap = new LeafletFleetMap($("#map-tiles"), { onPick: id => showRoute(id, false), onOffline: useGrid });
}
function useGrid() {
  if (fleetMap === canvasMap) return;
  const was = fleetMap;
  $("#map-tiles").hidden = true; $("#map").hidden = false;
  fleetMap = canvasMap;
  fleetMap.setDevices(was.devices);
  if (was.route) fleetMap.setRoute(was.route.id, was.route.points);
  say("Map tiles unavailable (offline?): showing the grid");
}
for (const m of [canvasMap, fleetMap]) m.selected = selected; // the table's own set: ticks show at the next draw
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
export async function showRoute(id, fit = true) {
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

on("tab", t => { if (t === "map") { fleetMap.draw(); pollMap(); } });
on("token", () => { if (currentTab === "map") pollMap(); });
