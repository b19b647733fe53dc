/**
 * A hostile modern-era (`2026-07-28`) MCP server over real HTTP on 127.0.0.1, hand-written on
 * `node:http` so it can break the protocol in ways no SDK would: garbage bodies, endless
 * `input_required`, duplicate and `__proto__` keys, answers for the wrong id, connections reset
 * mid-stream, and bytes trickled one at a time. Its well-behaved tools (`echo`, `ask_roots`,
 * `ask_form`, `ask_sample`, `chatty`) also serve the soak (`scripts/soak.ts`).
 *
 * Run: `node --import tsx tests/_support/hostile-modern-server.ts [--port=<n>] [--watch-stdin]`. Once it listens
 * it prints `HOSTILE_URL http://127.0.0.1:<port>/mcp`. `GET /__log` answers what it received
 * (see {@linkcode HostileModernLog}), `DELETE /__log` forgets it.
 *
 * Besides `server/discover` and `tools/list`, its tools (the `tools/call` `name`; the n-th call of
 * a tool counts from 1):
 * - `echo`: complete, `structuredContent` = the arguments;
 * - `garbage_json`, `garbage_sse`: a body that is not JSON, as JSON or as one SSE event;
 * - `forever`: `input_required` for `roots/list` every round, `requestState` `round-<k>`;
 * - `proto_result`: a complete result with duplicate keys and `__proto__`/`constructor` keys;
 * - `proto_inputs`: `input_required` whose `inputRequests` has keys `__proto__`, `constructor`
 *   and `dup` (twice); the retry completes with `structuredContent.inputResponses` as received;
 * - `wrong_id_json`, `wrong_id_sse`: the result for id + 1000; `string_id`: for the id as a string;
 * - `reset_once`: the first call gets an SSE head and one notification, then a reset connection;
 *   later calls complete; `reset_always`: every call is reset so;
 * - `slow_json`, `slow_sse`: the head, then one byte every 100 ms, never finishing;
 * - `ask_roots`, `ask_form`, `ask_sample`: one round of input (roots, a form, sampling), then
 *   complete with the answer; `chatty {logs}`: an SSE answer with `logs` log notifications first.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Buffer } from "node:buffer";
import process from "node:process";

/** What the server saw of one POST to `/mcp`. */
export interface HostileModernEntry {
  readonly id: unknown;
  readonly method: string;
  readonly tool: string | null;
  readonly requestState: unknown;
  /** The keys of `params.inputResponses`, as sent; `null` when absent. */
  readonly inputResponseKeys: string[] | null;
  /** `true` once the client closed the connection before the answer was complete. */
  closedEarly: boolean;
}

/** `GET /__log`: every POST in arrival order. */
export type HostileModernLog = HostileModernEntry[];

type Rpc = { id?: number | string; method?: string; params?: Record<string, unknown> };
type Tool = (rpc: Rpc, res: ServerResponse, n: number, entry: HostileModernEntry) => void;

const log: HostileModernEntry[] = [];
const calls = new Map<string, number>();
const COMPLETE = '"resultType":"complete"';

const head = (res: ServerResponse, type: string): void => void res.writeHead(200, { "content-type": type });
const rawJson = (
  res: ServerResponse,
  text: string,
): void => (head(res, "application/json"), void res.end(text));
const reply = (res: ServerResponse, rpc: Rpc, result: object): void =>
  rawJson(res, JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result }));
const event = (message: unknown) =>
  `data: ${typeof message === "string" ? message : JSON.stringify(message)}\n\n`;
const text = (value: string) => ({ resultType: "complete", content: [{ type: "text", text: value }] });
const note = (n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", logger: "hostile", data: `note ${n}` },
});

function trickle(res: ServerResponse, type: string, body: string): void {
  head(res, type);
  let at = 0;
  const timer = setInterval(() => res.write(body[at++ % body.length] ?? " "), 100);
  res.on("close", () => clearInterval(timer));
}

function reset(res: ServerResponse): void {
  head(res, "text/event-stream");
  res.write(event(note(1)), () => res.socket?.resetAndDestroy());
}

function oneRound(key: string, request: object, done: (answer: unknown) => object): Tool {
  return (rpc, res) => {
    const answers = rpc.params?.inputResponses as Record<string, unknown> | undefined;
    if (answers === undefined || !Object.hasOwn(answers, key)) {
      return reply(res, rpc, {
        resultType: "input_required",
        inputRequests: { [key]: request },
        requestState: key,
      });
    }
    reply(res, rpc, done(answers[key]));
  };
}

const FORM = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
};
const SAMPLE = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 99999 },
};

const TOOLS: Record<string, Tool> = {
  echo: (rpc, res) => reply(res, rpc, { ...text("echo"), structuredContent: rpc.params?.arguments ?? {} }),
  garbage_json: (_rpc, res) => rawJson(res, '{"jsonrpc":"2.0","id":1,"result":{oops}}'),
  garbage_sse: (_rpc, res) => (head(res, "text/event-stream"), res.end(event('{"jsonrpc":"2.0",'))),
  forever: (rpc, res) => {
    const k = Number(String(rpc.params?.requestState ?? "round-0").slice(6)) + 1;
    const inputRequests = { roots: { method: "roots/list" } };
    reply(res, rpc, { resultType: "input_required", inputRequests, requestState: `round-${k}` });
  },
  proto_result: (rpc, res) =>
    rawJson(
      res,
      `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{${COMPLETE},` +
        `"content":[{"type":"text","text":"first"}],"content":[{"type":"text","text":"second"}],` +
        `"structuredContent":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},` +
        `"n":1,"n":2},"_meta":{"__proto__":{"polluted":"yes"}},"__proto__":{"polluted":"yes"}}}`,
    ),
  proto_inputs: (rpc, res) => {
    const answers = rpc.params?.inputResponses;
    if (answers !== undefined) {
      return reply(res, rpc, { ...text("done"), structuredContent: { inputResponses: answers } });
    }
    const roots = '{"method":"roots/list","params":{"__proto__":{"polluted":"yes"}}}';
    rawJson(
      res,
      `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{"resultType":"input_required",` +
        `"inputRequests":{"__proto__":${roots},"constructor":${roots},"dup":${JSON.stringify(FORM)},` +
        `"dup":${roots}},"requestState":"proto"}}`,
    );
  },
  wrong_id_json: (rpc, res) =>
    rawJson(res, JSON.stringify({ jsonrpc: "2.0", id: Number(rpc.id) + 1000, result: text("wrong") })),
  wrong_id_sse: (rpc, res) => {
    head(res, "text/event-stream");
    res.end(event(note(1)) + event({ jsonrpc: "2.0", id: Number(rpc.id) + 1000, result: text("wrong") }));
  },
  string_id: (rpc, res) =>
    rawJson(res, JSON.stringify({ jsonrpc: "2.0", id: String(rpc.id), result: text("str") })),
  reset_once: (rpc, res, n) => n === 1 ? reset(res) : reply(res, rpc, text(`call ${n}`)),
  reset_always: (_rpc, res) => reset(res),
  slow_json: (rpc, res) =>
    trickle(res, "application/json", JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: {} })),
  slow_sse: (_rpc, res) => trickle(res, "text/event-stream", event(note(1))),
  ask_roots: oneRound(
    "roots",
    { method: "roots/list" },
    (answer) => ({ ...text("roots"), structuredContent: answer as object }),
  ),
  ask_form: oneRound("form", FORM, (answer) => ({ ...text("form"), structuredContent: answer as object })),
  ask_sample: oneRound(
    "llm",
    SAMPLE,
    (answer) => ({ ...text("sample"), structuredContent: answer as object }),
  ),
  chatty: (rpc, res) => {
    head(res, "text/event-stream");
    const logs = Number((rpc.params?.arguments as { logs?: unknown } | undefined)?.logs ?? 10);
    let body = "";
    for (let n = 1; n <= logs; n++) body += event(note(n));
    res.end(body + event({ jsonrpc: "2.0", id: rpc.id, result: text(`chatted ${logs}`) }));
  },
};

function answer(rpc: Rpc, res: ServerResponse, entry: HostileModernEntry): void {
  if (rpc.method === "server/discover") {
    return reply(res, rpc, {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "private",
    });
  }
  if (rpc.method === "tools/list") {
    const tools = Object.keys(TOOLS).map((name) => ({ name, inputSchema: { type: "object" } }));
    return reply(res, rpc, { resultType: "complete", tools, ttlMs: 3_600_000, cacheScope: "private" });
  }
  const tool = entry.tool === null || !Object.hasOwn(TOOLS, entry.tool) ? undefined : TOOLS[entry.tool];
  if (rpc.method !== "tools/call" || tool === undefined) {
    res.writeHead(404, { "content-type": "application/json" });
    return void res.end(
      JSON.stringify({ jsonrpc: "2.0", id: rpc.id, error: { code: -32601, message: "Nope" } }),
    );
  }
  const n = (calls.get(entry.tool as string) ?? 0) + 1;
  calls.set(entry.tool as string, n);
  tool(rpc, res, n, entry);
}

async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path === "/__log") {
    if (req.method === "DELETE") log.length = 0;
    return rawJson(res, JSON.stringify(req.method === "DELETE" ? [] : log));
  }
  const rpc = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Rpc;
  const responses = rpc.params?.inputResponses;
  const entry: HostileModernEntry = {
    id: rpc.id,
    method: String(rpc.method),
    tool: typeof rpc.params?.name === "string" ? rpc.params.name : null,
    requestState: rpc.params?.requestState ?? null,
    inputResponseKeys: typeof responses === "object" && responses !== null ? Object.keys(responses) : null,
    closedEarly: false,
  };
  log.push(entry);
  res.on("close", () => entry.closedEarly = !res.writableFinished);
  answer(rpc, res, entry);
}

const server = createServer((req, res) => void onRequest(req, res).catch(() => res.socket?.destroy()));
const shutdown = () => (server.closeAllConnections(), server.close(), process.exit(0));
process.on("SIGTERM", shutdown);
if (process.argv.includes("--watch-stdin")) process.stdin.on("end", shutdown).resume();
const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice(7) ?? 0);
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`HOSTILE_URL http://127.0.0.1:${bound}/mcp\n`);
});
