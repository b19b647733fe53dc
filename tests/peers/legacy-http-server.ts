/**
 * A scripted legacy-era MCP server over Streamable HTTP, protocol 2025-11-25 (2025-06-18 is
 * accepted too), hand-written on `node:http` with no SDK, so tests control every byte. Tools:
 * `_legacy-tools.ts`; SSE streams with resumption: `_legacy-sse.ts`.
 *
 * Run it with Node and tsx: `node --import tsx tests/peers/legacy-http-server.ts [--watch-stdin]`.
 * Once listening it prints one line to stdout:
 * `LEGACY_HTTP_URL http://127.0.0.1:<port>/mcp http://127.0.0.1:<other port>` (the second is another
 * origin served by the same process, for redirect tests). It exits on SIGTERM/SIGINT and, with
 * `--watch-stdin`, when its stdin closes.
 *
 * MCP behaviour: `initialize` (no session header) opens a session and answers on SSE (a priming
 * event, then the result) with `Mcp-Session-Id`; every later request needs that header (400
 * without it, 404 with an unknown one, body `{"jsonrpc":"2.0","error":{"code":-32001,...},"id":null}`
 * as the TypeScript SDK sends) and `MCP-Protocol-Version` equal to the negotiated version (400).
 * Notifications and answers to server requests get 202. `GET /mcp` opens the standalone SSE
 * stream (one at a time, 409 otherwise; 405 when configured), or with `Last-Event-ID` resumes the
 * stream that sent that event (400 for an unknown id). `DELETE /mcp` ends the session (200, or 405
 * when configured). `/moved-here` answers 307 to `/mcp`; `/moved-away` answers 307 to the other
 * origin's `/mcp`.
 *
 * Tools (`_legacy-tools.ts`), reusable by session-level tests:
 * - `echo {text}`: a JSON answer;
 * - `ask {count = 1, method = "roots/list", params = {}}`: on the call's SSE stream, a priming
 *   event, a `notifications/message`, then `count` server requests sent at once (ids `"ask-<n>"`,
 *   numbered per session); once every answer is POSTed back, the result
 *   `{content: [{type: "text", text: JSON.stringify(answers)}], structuredContent: {answers}}`
 *   where `answers` are the client's response messages in request order;
 * - `ask_on_get {count, method, params}`: the same on the standalone GET stream (an `isError`
 *   result when none is open), the result as JSON;
 * - `poll {retryMs = 500, closes = 1, stall = false, ids = true}`: primes the call's stream with
 *   `retry: retryMs` and closes the connection; each resumption sends a notification and closes
 *   again until `closes` is used up, then sends the result `{resumes}`. `stall` closes every
 *   resumption at once with no event; `ids: false` sends events without ids (not resumable);
 * - `expire_session`: answers, then forgets the session (the next request gets 404).
 *
 * Test surface: `GET /__log` lists every request to the MCP paths as JSON (`LoggedRequest` in
 * `tests/_support/legacy-http-peer.ts`: seq, time, listener, method, path, lower-cased headers,
 * parsed body, status, and for a resuming GET `resumed: { stream, waitedMs }`, the time since the
 * server closed that stream); `DELETE /__log` clears it; `POST /__config` merges a `PeerConfig`.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import process from "node:process";
import {
  config,
  type Entry,
  get,
  jsonReply,
  type Message,
  post,
  remove,
  rpcError,
} from "./_legacy-endpoint.ts";

const log: { entry: Entry; res: ServerResponse }[] = [];
let seq = 0;
let otherOrigin = "";

async function readText(req: IncomingMessage): Promise<string> {
  let text = "";
  req.setEncoding("utf8");
  for await (const chunk of req) text += chunk as string;
  return text;
}

function parse(text: string): Message | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Message : null;
  } catch {
    return null;
  }
}

async function onRequest(
  req: IncomingMessage,
  res: ServerResponse,
  listener: "main" | "other",
): Promise<void> {
  const { pathname } = new URL(req.url ?? "/", "http://127.0.0.1");
  const text = await readText(req);
  if (pathname === "/__log") {
    if (req.method === "DELETE") log.length = 0;
    const entries = log.map(({ entry, res }) => ({ ...entry, status: res.headersSent ? res.statusCode : 0 }));
    return jsonReply(res, 200, req.method === "DELETE" ? {} : entries);
  }
  if (pathname === "/__config") {
    for (const [key, value] of Object.entries(JSON.parse(text) as Record<string, unknown>)) {
      (config as Record<string, unknown>)[key] = value ?? undefined;
    }
    return jsonReply(res, 200, {});
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const entry: Entry = {
    seq: ++seq,
    time: performance.now(),
    listener,
    method: req.method ?? "",
    path: pathname,
    headers,
    body: parse(text),
    status: 0,
  };
  log.push({ entry, res });
  if (pathname === "/moved-here" || pathname === "/moved-away") {
    res.writeHead(307, { location: pathname === "/moved-here" ? "/mcp" : `${otherOrigin}/mcp` });
    return void res.end();
  }
  if (pathname !== "/mcp") return jsonReply(res, 404, undefined);
  if (req.method === "GET") return get(req, res, entry);
  if (req.method === "DELETE") return remove(req, res);
  if (req.method !== "POST") return jsonReply(res, 405, undefined);
  const message = parse(text);
  if (message === null) return rpcError(res, 400, -32700, "Parse error: the body is not a JSON object");
  await post(req, res, message);
}

function serve(listener: "main" | "other"): Server {
  return createServer((req, res) => {
    onRequest(req, res, listener).catch((e: unknown) => {
      process.stderr.write(`legacy-http-server: ${e instanceof Error ? e.stack : String(e)}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`);
    });
  });
}

const servers = [serve("main"), serve("other")] as const;
function shutdown(): void {
  for (const server of servers) {
    server.close();
    server.closeAllConnections();
  }
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
if (process.argv.includes("--watch-stdin")) {
  process.stdin.on("end", shutdown);
  process.stdin.resume();
}
const [main, other] = await Promise.all(servers.map(listen));
otherOrigin = other ?? "";
process.stdout.write(`LEGACY_HTTP_URL ${main}/mcp ${otherOrigin}\n`);
