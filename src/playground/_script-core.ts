/**
 * The first part of the playground's browser script: DOM helpers, the MCP request as a modern
 * host sends it (headers and `_meta`), and the server and tool pickers. The script is plain
 * JavaScript run by the browser, kept as text: every value from a server reaches the page through
 * `textContent`, text nodes or attribute values, never as markup.
 *
 * @module
 */

/** DOM helpers, the JSON-RPC request over `POST mcp/<server>`, and loading servers and tools. */
export const SCRIPT_CORE: string = String.raw`
const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
  },
  "io.modelcontextprotocol/clientInfo": { name: "sluice-playground", version: "1.0.0" },
};
const MAX_PAGES = 20;
const TOKEN = /^[!#$%&'*+\-.^_\x60|~0-9A-Za-z]+$/;
let requestId = 0;
let nextFieldId = 0;
let tools = [];

function byId(id) {
  return document.getElementById(id);
}

/** Makes an element: "text" sets textContent, "on…" adds a listener, others are attributes. */
function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const key of Object.keys(attributes || {})) {
    const value = attributes[key];
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

function fieldId() {
  nextFieldId += 1;
  return "pg-field-" + nextFieldId;
}

function say(text) {
  byId("status").textContent = text;
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object, key) {
  return isObject(object) && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function text(value) {
  return typeof value === "string" ? value : "";
}

function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch (error) {
    return "(not JSON)";
  }
}

/** An Mcp-Name or Mcp-Param value: visible ASCII as is, anything else as =?base64?…?=. */
function headerValue(value) {
  let plain = !value.startsWith(" ") && !value.endsWith(" ");
  for (let i = 0; plain && i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x20 || unit > 0x7e) plain = false;
  }
  const lower = value.toLowerCase();
  if (plain && !(lower.startsWith("=?base64?") && lower.endsWith("?="))) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return "=?base64?" + btoa(binary) + "?=";
}

/** Mcp-Param-{Name} headers for the tool's top-level x-mcp-header properties. */
function paramHeaders(tool, args) {
  const headers = {};
  const properties = own(own(tool, "inputSchema"), "properties");
  for (const name of Object.keys(isObject(properties) ? properties : {})) {
    const header = own(properties[name], "x-mcp-header");
    const value = own(args, name);
    if (typeof header !== "string" || !TOKEN.test(header)) continue;
    if (typeof value === "string") headers["mcp-param-" + header] = headerValue(value);
    else if (typeof value === "boolean" || Number.isSafeInteger(value)) {
      headers["mcp-param-" + header] = String(value);
    }
  }
  return headers;
}

/** One JSON-RPC request to the front, as a 2026-07-28 host sends it: { result } or { error }. */
async function rpc(server, method, params, extraHeaders) {
  requestId += 1;
  const headers = Object.assign({
    "content-type": "application/json",
    accept: "application/json",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
  }, extraHeaders || {});
  if (method === "tools/call") headers["mcp-name"] = headerValue(params.name);
  Object.assign(headers, authorization());
  const body = {
    jsonrpc: "2.0",
    id: requestId,
    method: method,
    params: Object.assign({}, params, { _meta: META }),
  };
  let response;
  try {
    response = await fetch("mcp/" + encodeURIComponent(server), {
      method: "POST",
      headers: headers,
      body: JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
      redirect: "error",
    });
  } catch (error) {
    return { error: { message: "The gateway could not be reached" } };
  }
  let message;
  try {
    message = await response.json();
  } catch (error) {
    return { error: { message: "HTTP " + response.status + ": the answer is not JSON" } };
  }
  if (isObject(own(message, "error"))) return { error: message.error };
  if (isObject(own(message, "result"))) return { result: message.result };
  return { error: { message: "HTTP " + response.status + ": the answer is not a JSON-RPC response" } };
}

function describeError(error) {
  const code = own(error, "code");
  const message = text(own(error, "message")) || "(no message)";
  return Number.isFinite(code) ? "JSON-RPC error " + code + ": " + message : message;
}

/** Each server's origin, from GET /servers: a URL elicitation elsewhere gets a warning. */
const serverOrigins = new Map();

/** The Authorization header of the token typed in, if any. */
function authorization() {
  const token = byId("token").value.trim();
  return token === "" ? {} : { authorization: "Bearer " + token };
}

async function loadServers() {
  const select = byId("server");
  let listing;
  try {
    const response = await fetch("servers", {
      cache: "no-store",
      credentials: "same-origin",
      headers: authorization(),
    });
    if (response.status === 401 || response.status === 403) {
      select.replaceChildren(el("option", { value: "", text: "No servers" }));
      select.disabled = true;
      say("This gateway needs an access token: enter one above");
      return;
    }
    listing = await response.json();
  } catch (error) {
    listing = undefined;
  }
  const found = own(listing, "servers");
  const servers = Array.isArray(found) ? found.filter((s) => typeof own(s, "id") === "string") : [];
  const first = servers.length === 0 ? "No servers" : "Choose a server";
  select.replaceChildren(el("option", { value: "", text: first }));
  for (const server of servers) {
    select.append(el("option", { value: server.id, text: server.id + " (" + text(server.era) + ")" }));
    const origin = own(server, "elicitationOrigin");
    if (typeof origin === "string") serverOrigins.set(server.id, origin);
  }
  select.disabled = servers.length === 0;
  say(listing === undefined ? "The server list could not be loaded" : "Pick a server, then a tool");
}

async function loadTools() {
  const server = byId("server").value;
  const select = byId("tool");
  tools = [];
  pickTool();
  select.disabled = true;
  const waiting = server === "" ? "Pick a server first" : "Loading tools…";
  select.replaceChildren(el("option", { value: "", text: waiting }));
  if (server === "") return;
  say("Loading the tools of " + server + "…");
  const found = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await rpc(server, "tools/list", cursor === undefined ? {} : { cursor: cursor });
    if (byId("server").value !== server) return;
    if (answer.error !== undefined) {
      select.replaceChildren(el("option", { value: "", text: "No tools" }));
      say("Listing the tools failed: " + describeError(answer.error));
      return;
    }
    const listed = own(answer.result, "tools");
    for (const tool of Array.isArray(listed) ? listed : []) {
      if (typeof own(tool, "name") === "string") found.push(tool);
    }
    cursor = own(answer.result, "nextCursor");
    if (typeof cursor !== "string") break;
  }
  tools = found;
  select.replaceChildren(
    el("option", { value: "", text: found.length === 0 ? "No tools" : "Choose a tool" }),
  );
  found.forEach((tool, index) => select.append(el("option", { value: String(index), text: tool.name })));
  select.disabled = found.length === 0;
  say(found.length + (found.length === 1 ? " tool" : " tools") + " on " + server);
}

function selectedTool() {
  const value = byId("tool").value;
  return value === "" ? undefined : tools[Number(value)];
}

function pickTool() {
  const tool = selectedTool();
  byId("tool-description").textContent = text(own(tool, "description"));
  renderArguments(tool);
  byId("call").disabled = tool === undefined;
}
`;
