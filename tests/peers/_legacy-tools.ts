/**
 * The tools of the scripted legacy HTTP server: each one provokes one wire behaviour (a JSON
 * answer, server requests on the call's SSE stream or on the GET stream, an early close that the
 * client must resume, an expired session).
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type { SseStream, StreamRegistry } from "./_legacy-sse.ts";

/** One session of the server. */
export interface LegacySession {
  readonly id: string;
  /** The negotiated protocol version, required as `MCP-Protocol-Version` after initialize. */
  readonly version: string;
  readonly streams: StreamRegistry;
  /** The open standalone GET stream, if any. */
  standalone: SseStream | undefined;
  /** Server requests awaiting the client's POSTed answer, by `JSON.stringify(id)`. */
  readonly waiting: Map<string, (answer: object) => void>;
  nextRequestId: number;
}

/** A `tools/call` in progress. */
export interface ToolCall {
  readonly session: LegacySession;
  /** The id of the `tools/call` request. */
  readonly id: string | number;
  readonly args: Record<string, unknown>;
  readonly res: ServerResponse;
  /** Answers with a JSON body. */
  json(body: object): void;
  /** Forgets the session: every later request carrying its id gets 404. */
  expire(): void;
}

/** What `tools/list` answers. */
export const TOOLS: readonly object[] = [
  tool("echo", "Answers {text} with a JSON body.", { text: { type: "string" } }),
  tool(
    "ask",
    "Sends `count` server requests at once on the call's SSE stream, returns the answers.",
    askSchema(),
  ),
  tool("ask_on_get", "Same as ask, but sends them on the standalone GET stream.", askSchema()),
  tool("poll", "Closes the call's SSE stream early `closes` times; the result comes on a resumption.", {
    retryMs: { type: "integer" },
    closes: { type: "integer" },
    stall: { type: "boolean" },
    ids: { type: "boolean" },
  }),
  tool("expire_session", "Answers, then forgets the session (the next request gets 404).", {}),
];

/** The tools by name. */
export const TOOL_HANDLERS: Readonly<Record<string, (call: ToolCall) => void | Promise<void>>> = {
  echo: (call) => call.json(result(call.id, String(call.args.text ?? ""), { text: call.args.text ?? null })),
  ask: async (call) => {
    const stream = call.session.streams.open(call.res);
    stream.prime();
    const answers = await askAll(call, stream);
    stream.send(result(call.id, JSON.stringify(answers), { answers }));
    stream.finish();
  },
  ask_on_get: async (call) => {
    const stream = call.session.standalone;
    if (stream === undefined || !stream.connected) {
      return call.json(result(call.id, "no standalone GET stream is open", {}, true));
    }
    const answers = await askAll(call, stream);
    call.json(result(call.id, JSON.stringify(answers), { answers }));
  },
  poll: (call) => {
    const retryMs = typeof call.args.retryMs === "number" ? call.args.retryMs : 500;
    let closes = typeof call.args.closes === "number" ? call.args.closes : 1;
    let resumes = 0;
    const stream = call.session.streams.open(call.res, { ids: call.args.ids !== false });
    stream.prime(retryMs);
    stream.onResume = (resumed) => {
      resumes++;
      if (call.args.stall === true) return resumed.drop();
      if (--closes > 0) {
        resumed.send(progress(resumes));
        resumed.prime(retryMs);
        return resumed.drop();
      }
      resumed.send(progress(resumes));
      resumed.send(result(call.id, "polled", { resumes }));
      resumed.finish();
    };
    if (call.args.ids === false) stream.send(progress(0));
    setTimeout(() => stream.drop(), 20);
  },
  expire_session: (call) => {
    call.json(result(call.id, "session expired", {}));
    call.expire();
  },
};

/** Sends the notification then `count` requests at once on `stream`; resolves with the answers in order. */
function askAll(call: ToolCall, stream: SseStream): Promise<object[]> {
  const count = typeof call.args.count === "number" ? call.args.count : 1;
  const method = typeof call.args.method === "string" ? call.args.method : "roots/list";
  const params = (call.args.params ?? {}) as object;
  stream.send({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: `asking ${count} ${method}` },
  });
  const { session } = call;
  const asks: Promise<object>[] = [];
  for (let i = 0; i < count; i++) {
    const id = `ask-${session.nextRequestId++}`;
    asks.push(new Promise((resolve) => session.waiting.set(JSON.stringify(id), resolve)));
    stream.send({ jsonrpc: "2.0", id, method, params });
  }
  return Promise.all(asks);
}

function progress(resumes: number): object {
  return {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: `resume ${resumes}` },
  };
}

function result(id: string | number, text: string, structured: object, isError = false): object {
  const value = { content: [{ type: "text", text }], structuredContent: structured };
  return { jsonrpc: "2.0", id, result: isError ? { ...value, isError: true } : value };
}

function tool(name: string, description: string, properties: object): object {
  return { name, description, inputSchema: { type: "object", properties } };
}

function askSchema(): object {
  return { count: { type: "integer" }, method: { type: "string" }, params: { type: "object" } };
}
