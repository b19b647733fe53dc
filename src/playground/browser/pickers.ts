/**
 * The server and tool pickers: the servers from the gateway's `GET servers`, the tools of the
 * picked one from `tools/list` (every page of it, up to a bound), and the picked tool.
 *
 * @module
 */
import { renderArguments } from "./arguments.ts";
import { el } from "./elements.ts";
import { shown } from "./shown.ts";
import { page, say } from "./page.ts";
import { own, ownArray, text } from "./read-json.ts";
import { authorization, describeError, isTool, rpc, type Tool } from "./rpc.ts";

/** The most pages of `tools/list` read, so a server cannot keep the page paging for ever. */
const MAX_PAGES = 20;

let tools: readonly Tool[] = [];
/** Each server's origin, from `GET servers`: a URL elicitation elsewhere gets a warning. */
const serverOrigins = new Map<string, string>();

/**
 * Loads the server picker from `GET servers` (with the access token typed in, if any). The server
 * picked stays picked when the new list has it; else the tool picker empties with it.
 */
export async function loadServers(): Promise<void> {
  const select = page.server;
  const picked = select.value;
  let listing: unknown;
  try {
    const response = await fetch("servers", {
      cache: "no-store",
      credentials: "same-origin",
      headers: authorization(),
    });
    if (response.status === 401 || response.status === 403) {
      select.replaceChildren(el("option", { value: "", text: "No servers" }));
      select.disabled = true;
      await loadTools();
      say(
        page.token.value.trim() === ""
          ? "This gateway needs an access token: enter one above"
          : "This gateway did not accept the access token: enter another above",
      );
      return;
    }
    listing = await response.json();
  } catch {
    listing = undefined;
  }
  const servers = ownArray(listing, "servers").filter((server) => typeof own(server, "id") === "string");
  select.replaceChildren(
    el("option", { value: "", text: servers.length === 0 ? "No servers" : "Choose a server" }),
  );
  for (const server of servers) {
    const id = text(own(server, "id"));
    select.append(el("option", { value: id, text: `${id} (${text(own(server, "era"))})` }));
    const origin = own(server, "elicitationOrigin");
    if (typeof origin === "string") serverOrigins.set(id, origin);
  }
  select.disabled = servers.length === 0;
  if (picked !== "" && servers.some((server) => own(server, "id") === picked)) {
    select.value = picked;
    return;
  }
  await loadTools();
  say(listing === undefined ? "The server list could not be loaded" : "Pick a server, then a tool");
}

/** Loads the tool picker with the tools of the picked server. */
export async function loadTools(): Promise<void> {
  const server = page.server.value;
  const select = page.tool;
  tools = [];
  pickTool();
  select.disabled = true;
  const waiting = server === "" ? "Pick a server first" : "Loading tools…";
  select.replaceChildren(el("option", { value: "", text: waiting }));
  if (server === "") return;
  say(`Loading the tools of ${server}…`);
  const found: Tool[] = [];
  let cursor: unknown;
  for (let count = 0; count < MAX_PAGES; count++) {
    const answer = await rpc(server, "tools/list", typeof cursor === "string" ? { cursor } : {});
    if (page.server.value !== server) return;
    if ("error" in answer) {
      select.replaceChildren(el("option", { value: "", text: "No tools" }));
      say(`Listing the tools failed: ${describeError(answer.error)}`);
      return;
    }
    found.push(...ownArray(answer.result, "tools").filter(isTool));
    cursor = own(answer.result, "nextCursor");
    if (typeof cursor !== "string") break;
  }
  tools = found;
  select.replaceChildren(
    el("option", { value: "", text: found.length === 0 ? "No tools" : "Choose a tool" }),
    ...found.map((tool, index) => el("option", { value: String(index), text: tool.name })),
  );
  select.disabled = found.length === 0;
  say(`${found.length} ${found.length === 1 ? "tool" : "tools"} on ${server}`);
}

/** The picked tool, if any. */
export function selectedTool(): Tool | undefined {
  const value = page.tool.value;
  return value === "" ? undefined : tools[Number(value)];
}

/** Shows the picked tool's description and argument inputs. */
export function pickTool(): void {
  const tool = selectedTool();
  page.toolDescription.textContent = shown(text(own(tool, "description")));
  renderArguments(tool);
  page.call.disabled = tool === undefined;
}

/** The origin the gateway says a server's URL elicitations should point to, if it knows. */
export function serverOrigin(server: string): string | undefined {
  return serverOrigins.get(server);
}
