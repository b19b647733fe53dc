/**
 * A hostile MCP server over real loopback HTTP, for the hardening tests: each tool of
 * `_hostile-replies.ts` breaks one limit, in either era.
 *
 * Run: `node --import tsx tests/hardening/_hostile-http-server.ts --watch-stdin`. Once listening
 * it prints `HOSTILE_HTTP_URL http://127.0.0.1:<port>`; it exits when its stdin closes.
 *
 * - `POST /modern`: the modern era (2026-07-28): `tools/list` and `tools/call`.
 * - `POST|GET|DELETE /legacy`: the legacy era (2025-11-25): `initialize` (session `s1`),
 *   notifications (202), `tools/list`, `tools/call`; `GET` opens a quiet listen stream.
 * - `/legacy-bad-get`: the same, but its `GET` listen stream sends one endless event.
 * - `GET /__wait?entry=<text>`: answers once the log holds that entry (at once if it does).
 * - `GET /__log`: the log so far, a JSON list of strings.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import { answerTool, json, TOOLS, writeForever } from "./_hostile-replies.ts";

const entries: string[] = [];
const waiters: Array<() => void> = [];
const log = (entry: string): void => {
  entries.push(entry);
  for (const wake of waiters.splice(0)) wake();
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function waitFor(entry: string, res: ServerResponse): void {
  if (entries.includes(entry)) return json(res, entries);
  waiters.push(() => waitFor(entry, res));
}

async function answerPost(req: IncomingMessage, res: ServerResponse, era: "modern" | "legacy") {
  const message = JSON.parse(await readBody(req)) as {
    id?: unknown;
    method: string;
    params?: Record<string, unknown>;
  };
  const { id, method, params = {} } = message;
  if (id === undefined || !("method" in message)) {
    res.writeHead(202).end();
    return;
  }
  const tools = TOOLS.map((name) => ({ name, inputSchema: { type: "object" } }));
  switch (method) {
    case "initialize":
      res.setHeader("mcp-session-id", "s1");
      return json(res, {
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "hostile", version: "1.0.0" },
        },
      });
    case "tools/list":
      return json(res, {
        jsonrpc: "2.0",
        id,
        result: era === "modern"
          ? { resultType: "complete", ttlMs: 0, cacheScope: "private", tools }
          : { tools },
      });
    case "tools/call":
      log(`${era} tools/call ${String(params.name)}`);
      return answerTool(res, { id, name: String(params.name), params, era }, log);
    default:
      return json(res, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
  }
}

function answerGet(res: ServerResponse, path: string): void {
  log(`GET ${path}`);
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (path === "/legacy-bad-get") {
    const head = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`;
    void writeForever(res, head, () => "b".repeat(64 * 1024), `GET ${path}`, log);
    return;
  }
  res.write(": open\n\n");
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const path = url.pathname;
  const legacy = path === "/legacy" || path === "/legacy-bad-get";
  if (path === "/__log") return json(res, entries);
  if (path === "/__wait") return waitFor(url.searchParams.get("entry") ?? "", res);
  if (req.method === "POST" && (path === "/modern" || legacy)) {
    answerPost(req, res, legacy ? "legacy" : "modern").catch((error: Error) => {
      process.stderr.write(`hostile-http-server: ${error.message}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
    return;
  }
  if (req.method === "GET" && legacy) return answerGet(res, path);
  if (req.method === "DELETE" && legacy) return void res.writeHead(200).end();
  res.writeHead(404).end();
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`HOSTILE_HTTP_URL http://127.0.0.1:${port}\n`);
});
if (process.argv.includes("--watch-stdin")) {
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));
