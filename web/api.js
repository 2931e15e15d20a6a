// The admin API as the page uses it: requests with the admin token (asked for on a 401), the
// status line and error box, the live event stream, and the page's events that carry it on.
import { $, el, wallNow } from "./dom.js";

/* ---------- page events ---------- */
// How modules hear of each other without importing each other: the server's live events
// (fleet, uploads, devices, action; "fleet" also for a REST answer of that shape), "tab" (a tab
// was shown, by name), "token" (an admin token was entered) and "deleted" (a device was deleted
// from its dialog, by id).
const listeners = new Map();
export function on(name, f) {
  if (!listeners.has(name)) listeners.set(name, []);
  listeners.get(name).push(f);
}
export function emit(name, data) {
  for (const f of listeners.get(name) || []) f(data);
}

/* ---------- status and errors ---------- */
export function say(msg) {
  $("#status").textContent = `${wallNow()} · ${msg}`;
}
export function showError(err, context = "") {
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
export function clearError() { $("#error").hidden = true; }

/* ---------- API client ---------- */
export class ApiError extends Error {
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
function afterToken() { clearError(); connectEvents(); emit("token"); }

export async function api(method, path, body) {
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
export const qs = o => Object.entries(o).filter(([, v]) => v !== "" && v != null).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");

/* ---------- live events (SSE) ---------- */
let es = null, reconnectTimer = null, reconnectDelay = 2000;
function setConn(s, label) { const c = $("#conn"); c.dataset.conn = s; c.textContent = label || s; }
export function connectEvents() {
  if (es) es.close();
  clearTimeout(reconnectTimer);
  es = new EventSource(`api/v1/events${token ? `?token=${encodeURIComponent(token)}` : ""}`);
  setConn("connecting", "connecting…");
  es.onopen = () => { setConn("live", "live"); reconnectDelay = 2000; };
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) { setConn("down", "disconnected"); scheduleReconnect(); }
    else setConn("connecting", "reconnecting…");
  };
  for (const name of ["fleet", "uploads", "devices", "action", "sdk"]) {
    es.addEventListener(name, e => { try { emit(name, JSON.parse(e.data)); } catch (err) { console.error(`bad ${name} event`, err); } });
  }
}
function scheduleReconnect() {
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(async () => {
    reconnectDelay = Math.min(reconnectDelay * 2, 30000);
    try { await api("GET", "api/v1/fleet"); connectEvents(); } catch { scheduleReconnect(); }
  }, reconnectDelay);
}
