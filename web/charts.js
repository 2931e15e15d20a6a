// Small time-series charts on <canvas>: one line per series, y axis auto-scaled; a live 5-minute
// window (the page) or the whole run (`windowMs: null`, the HTML report); faults as shaded bands.
// `t` need not be wall-clock time: with `timeLabel`, any number (the comparison page: ms since
// each run's start).

const WINDOW_MS = 5 * 60 * 1000;
const PALETTE = ["#1f5fbf", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700", "#5c940d", "#364fc7", "#a61e4d"];
const FIXED = {
  "200": "#2b8a3e", "201": "#5c940d", "202": "#5c940d", "204": "#5c940d",
  timeout: "#c92a2a", offline: "#495057", "503": "#e67700", "500": "#d9480f", "429": "#862e9c", "401": "#a61e4d",
  p50: "#2b8a3e", p95: "#e67700", p99: "#c92a2a",
  tracking: "#2b8a3e", starting: "#1f5fbf", idle: "#868e96", stopped: "#495057", dead: "#c92a2a",
  "paused(permissionRevoked)": "#e67700", "paused(locationDisabled)": "#ae3ec9", "paused(unknown)": "#f59f00",
  pending: "#1f5fbf",
};

// Upload outcomes keep their class's colour whatever order they appear in: greens for 2xx,
// purples for 4xx, oranges for 5xx (and the rare 1xx or 3xx), reds for network failures, grey for offline; never a 2xx
// green for a failure.
const CLASS_COLOURS = {
  ok: ["#2b8a3e", "#5c940d", "#37b24d"], client: ["#862e9c", "#a61e4d", "#5f3dc4"],
  server: ["#e67700", "#d9480f", "#f08c00"], network: ["#c92a2a", "#a61e4d", "#e03131"], offline: ["#495057"],
};
const NETWORK = new Set(["timeout", "refused", "reset", "dns", "tls", "too-many-open-files", "other"]);

export function outcomeClass(outcome) {
  if (/^2\d\d$/.test(outcome)) return "ok";
  if (/^4\d\d$/.test(outcome)) return "client";
  if (/^[1-35]\d\d$/.test(outcome)) return "server";
  if (outcome === "offline") return "offline";
  return NETWORK.has(outcome) ? "network" : null;
}

export function colorFor(key, index = 0) {
  if (FIXED[key]) return FIXED[key];
  const cls = outcomeClass(String(key));
  if (cls) { const c = CLASS_COLOURS[cls]; return c[index % c.length]; }
  return PALETTE[index % PALETTE.length];
}

export class TimeChart {
  constructor(canvas, {
    unit = "", summary = null, integer = false, windowMs = WINDOW_MS, timeLabel = null, series = {}, joinMissing = false,
  } = {}) {
    this.canvas = canvas;
    this.unit = unit;
    this.summary = summary;
    this.integer = integer;
    this.windowMs = windowMs; // null: the whole range of the points
    this.timeLabel = timeLabel; // t → tick text, for a whole-range chart
    this.series = series; // key → {color, width, dash}: a series' own line, else by its key
    // A key a point lacks: a gap in its line (false), or no point there (true: series sampled at
    // different instants, as two runs' rows of different widths).
    this.joinMissing = joinMissing;
    this.points = []; // [{t, v: {key: number|null}}]
    this.keys = [];   // series keys in first-seen order
    this.bands = [];  // [{from, to, label}]: faults, shaded behind the lines
  }

  push(t, values) {
    for (const k of Object.keys(values)) if (!this.keys.includes(k)) this.keys.push(k);
    this.points.push({ t, v: values });
    if (this.windowMs == null) return;
    const cut = t - this.windowMs;
    while (this.points.length && this.points[0].t < cut) this.points.shift();
  }

  // Spans of time to shade (a fault from its start to its end; `to` null: still on; `fill`, a
  // colour other than the default).
  setBands(bands) { this.bands = bands; }

  color(k, i) { return this.series[k]?.color ?? colorFor(k, i); }

  draw() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return; // hidden tab
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    }
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const L = 52, R = 18, T = 22, B = 20;
    const pw = w - L - R, ph = h - T - B;
    const now = this.points.length ? this.points[this.points.length - 1].t : Date.now();
    const span = this.windowMs ?? Math.max(1, now - (this.points.length ? this.points[0].t : now));
    const t0 = now - span;
    let max = 0;
    for (const p of this.points) for (const k of this.keys) { const v = p.v[k]; if (v != null && v > max) max = v; }
    const { top, step } = niceScale(max, this.integer);
    const x = t => L + ((t - t0) / span) * pw;
    const y = v => T + ph - (v / top) * ph;

    // grid and axes
    g.font = "11px system-ui, sans-serif";
    g.strokeStyle = "#e3e7ec"; g.fillStyle = "#5b6676"; g.lineWidth = 1;
    g.textAlign = "right"; g.textBaseline = "middle";
    for (let v = 0; v <= top + 1e-9; v += step) {
      const yy = Math.round(y(v)) + 0.5;
      g.beginPath(); g.moveTo(L, yy); g.lineTo(L + pw, yy); g.stroke();
      g.fillText(fmtTick(v), L - 6, yy);
    }
    g.textAlign = "center"; g.textBaseline = "top";
    for (let m = 0; m <= 5; m++) {
      const t = t0 + (m * span) / 5;
      const xx = Math.round(x(t)) + 0.5;
      g.beginPath(); g.moveTo(xx, T); g.lineTo(xx, T + ph); g.stroke();
      const label = this.timeLabel ? this.timeLabel(t) : m === 5 ? "now" : `−${fmtSpan(span - (m * span) / 5)}`;
      // The ends inside the canvas: a long label must not run off it.
      g.textAlign = this.timeLabel && m === 0 ? "left" : this.timeLabel && m === 5 ? "right" : "center";
      g.fillText(label, xx, T + ph + 4);
    }

    // fault bands, behind the lines
    g.textAlign = "left";
    let labelEnds = []; // per label row, where its last label ends: labels that would overlap go lower
    for (const band of this.bands) {
      const from = Math.max(band.from, t0), to = Math.min(band.to ?? now, now);
      if (to < from) continue;
      const x0 = x(from), x1 = Math.max(x(to), x0 + 2);
      g.fillStyle = band.fill ?? "rgba(201, 42, 42, 0.10)"; g.fillRect(x0, T, x1 - x0, ph);
      let row = labelEnds.findIndex(end => end < x0);
      if (row < 0) { row = labelEnds.length; labelEnds.push(0); }
      labelEnds[row] = x0 + 2 + g.measureText(band.label).width + 6;
      g.fillStyle = "#a61e4d"; g.fillText(band.label, x0 + 2, T + 2 + 13 * row);
    }

    // lines
    this.keys.forEach((k, i) => {
      const line = this.series[k] ?? {};
      g.strokeStyle = this.color(k, i); g.lineWidth = line.width ?? 1.8; g.setLineDash(line.dash ?? []);
      g.beginPath();
      let on = false;
      for (const p of this.points) {
        const v = p.v[k];
        if (v === undefined && this.joinMissing) continue;
        if (v == null) { on = false; continue; }
        if (on) g.lineTo(x(p.t), y(v)); else { g.moveTo(x(p.t), y(v)); on = true; }
      }
      g.stroke();
    });
    g.setLineDash([]);

    // legend (top, right-aligned) with latest values
    const last = this.points[this.points.length - 1];
    g.textBaseline = "top"; g.textAlign = "left";
    g.fillStyle = "#5b6676";
    if (this.unit) g.fillText(this.unit, 4, 2);
    let lx = Math.max(L, 4 + (this.unit ? g.measureText(this.unit).width + 14 : 0)); const parts = [];
    this.keys.forEach((k, i) => {
      // Joined series end apart: each its own latest value.
      const v = this.joinMissing ? this.points.findLast(p => p.v[k] !== undefined)?.v[k] : last ? last.v[k] : null;
      const label = `${k}${v != null ? " " + fmtVal(v) : ""}`;
      parts.push(label);
      g.fillStyle = this.color(k, i); g.fillRect(lx, 6, 10, 3);
      g.fillStyle = "#1c2430"; g.fillText(label, lx + 13, 2);
      lx += g.measureText(label).width + 26;
    });
    if (this.summary) this.summary.textContent = last ? `Now: ${parts.join(", ") || "no data"}${this.unit ? " (" + this.unit + ")" : ""}` : "Waiting for data…";
  }
}

function niceScale(max, integer) {
  if (!(max > 0)) return { top: integer ? 4 : 1, step: integer ? 1 : 0.25 };
  const raw = max / 4;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(s => s >= raw);
  if (integer) step = Math.max(1, Math.ceil(step));
  return { top: Math.ceil(max / step) * step, step };
}

function fmtTick(v) {
  if (v >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (v >= 1e4) return (v / 1e3).toFixed(0) + "k";
  return Number.isInteger(v) ? String(v) : v.toFixed(v < 1 ? 2 : 1);
}
function fmtSpan(ms) {
  const minutes = ms / 60000;
  if (minutes < 60) return `${+minutes.toFixed(minutes < 10 && !Number.isInteger(minutes) ? 1 : 0)} min`;
  return `${+(minutes / 60).toFixed(1)} h`;
}
function fmtVal(v) {
  return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(v < 10 ? 2 : 1);
}
