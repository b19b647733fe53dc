/**
 * A hostile legacy MCP server (`2025-11-25`) over Streamable HTTP on 127.0.0.1, hand-written on
 * `node:http`: sessions by `Mcp-Session-Id` (an unknown one gets 404), every `tools/call` answered
 * on an SSE stream that carries the tool's server requests and notifications, the client's answers
 * taken as POSTs (202). Besides the shared tools of `hostile-legacy-tools.ts` it has:
 *
 * - `malformed`: an SSE event whose data is not JSON;
 * - `die {code}`: one notification, then the process exits with `code` (default 9) mid-stream;
 * - `reset_ids`: `retry: 10`, an event with an id (a ping), then, once the ping is answered, a reset
 *   connection; a GET with that `Last-Event-ID` gets the response; `reset_no_ids`: an event without
 *   id, then a reset;
 * - `slow`: the SSE head, then one byte every 100 ms, never finishing.
 *
 * Run: `node --import tsx tests/_support/hostile-legacy-http-server.ts [--port=<n>] [--watch-stdin]`;
 * once it listens it prints `HOSTILE_URL http://127.0.0.1:<port>/mcp`. `GET /__log` answers
 * {@linkcode HostileLegacyLog}; `DELETE /__log` forgets the requests.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import {
  AnswerBook,
  type LegacyTool,
  legacyTools,
  type Message,
  type ToolWire,
} from "./hostile-legacy-tools.ts";

/** `GET /__log`: the requests received (method, JSON-RPC method or kind, session) and connection counts. */
export interface HostileLegacyLog {
  readonly requests: Array<{ readonly http: string; readonly rpc: string; readonly session: string | null }>;
  /** TCP connections accepted since start. */
  readonly connections: number;
  /** The most connections open at once since start. */
  readonly peakConnections: number;
}

const log: HostileLegacyLog["requests"] = [];
const sessions = new Set<string>();
const resumable = new Map<string, (res: ServerResponse) => void>();
const book = new AnswerBook();
let open = 0;
let connections = 0;
let peakConnections = 0;
let streams = 0;

const sseHead = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const event = (message: unknown, id?: string) =>
  `${id === undefined ? "" : `id: ${id}\n`}data: ${
    typeof message === "string" ? message : JSON.stringify(message)
  }\n\n`;
const note = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hostile" } };

/** The SSE stream of one call, as the tools' wire. */
function streamWire(res: ServerResponse): ToolWire {
  return { send: (...messages) => void res.write(messages.map((message) => event(message)).join("")) };
}

const httpTools: Record<string, (res: ServerResponse, rpc: Message) => void> = {
  malformed: (res) => (sseHead(res), res.write(event("{nope"))),
  die: (res, rpc) => {
    sseHead(res);
    const code = (rpc.params?.arguments as { code?: unknown } | undefined)?.code;
    res.write(event(note), () => process.exit(typeof code === "number" ? code : 9));
  },
  reset_ids: (res, rpc) => {
    const key = `s${++streams}`;
    resumable.set(`${key}-1`, (resumed) => {
      sseHead(resumed);
      resumed.end(
        event(
          { jsonrpc: "2.0", id: rpc.id, result: { content: [], structuredContent: { resumed: key } } },
          `${key}-2`,
        ),
      );
    });
    sseHead(res);
    res.write("retry: 10\n\n");
    // A ping in the event with the id: once the client has answered it, it has read the id, so
    // the reset cannot swallow the event.
    const wire: ToolWire = {
      send: (...messages) => void res.write(messages.map((m) => event(m, `${key}-1`)).join("")),
    };
    void book.ask(wire, "ping", {})[0]?.then(() => res.socket?.resetAndDestroy());
  },
  reset_no_ids: (res) => (sseHead(res), res.write(event(note), () => res.socket?.resetAndDestroy())),
  slow: (res) => {
    sseHead(res);
    const timer = setInterval(() => res.write(":"), 100);
    res.on("close", () => clearInterval(timer));
  },
};
const tools: Record<string, LegacyTool> = legacyTools(book);
const toolNames = [...Object.keys(tools), ...Object.keys(httpTools)];

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function callTool(res: ServerResponse, rpc: Message): void {
  const name = String(rpc.params?.name);
  const special = Object.hasOwn(httpTools, name) ? httpTools[name] : undefined;
  if (special !== undefined) return special(res, rpc);
  const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (tool === undefined) {
    return json(res, 200, { jsonrpc: "2.0", id: rpc.id, error: { code: -32602, message: "No tool" } });
  }
  sseHead(res);
  void tool((rpc.params?.arguments ?? {}) as Record<string, unknown>, streamWire(res)).then((data) =>
    res.end(event({ jsonrpc: "2.0", id: rpc.id, result: { content: [], structuredContent: data } }))
  );
}

function onPost(res: ServerResponse, rpc: Message, session: string | null): void {
  if (typeof rpc.method !== "string" || rpc.id === undefined) {
    book.receive(rpc);
    return void res.writeHead(202).end();
  }
  if (rpc.method === "initialize") {
    const id = `hs-${process.pid}-${sessions.size + 1}`;
    sessions.add(id);
    const result = {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {}, logging: {} },
      serverInfo: { name: "hostile-legacy-http", version: "1.0.0" },
    };
    return json(res, 200, { jsonrpc: "2.0", id: rpc.id, result }, { "mcp-session-id": id });
  }
  if (session === null || !sessions.has(session)) return void res.writeHead(404).end("unknown session");
  if (rpc.method === "tools/call") return callTool(res, rpc);
  if (rpc.method === "tools/list") {
    const list = toolNames.map((name) => ({ name, inputSchema: { type: "object" } }));
    return json(res, 200, { jsonrpc: "2.0", id: rpc.id, result: { tools: list } });
  }
  json(res, 200, { jsonrpc: "2.0", id: rpc.id, result: {} });
}

async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path === "/__log") {
    if (req.method === "DELETE") log.length = 0;
    return json(res, 200, { requests: log, connections, peakConnections } satisfies HostileLegacyLog);
  }
  const session = req.headers["mcp-session-id"];
  const sessionId = typeof session === "string" ? session : null;
  if (req.method === "GET") {
    const resume = resumable.get(String(req.headers["last-event-id"]));
    log.push({ http: "GET", rpc: resume === undefined ? "listen" : "resume", session: sessionId });
    return resume === undefined ? void res.writeHead(405).end() : resume(res);
  }
  if (req.method === "DELETE") {
    log.push({ http: "DELETE", rpc: "", session: sessionId });
    return void (sessionId !== null && sessions.delete(sessionId), res.writeHead(200).end());
  }
  const rpc = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message;
  const rpcName = typeof rpc.method === "string" ? rpc.method : "response";
  log.push({
    http: "POST",
    rpc: rpcName === "tools/call" ? `tools/call ${rpc.params?.name}` : rpcName,
    session: sessionId,
  });
  onPost(res, rpc, sessionId);
}

const server = createServer((req, res) => void onRequest(req, res).catch(() => res.socket?.destroy()));
server.on("connection", (socket) => {
  connections++;
  peakConnections = Math.max(peakConnections, ++open);
  socket.once("close", () => open--);
});
const shutdown = () => (server.closeAllConnections(), server.close(), process.exit(0));
process.on("SIGTERM", shutdown);
if (process.argv.includes("--watch-stdin")) process.stdin.on("end", shutdown).resume();
const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice(7) ?? 0);
server.listen(port, "127.0.0.1", 1024, () => {
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`HOSTILE_URL http://127.0.0.1:${bound}/mcp\n`);
});
