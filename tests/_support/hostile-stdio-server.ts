/**
 * A hostile legacy MCP server (`2025-11-25`) over stdio, hand-written: newline-delimited
 * JSON-RPC on stdin and stdout. Besides the shared tools of `hostile-legacy-tools.ts` (`echo`,
 * `pid`, `flood`, `noise`, `unknown_cancel`, `stray_responses`, `received`) it has:
 *
 * - `malformed`: writes lines that are not JSON-RPC messages (not JSON, a batch, invalid UTF-8,
 *   a bad `jsonrpc`, a method that is not a string, CR line ends, a blank line), then answers;
 * - `capabilities`: answers `{ declared }`, the capabilities the client declared in `initialize`;
 * - `die {code}`: writes half a message with no newline, then exits with `code` (default 7);
 * - `stop_reading`: answers `{ reading: false }`, then never reads stdin again (it stays alive);
 * - `progress`: writes a `notifications/progress` for the call's token whose `message` carries a
 *   terminal escape, a bidi override and a newline (`HOSTILE_PROGRESS`), then answers `{ progress: 1 }`;
 * - `progress_and_logs`: writes `progressAndLogs()` for the call's token in one write, then answers
 *   `{ sent: 4 }`.
 *
 * Run: `node --import tsx tests/_support/hostile-stdio-server.ts`; it exits when its stdin ends.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { AnswerBook, legacyTools, type Message, type ToolWire } from "./hostile-legacy-tools.ts";
import { HOSTILE_PROGRESS } from "./throwing-progress.ts";
import { progressAndLogs } from "./delivery-order.ts";

const write = (text: string | Uint8Array): Promise<void> =>
  new Promise((resolve) => process.stdout.write(text, () => resolve()));
const wire: ToolWire = {
  send: (...messages) => void write(messages.map((message) => JSON.stringify(message) + "\n").join("")),
};
const book = new AnswerBook();

const tools = {
  ...legacyTools(book),
  async malformed() {
    await write(
      [
        "{not json",
        "[1,2]",
        '{"jsonrpc":"1.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","method":123}',
        '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
        "",
        '{"jsonrpc":"2.0","method":"notifications/hostile/crlf"}\r',
      ].join("\n") + "\n",
    );
    await write(Buffer.concat([Buffer.from([0xff, 0xfe, 0x7b]), Buffer.from("\n")]));
    return { malformed: 8 };
  },
  capabilities: () => Promise.resolve({ declared }),
  async die(args: Record<string, unknown>) {
    await write('{"jsonrpc":"2.0","id":');
    process.exit(typeof args.code === "number" ? args.code : 7);
  },
  stop_reading() {
    // At once, before the answer goes out: a client that calls again the moment it has the
    // answer must find stdin no longer read (a timer here let a fast client's next call in).
    process.stdin.off("data", onData);
    process.stdin.pause();
    setInterval(() => {}, 1 << 30);
    return Promise.resolve({ reading: false });
  },
  progress(_args: Record<string, unknown>, wire: ToolWire, meta: Record<string, unknown>) {
    wire.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: meta.progressToken, progress: 1, message: HOSTILE_PROGRESS },
    });
    return Promise.resolve({ progress: 1 });
  },
  progress_and_logs(_args: Record<string, unknown>, wire: ToolWire, meta: Record<string, unknown>) {
    wire.send(...progressAndLogs(meta.progressToken));
    return Promise.resolve({ sent: 4 });
  },
} as Record<
  string,
  (args: Record<string, unknown>, wire: ToolWire, meta: Record<string, unknown>) => Promise<object>
>;

/** What the client declared in `initialize`. */
let declared: unknown;

function onRequest(message: Message): void {
  const reply = (body: object): void => wire.send({ jsonrpc: "2.0", id: message.id, ...body });
  switch (message.method) {
    case "initialize":
      declared = message.params?.capabilities;
      return reply({
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: "hostile-stdio", version: "1.0.0" },
        },
      });
    case "ping":
    case "logging/setLevel":
      return reply({ result: {} });
    case "tools/list":
      return reply({
        result: { tools: Object.keys(tools).map((name) => ({ name, inputSchema: { type: "object" } })) },
      });
    case "tools/call": {
      const name = String(message.params?.name);
      const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
      if (tool === undefined) return reply({ error: { code: -32602, message: `Unknown tool: ${name}` } });
      const meta = (message.params?._meta ?? {}) as Record<string, unknown>;
      void tool((message.params?.arguments ?? {}) as Record<string, unknown>, wire, meta).then((data) =>
        reply({ result: { content: [{ type: "text", text: "done" }], structuredContent: data } })
      );
      return;
    }
    default:
      return reply({ error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
}

let buffer = "";
function onData(chunk: string): void {
  buffer += chunk;
  for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    if (line.trim() === "") continue;
    const message = JSON.parse(line) as Message;
    if (typeof message.method === "string" && message.id !== undefined) onRequest(message);
    else book.receive(message);
  }
}
process.stdin.setEncoding("utf8");
process.stdin.on("data", onData);
process.stdin.on("end", () => process.exit(0));
process.stdout.on("error", () => process.exit(0));
