/**
 * The hostile answers of `_hostile-http-server.ts`, one per tool name: bodies and SSE events
 * larger than any limit, streams that never end, deep JSON, a round of 10 000 input requests (a
 * `-32042` with 10 000 URL elicitations in the legacy era, and one with a single one), a 1 MB
 * `requestState`, a flood of
 * notifications and progress that never ends. Each writes to a `node:http` response and logs when
 * the client cut it.
 *
 * @module
 */
import type { ServerResponse } from "node:http";

/** The tools both eras list; `many-inputs` and `big-state` answer only in the modern era. */
export const TOOLS: readonly string[] = [
  "echo",
  "huge-body",
  "endless-json",
  "endless-event",
  "keepalive",
  "deep",
  "deep-sse",
  "many-inputs",
  "big-state",
  "flood",
  "many-urls",
  "one-url",
  "progress-forever",
];

/** The depth of the hostile nesting: far beyond any limit and any call stack. */
export const HOSTILE_DEPTH = 100_000;
/** The length of the big `requestState`. */
export const STATE_LENGTH = 1_000_000;
/** The big `requestState`: varied, with characters JSON escapes (`"`, `\\`) and non-ASCII. */
export const BIG_STATE: string = Array.from(
  // Each piece is 17 characters.
  { length: Math.ceil(STATE_LENGTH / 17) },
  (_, i) => `"\\${String(i).padStart(8, "0")}-state-é`,
).join("").slice(0, STATE_LENGTH);

const CHUNK = "a".repeat(64 * 1024);
const elicit = {
  method: "elicitation/create",
  params: {
    message: "Sure?",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  },
};

/** Answers one `tools/call` by its tool name; `log` records what happened for the test. */
export function answerTool(
  res: ServerResponse,
  call: { id: unknown; name: string; params: Record<string, unknown>; era: "modern" | "legacy" },
  log: (entry: string) => void,
): void {
  const { id, name, params } = call;
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const deep = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":{"x":${
    "[".repeat(HOSTILE_DEPTH)
  }${"]".repeat(HOSTILE_DEPTH)}}}}`;
  switch (name) {
    case "echo":
      return json(res, {
        jsonrpc: "2.0",
        id,
        result: { content: [{ type: "text", text: `echo ${call.era}` }] },
      });
    case "huge-body": {
      const body = Buffer.from(`${head}${"a".repeat(5 * 1024 * 1024)}"}]}}`);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.end(body);
      return;
    }
    case "endless-json":
      res.writeHead(200, { "content-type": "application/json" });
      return void writeForever(res, head, () => CHUNK, name, log);
    case "endless-event":
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void writeForever(res, `event: message\ndata: ${head}`, () => CHUNK, name, log);
    case "keepalive":
      res.writeHead(200, { "content-type": "text/event-stream" });
      return everyTenMs(res, () => ": keepalive\n\n", name, log);
    case "deep":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(deep);
    case "deep-sse":
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end(`event: message\ndata: ${deep}\n\n`);
    case "many-inputs": {
      const inputRequests: Record<string, unknown> = {};
      for (let i = 0; i < 10_000; i++) inputRequests[`q${i}`] = elicit;
      return json(res, { jsonrpc: "2.0", id, result: { resultType: "input_required", inputRequests } });
    }
    case "big-state": {
      if (params.requestState === undefined) {
        const result = {
          resultType: "input_required",
          inputRequests: { confirm: elicit },
          requestState: BIG_STATE,
        };
        return json(res, { jsonrpc: "2.0", id, result });
      }
      const intact = params.requestState === BIG_STATE;
      const text = intact
        ? `requestState echoed intact (${BIG_STATE.length} characters)`
        : `requestState changed (${String(params.requestState).length} characters)`;
      return json(res, { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
    }
    case "flood": {
      const count = Number((params.arguments as { count?: unknown } | undefined)?.count ?? 50);
      const events = Array.from(
        { length: count },
        (_, n) => ({ jsonrpc: "2.0", method: "notifications/flood", params: { n } }),
      );
      events.push(
        { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `flooded ${count}` }] } } as never,
      );
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end(
        events.map((event) => `event: message\ndata: ${JSON.stringify(event)}\n\n`).join(""),
      );
    }
    case "one-url":
    case "many-urls": {
      const elicitations = Array.from({ length: name === "one-url" ? 1 : 10_000 }, (_, n) => ({
        mode: "url",
        elicitationId: `e${n}`,
        url: `https://login.example.com/${n}`,
        message: "Sign in",
      }));
      const error = { code: -32042, message: "URL elicitation required", data: { elicitations } };
      return json(res, { jsonrpc: "2.0", id, error });
    }
    case "progress-forever": {
      // A progress event for the call's own token, until the client leaves.
      const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
      let progress = 0;
      const event = () => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken, progress: ++progress },
      });
      res.writeHead(200, { "content-type": "text/event-stream" });
      return everyTenMs(res, () => `event: message\ndata: ${JSON.stringify(event())}\n\n`, name, log);
    }
    default:
      return json(res, { jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool ${name}` } });
  }
}

/** Writes JSON with its length. */
export function json(res: ServerResponse, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
  res.end(body);
}

/**
 * Writes `first`, then `next()` again and again, as fast as the client reads, until the client
 * closes the connection; then logs `<what>: closed by the client`.
 */
export async function writeForever(
  res: ServerResponse,
  first: string,
  next: () => string,
  what: string,
  log: (entry: string) => void,
): Promise<void> {
  let closed = false;
  let wake: () => void = () => {};
  res.once("close", () => {
    closed = true;
    wake();
    log(`${what}: closed by the client`);
  });
  res.on("drain", () => wake());
  let chunk = first;
  while (!closed) {
    if (!res.write(chunk)) await new Promise<void>((resolve) => wake = resolve);
    chunk = next();
  }
}

/** Writes `next()` every 10 ms until the client leaves; then logs `<what>: closed by the client`. */
function everyTenMs(
  res: ServerResponse,
  next: () => string,
  what: string,
  log: (entry: string) => void,
): void {
  const timer = setInterval(() => res.write(next()), 10);
  res.once("close", () => {
    clearInterval(timer);
    log(`${what}: closed by the client`);
  });
}
