/**
 * A scripted legacy MCP server (protocol `2025-11-25`, also answers `2025-06-18`) over stdio,
 * hand-written without the SDK, for the stdio transport's and the legacy session's tests.
 *
 * Run: `node --import tsx tests/peers/legacy-stdio-server.ts [scenario]` from the repository root.
 *
 * Scenarios (how the process lives and dies):
 * - `default`: exits with code 0 when its stdin ends;
 * - `roots-at-start`: as `default`, and asks `roots/list` (id 0) when the client sends
 *   `notifications/initialized`, as server-filesystem does;
 * - `linger`: keeps running after its stdin ends, exits on SIGTERM;
 * - `ignore-sigterm`: keeps running after its stdin ends and ignores SIGTERM (only SIGKILL ends it);
 * - `crash-on-start`: writes `crashing on start` to stderr and exits with code 3 at once;
 * - `close-stdin`: closes its stdin, writes `pid <its pid>` and then `stdin closed` to stderr, and
 *   exits with code 3 on SIGTERM (a write to it meanwhile fails with EPIPE).
 *
 * Methods: `initialize` (echoes a supported `protocolVersion`, else answers `2025-11-25`;
 * capabilities `tools`, `logging`), `ping`, `logging/setLevel`, `tools/list`, `tools/call`;
 * others get `-32601`. A tool result is `{ content: [{ type: "text", text: JSON of data }],
 * structuredContent: data }`; an unknown tool gets `-32602`. Server requests use integer ids
 * from 0. A `notifications/cancelled` for a running `sleep` stops it without an answer.
 *
 * Tools (arguments; the data they answer with):
 * - `echo {text}`: `{ text }`;
 * - `env {}`: `{ env }`, this process's whole environment;
 * - `pid {}`: `{ pid }`, this process's id;
 * - `sleep {ms}`: answers `{ slept: ms }` after `ms` milliseconds;
 * - `notify {count, method?}`: sends `count` notifications first (default `notifications/message`
 *   `{ level: "info", logger: "legacy-stdio-server", data: { n } }`, else `method` with `{ n }`),
 *   `n` from 1; `{ sent: count }`;
 * - `progress {steps}`: sends `notifications/progress` `{ progressToken, progress: n, total }` for
 *   n = 1..steps, using the call's `_meta.progressToken`; `{ steps }`;
 * - `stderr {lines}`: writes each line to stderr; `{ written: lines.length }`;
 * - `raw {lines, base64}`: writes each string plus `\n` to stdout as it is (malformed lines,
 *   batches, responses to unknown ids, `\r` endings), or with `base64: true` each line's
 *   base64-decoded bytes (invalid UTF-8); `{ written: lines.length }`;
 * - `flood {bytes}`: writes one line of `bytes` `x` characters, then answers `{ flooded: bytes }`;
 * - `crash {code, stdout}`: writes `stdout` (default none) as it is, with no newline, then exits
 *   with `code` (default 1) without answering;
 * - `orphan {ms}`: starts a grandchild process that inherits stdout and stderr and lives `ms`
 *   milliseconds (default 5000), answers `{ pid }` (the grandchild's), then exits with code 0:
 *   the pipes stay open after the server is gone;
 * - `close_stdout {}`: closes its stdout (file descriptor 1) and never answers; it keeps running and
 *   reading stdin;
 * - `stop_reading {}`: answers `{ reading: false }`, then never reads stdin again (it stays alive
 *   until a signal ends it: its stdin closing goes unnoticed);
 * - `ask {count, method, params, relatedDelayMs, timeoutMs}`: waits `relatedDelayMs` (default 0),
 *   sends `count` (default 1) requests `method` (default `elicitation/create`) at once, with
 *   `params` (default: a small valid one per method; none for `ping`, `roots/list`), waits for
 *   every answer (or `timeoutMs`, when given) and answers `{ answers: [{ id, result } | { id,
 *   error } | { id, timeout: true }] }` in the order sent;
 * - `cancel_after {ms, method, params, reason, waitMs, log}`: sends one request, after `ms`
 *   (default 50), or with `ms: "call cancelled"` once the client has cancelled this call (its
 *   `notifications/cancelled`, as a call past its deadline sends), sends `notifications/cancelled
 *   { requestId, reason }` (with `log: true`, then a log entry `{ cancelled: requestId }`, which
 *   the client reads after it), waits `waitMs` (default 200) for a late answer; `{ requestId,
 *   answer: <the response> | null }`;
 * - `idle_sampling {delayMs, params}`: answers `{ scheduled: true }` first, then after `delayMs`
 *   (default 0) sends `sampling/createMessage`; its answer shows up in `received`;
 * - `received {}`: `{ initialize: <its params> | null, notifications, responses }`, what the
 *   client sent besides requests (responses include late ones).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import process from "node:process";
import { type Message, openWire } from "./_legacy-stdio-wire.ts";

const scenario = process.argv[2] ?? "default";
type Args = Record<string, unknown>;
type Tool = (args: Args, call: Message) => Promise<object | undefined>;

if (scenario === "crash-on-start") {
  process.stderr.write("crashing on start\n");
  process.exit(3);
}
if (scenario === "close-stdin") {
  // The pipe's end goes; /dev/null takes fd 0 (the lowest free one), which Node resets at exit.
  closeSync(0);
  openSync("/dev/null", "r");
  // On a signal, not on a timer: a client that read "stdin closed" late would find the process
  // gone before it wrote, where the test needs a write to the closed stdin first. Heard before
  // it says so: a signal sent the moment it is read must find the handler, not end the process.
  process.on("SIGTERM", () => process.exit(3));
  process.stderr.write(`pid ${process.pid}\nstdin closed\n`);
  setInterval(() => {}, 1 << 30);
  // Nothing more: the wire would read the new fd 0.
  await new Promise<never>(() => {});
}
if (scenario === "ignore-sigterm") process.on("SIGTERM", () => {});
if (scenario !== "default") setInterval(() => {}, 1 << 30);

const DEFAULT_PARAMS: Record<string, object> = {
  "elicitation/create": {
    message: "Please confirm",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  },
  "sampling/createMessage": {
    messages: [{ role: "user", content: { type: "text", text: "Hello" } }],
    maxTokens: 100,
  },
};

const sleeping = new Map<string | number, () => void>();
let initialize: unknown = null;

const wire = openWire(onRequest, (message) => {
  // As server-filesystem does: the roots are asked as the session starts, outside any call.
  if (message.method === "notifications/initialized" && scenario === "roots-at-start") {
    void wire.ask("roots/list", undefined);
  }
  if (message.method !== "notifications/cancelled") return;
  sleeping.get(message.params?.requestId as string | number)?.();
}, () => {
  if (scenario === "default") process.exit(0);
});

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const num = (value: unknown, fallback: number): number => typeof value === "number" ? value : fallback;
const paramsFor = (method: string, params: unknown): object | undefined =>
  typeof params === "object" && params !== null ? params : DEFAULT_PARAMS[method];

const TOOLS: Record<string, Tool> = {
  echo: (args) => Promise.resolve({ text: args.text }),
  env: () => Promise.resolve({ env: { ...process.env } }),
  pid: () => Promise.resolve({ pid: process.pid }),
  sleep: (args, call) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ slept: args.ms }), num(args.ms, 0));
      sleeping.set(call.id as string | number, () => (clearTimeout(timer), resolve(undefined)));
    }),
  notify(args) {
    const count = num(args.count, 1);
    for (let n = 1; n <= count; n++) {
      wire.send(
        typeof args.method === "string" ? { jsonrpc: "2.0", method: args.method, params: { n } } : {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", logger: "legacy-stdio-server", data: { n } },
        },
      );
    }
    return Promise.resolve({ sent: count });
  },
  progress(args, call) {
    const total = num(args.steps, 1);
    const progressToken = (call.params?._meta as Args | undefined)?.progressToken;
    for (let n = 1; n <= total; n++) {
      wire.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken, progress: n, total },
      });
    }
    return Promise.resolve({ steps: total });
  },
  stderr(args) {
    const lines = args.lines as string[];
    for (const line of lines) process.stderr.write(line + "\n");
    return Promise.resolve({ written: lines.length });
  },
  async raw(args) {
    const lines = args.lines as string[];
    for (const line of lines) {
      await wire.writeRaw(args.base64 === true ? Buffer.from(line, "base64") : line);
      await wire.writeRaw("\n");
    }
    return { written: lines.length };
  },
  async flood(args) {
    const bytes = num(args.bytes, 0);
    const block = "x".repeat(65536);
    for (let left = bytes; left > 0; left -= block.length) await wire.writeRaw(block.slice(0, left));
    await wire.writeRaw("\n");
    return { flooded: bytes };
  },
  async crash(args) {
    if (typeof args.stdout === "string") await wire.writeRaw(args.stdout);
    process.exit(num(args.code, 1));
  },
  orphan(args) {
    const holder = spawn(process.execPath, ["-e", `setTimeout(() => {}, ${num(args.ms, 5000)})`], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    setTimeout(() => process.exit(0), 50);
    return Promise.resolve({ pid: holder.pid });
  },
  close_stdout: () => {
    closeSync(1);
    return new Promise(() => {});
  },
  stop_reading: () => {
    // At once, before the answer goes out: with a timer here, a client that wrote the moment it
    // had the answer could be read before the timer ran (seen on Bun under load).
    wire.stopReading();
    return Promise.resolve({ reading: false });
  },
  async ask(args) {
    await delay(num(args.relatedDelayMs, 0));
    const method = typeof args.method === "string" ? args.method : "elicitation/create";
    const asked = Array.from(
      { length: num(args.count, 1) },
      () => wire.ask(method, paramsFor(method, args.params)),
    );
    const timeout = typeof args.timeoutMs === "number"
      ? delay(args.timeoutMs).then(() => undefined)
      : undefined;
    const answers = await Promise.all(asked.map(async ({ id, answer }) => {
      const got = await (timeout === undefined ? answer : Promise.race([answer, timeout]));
      if (got === undefined) return { id, timeout: true };
      return "error" in got ? { id, error: got.error } : { id, result: got.result };
    }));
    return { answers };
  },
  async cancel_after(args, call) {
    const method = typeof args.method === "string" ? args.method : "elicitation/create";
    const cancelled = args.ms === "call cancelled"
      ? new Promise<void>((resolve) => sleeping.set(call.id as string | number, resolve))
      : delay(num(args.ms, 50));
    const { id, answer } = wire.ask(method, paramsFor(method, args.params));
    await cancelled;
    const reason = typeof args.reason === "string" ? args.reason : "no longer needed";
    wire.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } });
    if (args.log === true) {
      const params = { level: "warning", logger: "legacy-stdio-server", data: { cancelled: id } };
      wire.send({ jsonrpc: "2.0", method: "notifications/message", params });
    }
    const late = await Promise.race([answer, delay(num(args.waitMs, 200)).then(() => null)]);
    return { requestId: id, answer: late };
  },
  idle_sampling(args) {
    void delay(num(args.delayMs, 0)).then(() =>
      wire.ask("sampling/createMessage", paramsFor("sampling/createMessage", args.params))
    );
    return Promise.resolve({ scheduled: true });
  },
  received: () => Promise.resolve({ initialize, ...wire.received }),
};

function onRequest(message: Message): void {
  const reply = (body: object): void => wire.send({ jsonrpc: "2.0", id: message.id, ...body });
  switch (message.method) {
    case "initialize": {
      initialize = message.params ?? null;
      const asked = message.params?.protocolVersion;
      const protocolVersion = asked === "2025-06-18" ? asked : "2025-11-25";
      return reply({
        result: {
          protocolVersion,
          capabilities: { tools: { listChanged: false }, logging: {} },
          serverInfo: { name: "legacy-stdio-server", version: "1.0.0" },
        },
      });
    }
    case "ping":
    case "logging/setLevel":
      return reply({ result: {} });
    case "tools/list":
      return reply({
        result: { tools: Object.keys(TOOLS).map((name) => ({ name, inputSchema: { type: "object" } })) },
      });
    case "tools/call":
      return void callTool(message, reply);
    default:
      return reply({ error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
}

async function callTool(message: Message, reply: (body: object) => void): Promise<void> {
  const name = String(message.params?.name);
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (tool === undefined) return reply({ error: { code: -32602, message: `Unknown tool: ${name}` } });
  try {
    const data = await tool((message.params?.arguments ?? {}) as Args, message);
    if (data === undefined) return;
    reply({ result: { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data } });
  } catch (error) {
    reply({ error: { code: -32603, message: `Tool ${name} failed: ${(error as Error).message}` } });
  } finally {
    sleeping.delete(message.id as string | number);
  }
}
