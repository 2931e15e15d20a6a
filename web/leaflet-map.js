// The Map tab on Leaflet (Debian's libjs-leaflet, served by the admin at vendor/leaflet/) with
// OpenStreetMap tiles: the same interface as the canvas FleetMap, which takes over (its lat/lon
// grid) when the tiles cannot be had (offline) or Leaflet is not installed.
import { colorFor } from "./charts.js";

const TILES = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";

export class LeafletFleetMap {
  constructor(container, { onPick, onOffline } = {}) {
    const L = window.L;
    this.L = L;
    this.container = container;
    this.onPick = onPick;
    this.devices = [];
    this.route = null;
    this.selected = new Set();
    this.fitted = false;
    // Canvas markers: thousands of devices stay one layer to draw, not thousands of DOM nodes.
    this.map = L.map(container, { preferCanvas: true, zoomControl: false, worldCopyJump: true }).setView([48.8, 2.3], 4);
    this.renderer = L.canvas({ padding: 0.2 });
    let loaded = 0, failed = 0;
    this.tiles = L.tileLayer(TILES, { maxZoom: 19, attribution: "© OpenStreetMap contributors" })
      .on("tileload", () => { loaded++; })
      .on("tileerror", () => { if (++failed >= 3 && loaded === 0 && onOffline) onOffline(); })
      .addTo(this.map);
    this.markers = L.layerGroup().addTo(this.map);
    this.routeLayer = L.layerGroup().addTo(this.map);
  }

  setDevices(list) {
    this.devices = list.filter(d => d.latitude != null && d.longitude != null);
    if (!this.fitted && this.devices.length) this.fitDevices();
    this.draw();
  }
  setRoute(id, points) {
    this.route = { id, points: points.filter(p => p.latitude != null) };
    this.draw();
  }
  setSelected(ids) { this.selected = new Set(ids); this.draw(); }

  fitDevices() { return this.fitPoints(this.devices); }
  fitSelection() { return this.fitPoints(this.devices.filter(d => this.selected.has(d.id))); }
  fitRoute() { return this.route ? this.fitPoints(this.route.points) : false; }
  fitPoints(points) {
    if (!points.length) return false;
    this.map.fitBounds(this.L.latLngBounds(points.map(p => [p.latitude, p.longitude])), { padding: [30, 30], maxZoom: 17 });
    this.fitted = true;
    return true;
  }
  zoom(factor) { this.map.setZoom(this.map.getZoom() + (factor > 1 ? 1 : -1)); }

  draw() {
    const L = this.L;
    this.map.invalidateSize();
    this.markers.clearLayers();
    for (const d of this.devices) {
      const selected = this.selected.has(d.id);
      L.circleMarker([d.latitude, d.longitude], {
        renderer: this.renderer, radius: selected ? 6 : 4, weight: selected ? 2 : 0, color: "#111",
        fillColor: colorFor(d.state), fillOpacity: 0.85,
      }).on("click", () => this.onPick && this.onPick(d.id)).addTo(this.markers);
    }
    this.routeLayer.clearLayers();
    if (this.route && this.route.points.length) {
      const line = this.route.points.map(p => [p.latitude, p.longitude]);
      L.polyline(line, { renderer: this.renderer, color: "#1f5fbf", weight: 3 }).addTo(this.routeLayer);
      L.circleMarker(line[line.length - 1], { renderer: this.renderer, radius: 7, color: "#1f5fbf", weight: 3, fillColor: "#fff", fillOpacity: 1 })
        .bindTooltip(this.route.id, { permanent: true, direction: "right" }).addTo(this.routeLayer);
    }
  }
}
