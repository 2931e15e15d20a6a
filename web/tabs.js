// The tab bar. Showing a tab emits "tab" with its name; each panel refreshes itself on it.
import { emit } from "./api.js";

const tabs = [...document.querySelectorAll("[role=tab]")];
export let currentTab = "overview";
export function showTab(name, focus = false) {
  currentTab = name;
  for (const t of tabs) {
    const on = t.id === `tab-${name}`;
    t.setAttribute("aria-selected", on); t.tabIndex = on ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    if (on && focus) t.focus();
  }
  emit("tab", name);
}
tabs.forEach((t, i) => {
  t.addEventListener("click", () => showTab(t.id.slice(4)));
  t.addEventListener("keydown", e => {
    const d = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (d) { showTab(tabs[(i + d + tabs.length) % tabs.length].id.slice(4), true); e.preventDefault(); }
  });
});
