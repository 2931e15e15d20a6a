// Helpers every panel shares: building elements, formatting numbers and times, state badges.

export const $ = sel => document.querySelector(sel);
export function el(tag, attrs = {}, ...kids) {
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
export const num = v => (v == null ? "–" : NF.format(v));
export function ms(v) {
  if (v == null) return "–";
  return v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US");
}
export const shortTime = iso => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "").slice(11) : "–");
export const longTime = iso => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") + " UTC" : "–");
// The wall clock now, 24-hour UTC, as every other time on the page.
export const wallNow = () => new Date().toISOString().slice(11, 19) + " UTC";
export const debounce = (f, wait) => { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => f(...a), wait); }; };

const STATE_LABELS = {
  "paused(permissionRevoked)": "Paused · permission revoked",
  "paused(locationDisabled)": "Paused · location services off",
  "paused(unknown)": "Paused · OS error",
  storeError: "Store error",
};
const stateLabel = s => STATE_LABELS[s] || (s ? s[0].toUpperCase() + s.slice(1) : "–");
export const stateKind = s => (s || "").replace(/\(.*$/, "");
// `why` (a store error's message) becomes the tooltip.
export function stateBadge(s, why) {
  return el("span", { class: "badge", "data-state": s, dataset: { kind: stateKind(s) }, title: why || s, text: stateLabel(s) });
}
// One stream value in words: the status or change, with what it carries.
export function streamText(r) {
  const v = r.status || r.change;
  if (v === "succeeded") return `succeeded (${r.count} fixes)`;
  if (v === "retrying") return `retrying (attempt ${r.attempt}, next ${longTime(r.nextAt)})`;
  if (v === "failed") return `failed (${r.reason})`;
  if (v === "seeded" || v === "refreshed") return `${v}${r.expiresAt ? ` (expires ${longTime(r.expiresAt)})` : ""}`;
  if (v === "breakerOpened") return `breaker opened until ${longTime(r.until)}`;
  return v;
}
