/**
 * A modern-era MCP peer: speaks `2026-07-28` only (`createMcpHandler(..., { legacy: "reject" })`
 * from `@modelcontextprotocol/server` 2.4.0), over real HTTP on 127.0.0.1, behind a small
 * `node:http` adapter. Tools, resource and prompt: `_modern-tools.ts`; the hand-built tasks
 * extension for `slow_task`: `_modern-tasks.ts` (with `--conformance-fixtures`, the suite's task
 * fixtures of `_conformance-tasks.ts` instead).
 *
 * Run it with Node and tsx: `node --import tsx tests/peers/modern-server.ts [port] [--watch-stdin]
 * [--conformance-fixtures]` (default port: a free one; the last flag serves the conformance
 * suite's fixtures of `_conformance-tools.ts` instead of the peer's own tools). Once listening it
 * prints one line to stdout:
 * `MODERN_PEER_URL http://127.0.0.1:<port>/mcp`. It exits on SIGTERM/SIGINT and, with
 * `--watch-stdin`, when its stdin closes (so a spawned peer never outlives its parent).
 *
 * HTTP surface:
 * - `POST /mcp`: the MCP endpoint;
 * - `GET /__requests`: every request received on `/mcp` so far, oldest first, as JSON
 *   `[{ method, path, headers, body, status }]` (`headers` lower-cased, `body` the parsed JSON or
 *   `null` if the body was not JSON, `status` the HTTP status answered);
 * - `DELETE /__requests`: forgets them (answers 204).
 *
 * @module
 */
import { readBody } from "../_support/http-body.ts";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { createPeerCodec } from "./_modern-requests.ts";
import { createModernServer } from "./_modern-tools.ts";
import { createConformanceServer } from "./_conformance-tools.ts";
import { createTaskLayer, type TaskReply } from "./_modern-tasks.ts";
import { createConformanceTaskLayer } from "./_conformance-tasks.ts";
import type { RecordedRequest } from "../_support/modern-peer.ts";

const args = process.argv.slice(2);
const codec = createPeerCodec();
const conformance = args.includes("--conformance-fixtures");
const tasks = conformance ? createConformanceTaskLayer() : createTaskLayer();
const fixtures = conformance ? createConformanceServer : createModernServer;
const mcp = createMcpHandler(() => fixtures(codec), {
  legacy: "reject",
  onerror: (e) => process.stderr.write(`modern-server: ${e.message}\n`),
});
const recorded: RecordedRequest[] = [];

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return headers;
}

async function answerMcp(req: IncomingMessage, body: Uint8Array<ArrayBuffer>, url: URL): Promise<Response> {
  const headers = headersOf(req);
  const json = parseJson(body) as Record<string, unknown> | null;
  const reply: TaskReply | undefined = req.method === "POST" && json !== null && typeof json === "object"
    ? tasks.handle(json, headers)
    : undefined;
  if (reply !== undefined) {
    return Response.json(reply.body, { status: reply.status });
  }
  const init: RequestInit = { method: req.method ?? "GET", headers };
  if (body.byteLength > 0) init.body = body;
  return await mcp.fetch(new Request(url, init));
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => headers[name] = value);
  res.writeHead(response.status, headers);
  if (response.body !== null) {
    for await (const chunk of response.body) res.write(chunk);
  }
  res.end();
}

async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
  const body = await readBody(req);
  if (url.pathname === "/__requests") {
    if (req.method === "DELETE") recorded.length = 0;
    return send(res, req.method === "DELETE" ? new Response(null, { status: 204 }) : Response.json(recorded));
  }
  if (url.pathname !== "/mcp") return send(res, new Response("Not found", { status: 404 }));
  const response = await answerMcp(req, body, url);
  const headers: Record<string, string> = {};
  for (const [name, value] of headersOf(req)) headers[name] = value;
  recorded.push({
    method: req.method ?? "",
    path: url.pathname,
    headers,
    body: parseJson(body),
    status: response.status,
  });
  await send(res, response);
}

const server = createServer((req, res) => {
  onRequest(req, res).catch((e: unknown) => {
    process.stderr.write(`modern-server: ${e instanceof Error ? e.stack : String(e)}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});

function shutdown(): void {
  server.close();
  server.closeAllConnections();
  void mcp.close().finally(() => process.exit(0));
}

process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
if (args.includes("--watch-stdin")) {
  process.stdin.on("end", shutdown);
  process.stdin.resume();
}
server.listen(Number(args.find((a) => /^\d+$/.test(a)) ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`MODERN_PEER_URL http://127.0.0.1:${port}/mcp\n`);
});
