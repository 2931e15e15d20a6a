// The Faults tab: apply any action, with its parameters, to a selector of devices; and the log
// of recent actions from the live stream.
import { $, el, num, ms, longTime, streamText } from "./dom.js";
import { api, on, ApiError, say, showError, clearError } from "./api.js";
import { showTab, currentTab } from "./tabs.js";
import { fleet } from "./fleet.js";
import { selected } from "./selection.js";

// Every action, its parameters and what it does, as GET /api/v1/actions describes them: the
// form has no list of its own.
let catalog = [];
const faSel = $("#fa-action");
export async function loadActions() {
  try {
    catalog = (await api("GET", "api/v1/actions")).actions;
  } catch (err) { showError(err, "Loading the actions"); return; }
  const chosen = faSel.value || "revokePermission";
  faSel.replaceChildren(...catalog.map(a => el("option", { value: a.name, text: a.name })));
  faSel.value = catalog.some(a => a.name === chosen) ? chosen : catalog[0].name;
  renderParams();
}
on("token", loadActions);
function renderParams() {
  const action = catalog.find(a => a.name === faSel.value);
  if (!action) return;
  // The catalog's summaries are phrases ("the app's process dies"); the help is a sentence.
  const sentence = action.summary[0].toUpperCase() + action.summary.slice(1);
  // From here an action does not end by itself (a fault's `for` is the timeline's).
  const u = action.undoneBy;
  const undo = u ? ` It lasts until ${u.action}${Object.keys(u.params).length ? ` ${JSON.stringify(u.params)}` : ""} is applied.` : "";
  $("#fa-help").textContent = `${sentence}.${undo}`;
  $("#fa-params").replaceChildren(...action.params.map(p => {
    const id = `fa-p-${p.name}`;
    const number = p.type === "integer" || p.type === "number";
    const text = p.type === "string";
    const range = number ? `, ${p.minimum} to ${p.maximum}${p.unit ? " " + p.unit : ""}` : text ? "" : " (JSON)";
    const label = el("label", { for: id, text: `${p.name}${range}${p.required ? "" : " (optional)"}` });
    // A string with words is a choice (blank: the action's default); other strings are typed (an instant).
    const input = number
      ? el("input", { id, type: "number", min: p.minimum, max: p.maximum, step: p.type === "integer" ? 1 : "any" })
      : text && p.enum
        ? el("select", { id }, el("option", { value: "", text: p.required ? "" : "(default)" }),
          ...p.enum.map(word => el("option", { value: word, text: word })))
        : text
          ? el("input", { id, type: "text", spellcheck: "false", placeholder: JSON.parse(p.example) })
          : el("textarea", { id, rows: 4, spellcheck: "false" });
    Object.assign(input.dataset, { param: p.name, type: p.type, optional: p.required ? "" : "1" });
    input.value = p.required ? (text ? JSON.parse(p.example) : p.example) : "";
    input.title = p.summary;
    return el("div", { class: "param" }, label, input);
  }));
}
faSel.addEventListener("change", renderParams);
function readParams() {
  const out = {};
  for (const inp of document.querySelectorAll("#fa-params [data-param]")) {
    const name = inp.dataset.param, t = inp.dataset.type, v = inp.value.trim();
    if (!v) { if (inp.dataset.optional) continue; throw new ApiError(0, "bad_request", `${name} is required`, `params.${name}`); }
    if (t === "integer" || t === "number") { const n = Number(v); if (!Number.isFinite(n)) throw new ApiError(0, "bad_type", `${name} must be a number`, `params.${name}`); out[name] = n; }
    else if (t === "string") out[name] = v;
    else { try { out[name] = JSON.parse(v); } catch (e) { throw new ApiError(0, "bad_type", `${name} is not valid JSON (${e.message})`, `params.${name}`); } }
  }
  return Object.keys(out).length ? out : undefined;
}
function readSelector() {
  const kind = document.querySelector("input[name=sel]:checked").value;
  if (kind === "all") return { all: true };
  if (kind === "group") return { group: $("#fa-group").value };
  if (kind === "state") return { state: $("#fa-state").value.trim() };
  if (kind === "ids") {
    if (!selected.size) throw new ApiError(0, "bad_request", "No devices are selected in the table", "selector.ids");
    return { ids: [...selected] };
  }
  const sel = { fraction: Number($("#fa-fraction").value) };
  if ($("#fa-seed").value !== "") sel.seed = Number($("#fa-seed").value);
  return sel;
}
$("#fault-form").addEventListener("submit", async e => {
  e.preventDefault();
  const out = $("#fa-result");
  out.dataset.ok = "false";
  try {
    const body = { action: faSel.value, selector: readSelector() };
    const params = readParams();
    if (params) body.params = params;
    const r = await api("POST", "api/v1/fleet/actions", body);
    out.textContent = `${body.action} applied to ${num(r.applied)} device${r.applied === 1 ? "" : "s"}.`;
    out.dataset.ok = "true";
    say(out.textContent); clearError();
  } catch (err) {
    out.textContent = `Not applied: ${err.message}${err.field ? ` (field ${err.field})` : ""}`;
    showError(err, `Applying ${faSel.value}`);
  }
});
// The faults: the fleet file's timeline (done, on with the virtual time left, to come), then those
// applied through the API or this page (an action that begins a fault: source "api"); an active
// fault with an opposite can be ended now (DELETE /api/v1/faults/{fault}), whichever its source.
let timelineShown = 0;
export async function loadTimeline() {
  let body;
  try { body = await api("GET", "api/v1/faults"); } catch (err) { showError(err, "Loading the fault timeline"); return; }
  renderTimeline(body.faults || []);
}
function renderTimeline(faults) {
  const now = fleet ? Date.parse(fleet.virtualTime) : null;
  const rows = faults.map(f => {
    let state = f.phase;
    if (f.phase === "active" && f.endsAt && now != null) state += ` · ${ms((Date.parse(f.endsAt) - now) / 1000)} s left`;
    if (f.endedEarlyAt) state += f.source === "api" ? " · ended" : " · ended early";
    const end = f.endable
      ? el("button", { type: "button", class: "small", text: "End now", "data-fault": f.fault })
      : "";
    const tr = el("tr", { "data-fault": f.fault, "data-phase": f.phase },
      el("td", { class: "num", text: f.fault }),
      el("td", { text: f.source === "api" ? "API" : `file, line ${f.line}` }), el("td", { text: longTime(f.startsAt) }),
      el("td", {}, el("strong", { text: f.action })), el("td", { text: f.selector }),
      el("td", {}, el("span", { class: `badge phase-${f.phase}`, text: state })),
      el("td", { class: "num", text: f.applied == null ? "–" : num(f.applied) }), el("td", {}, end));
    return tr;
  });
  if (!rows.length) {
    rows.push(el("tr", {}, el("td", { colspan: 8, class: "muted", text: "No faults: the fleet file has none, and none was applied." })));
  }
  $("#fault-timeline tbody").replaceChildren(...rows);
  timelineShown = Date.now();
}
$("#fault-timeline").addEventListener("click", async e => {
  const button = e.target.closest("button[data-fault]");
  if (!button) return;
  button.disabled = true;
  try {
    const body = await api("DELETE", `api/v1/faults/${button.dataset.fault}`);
    renderTimeline(body.faults || []);
    say(`Fault ${button.dataset.fault} ended`); clearError();
  } catch (err) { button.disabled = false; showError(err, `Ending fault ${button.dataset.fault}`); }
});
// While the tab is shown, the timeline follows the clock (at most once a second).
on("fleet", () => { if (currentTab === "faults" && Date.now() - timelineShown > 1000) loadTimeline(); });
on("tab", t => { if (t === "faults") loadTimeline(); });

function logLine(...parts) {
  const log = $("#action-log");
  log.prepend(el("li", {}, ...parts));
  while (log.children.length > 50) log.lastChild.remove();
}
on("action", a => logLine(`${longTime(a.at)} — `, el("strong", { text: a.action }), ` on ${num(a.applied)} device${a.applied === 1 ? "" : "s"}`));
// A device's sync retry or failure, or an auth change, as the SDK emitted it.
on("sdk", r => logLine(`${longTime(r.at)} — ${r.device} `, el("em", { text: r.stream }), ` ${streamText(r)}`));

// The count beside "Selected in the table".
export function showSelectedCount() { $("#fa-selcount").textContent = selected.size; }
// The selection bar's "More faults…": this form, aimed at the table's selection.
export function actOnSelection() {
  document.querySelector('input[name=sel][value=ids]').checked = true;
  showTab("faults"); $("#fa-action").focus();
}
on("tab", t => { if (t === "faults") showSelectedCount(); });
