// Beekon Fleet admin page: a client of the admin REST API v1 and its SSE stream, nothing else.
// Each tab, the header and the detail dialog is a module that binds its own part of the page
// (index.html) when imported; this one imports them all and starts the page.
import { connectEvents } from "./api.js";
import { showTab } from "./tabs.js";
import { loadFleet } from "./fleet.js";
import "./overview.js";
import "./devices.js";
import "./detail.js";
import "./map-panel.js";
import { loadActions } from "./actions.js";
import "./spawn.js";

await loadFleet();
await loadActions();
connectEvents();
showTab("overview");
