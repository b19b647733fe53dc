/**
 * The playground's browser script, bundled into `../_bundle.generated.ts` by
 * `scripts/build-playground.ts` and served as `GET /playground.js`: wires the page's controls and
 * loads the server list.
 *
 * @module
 */
import { startCall, startOver } from "./call.ts";
import { page } from "./page.ts";
import { loadServers, loadTools, pickTool } from "./pickers.ts";

page.server.addEventListener("change", loadTools);
page.token.addEventListener("change", loadServers);
page.tool.addEventListener("change", pickTool);
page.callForm.addEventListener("submit", startCall);
page.startOver.addEventListener("click", startOver);
void loadServers();
