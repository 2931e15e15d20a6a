// Device map on <canvas>: web-mercator projection, auto-fit, light lat/lon grid, no tiles.
import { colorFor } from "./charts.js";

const RAD = Math.PI / 180;
const mx = lon => lon * RAD;
const my = lat => Math.log(Math.tan(Math.PI / 4 + Math.max(-85, Math.min(85, lat)) * RAD / 2));
const unLat = y => (2 * Math.atan(Math.exp(y)) - Math.PI / 2) / RAD;
const unLon = x => x / RAD;
const deg = (v, dec) => { const t = v.toFixed(dec); return /^-0(\.0*)?$/.test(t) ? t.slice(1) : t; };
const STEPS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30];

export class FleetMap {
  constructor(canvas, { onPick } = {}) {
    this.c = canvas;
    this.onPick = onPick;
    this.devices = [];
    this.route = null; // {id, points:[{latitude, longitude}]}
    this.selected = new Set();
    this.cx = 0; this.cy = 0; this.scale = 0; // mercator centre and px per radian
    this.fitted = false;
    this.bindInput();
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

  fitPoints(pts) {
    if (!pts.length) return false;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const p of pts) {
      const x = mx(p.longitude), y = my(p.latitude);
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
    }
    const w = this.c.clientWidth || 800, h = this.c.clientHeight || 500;
    const dx = Math.max(x1 - x0, 2e-4), dy = Math.max(y1 - y0, 2e-4); // at least ~1 km
    this.scale = Math.min((w - 60) / dx, (h - 60) / dy);
    this.cx = (x0 + x1) / 2; this.cy = (y0 + y1) / 2;
    this.fitted = true;
    this.draw();
    return true;
  }

  zoom(f, px, py) {
    const w = this.c.clientWidth, h = this.c.clientHeight;
    if (px == null) { px = w / 2; py = h / 2; }
    const wx = this.cx + (px - w / 2) / this.scale, wy = this.cy - (py - h / 2) / this.scale;
    this.scale = Math.max(50, Math.min(5e8, this.scale * f));
    this.cx = wx - (px - w / 2) / this.scale; this.cy = wy + (py - h / 2) / this.scale;
    this.draw();
  }
  pan(dxPx, dyPx) { this.cx -= dxPx / this.scale; this.cy += dyPx / this.scale; this.draw(); }

  project(lat, lon) {
    const w = this.c.clientWidth, h = this.c.clientHeight;
    return [w / 2 + (mx(lon) - this.cx) * this.scale, h / 2 - (my(lat) - this.cy) * this.scale];
  }

  bindInput() {
    const c = this.c;
    let drag = null;
    c.addEventListener("pointerdown", e => { drag = { x: e.clientX, y: e.clientY, moved: false }; c.setPointerCapture(e.pointerId); });
    c.addEventListener("pointermove", e => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
      if (drag.moved) { this.pan(dx, dy); drag.x = e.clientX; drag.y = e.clientY; }
    });
    c.addEventListener("pointerup", e => {
      const d = drag; drag = null;
      if (d && !d.moved) this.pick(e.offsetX, e.offsetY);
    });
    c.addEventListener("wheel", e => { e.preventDefault(); this.zoom(e.deltaY < 0 ? 1.25 : 0.8, e.offsetX, e.offsetY); }, { passive: false });
    c.addEventListener("keydown", e => {
      const k = { ArrowLeft: [60, 0], ArrowRight: [-60, 0], ArrowUp: [0, 60], ArrowDown: [0, -60] }[e.key];
      if (k) { this.pan(...k); e.preventDefault(); }
      else if (e.key === "+" || e.key === "=") { this.zoom(1.4); e.preventDefault(); }
      else if (e.key === "-") { this.zoom(1 / 1.4); e.preventDefault(); }
    });
    new ResizeObserver(() => this.draw()).observe(c);
  }

  pick(px, py) {
    let best = null, bd = 100; // within 10 px
    for (const d of this.devices) {
      const [x, y] = this.project(d.latitude, d.longitude);
      const dd = (x - px) ** 2 + (y - py) ** 2;
      if (dd < bd) { bd = dd; best = d; }
    }
    if (best && this.onPick) this.onPick(best.id);
  }

  draw() {
    const c = this.c, dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = "#fbfcfd"; g.fillRect(0, 0, w, h);
    if (!this.scale) { g.fillStyle = "#5b6676"; g.font = "13px system-ui"; g.fillText("Waiting for device positions…", 16, 24); return; }
    this.drawGrid(g, w, h);

    // devices
    for (const d of this.devices) {
      const [x, y] = this.project(d.latitude, d.longitude);
      if (x < -5 || y < -5 || x > w + 5 || y > h + 5) continue;
      const sel = this.selected.has(d.id);
      g.beginPath(); g.arc(x, y, sel ? 5 : 3, 0, 2 * Math.PI);
      g.fillStyle = colorFor(d.state); g.globalAlpha = sel ? 1 : 0.8; g.fill(); g.globalAlpha = 1;
      if (sel) { g.strokeStyle = "#111"; g.lineWidth = 1.5; g.stroke(); }
    }
    // route of the chosen device
    if (this.route && this.route.points.length) {
      const pts = this.route.points.map(p => this.project(p.latitude, p.longitude));
      g.strokeStyle = "#1f5fbf"; g.lineWidth = 2.5; g.beginPath();
      pts.forEach(([x, y], i) => i ? g.lineTo(x, y) : g.moveTo(x, y)); g.stroke();
      g.fillStyle = "#1f5fbf";
      for (const [x, y] of pts) { g.beginPath(); g.arc(x, y, 2, 0, 2 * Math.PI); g.fill(); }
      const [lx, ly] = pts[pts.length - 1];
      g.beginPath(); g.arc(lx, ly, 6, 0, 2 * Math.PI); g.fillStyle = "#fff"; g.fill(); g.strokeStyle = "#1f5fbf"; g.lineWidth = 3; g.stroke();
      g.fillStyle = "#17202c"; g.font = "12px system-ui"; g.fillText(this.route.id, lx + 9, ly - 8);
    }
    // scale bar
    const latC = unLat(this.cy), mPerPx = 6378137 * Math.cos(latC * RAD) / this.scale;
    let meters = [1, 2, 5].flatMap(m => [1, 10, 100, 1000, 10000, 100000, 1000000].map(p => m * p)).sort((a, b) => a - b)
      .find(m => m / mPerPx > 80) || 1000000;
    const bar = meters / mPerPx;
    g.fillStyle = "#17202c"; g.fillRect(12, h - 18, bar, 3);
    g.font = "11px system-ui"; g.fillText(meters >= 1000 ? `${meters / 1000} km` : `${meters} m`, 12, h - 24);
  }

  drawGrid(g, w, h) {
    const lon0 = unLon(this.cx - w / 2 / this.scale), lon1 = unLon(this.cx + w / 2 / this.scale);
    const lat0 = unLat(this.cy - h / 2 / this.scale), lat1 = unLat(this.cy + h / 2 / this.scale);
    const step = STEPS.find(s => (lon1 - lon0) / s <= 10) || 30;
    const dec = Math.max(0, -Math.floor(Math.log10(step)));
    g.strokeStyle = "#e6eaef"; g.lineWidth = 1; g.fillStyle = "#8a94a3"; g.font = "10px system-ui";
    for (let lon = Math.ceil(lon0 / step) * step; lon <= lon1; lon += step) {
      const [x] = this.project(0, lon);
      g.beginPath(); g.moveTo(x + 0.5, 0); g.lineTo(x + 0.5, h); g.stroke();
      g.fillText(`${deg(lon, dec)}°`, x + 3, h - 4);
    }
    const latStep = STEPS.find(s => (lat1 - lat0) / s <= 8) || 30;
    const ldec = Math.max(0, -Math.floor(Math.log10(latStep)));
    for (let lat = Math.ceil(lat0 / latStep) * latStep; lat <= lat1; lat += latStep) {
      const [, y] = this.project(lat, 0);
      g.beginPath(); g.moveTo(0, y + 0.5); g.lineTo(w, y + 0.5); g.stroke();
      g.fillText(`${deg(lat, ldec)}°`, 3, y - 3);
    }
  }
}
