// A modern-era server scripted by a test, reached through the client's injected `fetch`, so
// client tests run on every runtime (workerd included) and see exactly what the client sent.
// The real peers (tests/peers/) cover the same flows over loopback HTTP.
import { refusedEvent } from "./refused-event.ts";

export interface SeenRequest {
  readonly headers: Record<string, string>;
  readonly body: {
    readonly id?: number | string;
    readonly method: string;
    readonly params?: Record<string, unknown>;
  };
}

export type Reply = (request: SeenRequest, index: number) => Response | Promise<Response>;

export interface ScriptedServer {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly requests: SeenRequest[];
}

export function scriptedServer(reply: Reply): ScriptedServer {
  const requests: SeenRequest[] = [];
  return {
    requests,
    fetch: async (url: string, init: RequestInit) => {
      const request = new Request(url, init);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => (headers[key] = value));
      const seen = { headers, body: JSON.parse(await request.text()) };
      requests.push(seen);
      // Like a real fetch, a request's abort rejects it.
      const aborted = new Promise<never>((_, reject) => {
        if (request.signal.aborted) reject(request.signal.reason);
        request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
      });
      return await Promise.race([reply(seen, requests.length - 1), aborted]);
    },
  };
}

/** A JSON-RPC result response. */
export function result(id: unknown, value: Record<string, unknown>, status = 200): Response {
  return Response.json({ jsonrpc: "2.0", id, result: value }, { status });
}

/** The `server/discover` answer of a 2026-07-28 server offering tools only. */
export function discovered(id: unknown): Response {
  return result(id, {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {} },
  });
}

/** A JSON-RPC error response. */
export function rpcError(id: unknown, code: number, message: string, data?: unknown, status = 200): Response {
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  }, { status });
}

/** An SSE response carrying the given messages, one event each; `end: false` leaves it open-ended broken. */
export function sse(messages: unknown[], options: { close?: boolean } = {}): Response {
  const text = messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join("");
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      if (options.close !== false) controller.close();
      else controller.error(new TypeError("connection reset"));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** What a modern server answers `tools/list` with. */
export function toolsList(id: unknown, tools: unknown[]): Response {
  return result(id, { resultType: "complete", ttlMs: 0, cacheScope: "private", tools });
}

/**
 * The `initialize` answer of a 2025 server speaking `options.version` (2025-11-25 unless given)
 * and declaring `capabilities`.
 */
export function initialized(
  id: unknown,
  capabilities: Record<string, unknown>,
  options: { readonly version?: string } = {},
): Response {
  return result(id, {
    protocolVersion: options.version ?? "2025-11-25",
    capabilities,
    serverInfo: { name: "scripted", version: "1.0.0" },
  });
}

/**
 * `server`'s fetch for a 2025 client: the client's POSTs go to it, and the standalone GET stream
 * and the closing DELETE (no body) are answered 405, as the spec allows.
 */
export function postsOnly(server: Pick<ScriptedServer, "fetch">): ScriptedServer["fetch"] {
  return (url, init) =>
    init.method === "POST" ? server.fetch(url, init) : Promise.resolve(new Response(null, { status: 405 }));
}

/**
 * What a 2025 server answers `initialize` (`version`, tools only) and `tools/list` (one tool named
 * `tool`) with; `undefined` for any other message.
 */
export function legacyHandshake(
  body: { id?: unknown; method?: string },
  version: string,
  tool: string,
): Response | undefined {
  if (body.id === undefined) return undefined;
  if (body.method === "initialize") return initialized(body.id, { tools: {} }, { version });
  if (body.method === "tools/list") {
    return result(body.id, { tools: [{ name: tool, inputSchema: { type: "object" } }] });
  }
  return undefined;
}

/** The 2025-11-25 task `t-1` in `status`. */
export function legacyTask(status: string): Record<string, unknown> {
  const at = "2026-01-01T00:00:00Z";
  return { taskId: "t-1", status, createdAt: at, lastUpdatedAt: at, ttl: null };
}

/**
 * A 2025-11-25 server whose one tool, `deploy`, must run as a task: its call becomes the task
 * `t-1`, `tasks/result` is answered by `awaited`, and `tasks/cancel` cancels the task; a
 * notification or an answer gets 202.
 */
export function legacyTaskServer(
  awaited: (id: unknown) => Response | Promise<Response>,
  status = "cancelled",
): Reply {
  return ({ body: { id, method } }) => {
    if (id === undefined || method === undefined) return new Response(null, { status: 202 });
    switch (method) {
      case "initialize":
        return initialized(id, { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } });
      case "tools/list":
        return result(id, {
          tools: [{
            name: "deploy",
            inputSchema: { type: "object" },
            execution: { taskSupport: "required" },
          }],
        });
      case "tools/call":
        return result(id, { task: legacyTask("working") });
      case "tasks/result":
        return awaited(id);
      default:
        return result(id, legacyTask(status));
    }
  };
}

/**
 * What a client sent a {@linkcode legacyTaskServer} once its call became the task (after
 * `initialize`, `notifications/initialized`, `tools/list` and `tools/call`): its requests whole,
 * then its notifications as `[method, params]` (a notification is sent without waiting, so in no
 * set order with the requests); answers to the server's requests are left out.
 */
export function sentAfterTask(requests: readonly SeenRequest[]): unknown[] {
  const sent = requests.slice(4).map((request) => request.body);
  return [
    sent.filter((body) => body.id !== undefined && body.method !== undefined),
    sent.filter((body) => body.id === undefined).map((body) => [body.method, body.params]),
  ];
}

/**
 * A 2025 server over Streamable HTTP whose one tool, `ask`, sends `asked` (server requests, in
 * one SSE event each) on the call's stream and answers the call `{ content: [] }` once it has
 * read an answer to each; its `fetch` answers the standalone GET and the DELETE 405, as the spec
 * allows. `answers()` are the client's answers in the order read, and `answered(count)` resolves
 * once `count` of them were read.
 */
export function legacyAskingServer(version: string, asked: readonly unknown[]): {
  fetch: ScriptedServer["fetch"];
  answers: () => unknown[];
  answered: (count: number) => Promise<void>;
} {
  const event = (message: unknown) =>
    new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  let callId: unknown;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const answers = () => server.requests.filter((r) => r.body.method === undefined).map((r) => r.body);
  const server = scriptedServer((request) => {
    const { id, method } = request.body;
    if (method === undefined) {
      const read = answers().length;
      for (const wait of waiting) if (read >= wait.count) wait.resolve();
      if (read === asked.length) {
        stream?.enqueue(event({ jsonrpc: "2.0", id: callId, result: { content: [] } }));
        stream?.close();
      }
    }
    const handshake = legacyHandshake(request.body, version, "ask");
    if (id === undefined || method === undefined || handshake !== undefined) {
      return handshake ?? new Response(null, { status: 202 });
    }
    callId = id;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stream = controller;
        for (const message of asked) controller.enqueue(event(message));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return {
    answers,
    answered: (count) =>
      new Promise((resolve) => answers().length >= count ? resolve() : void waiting.push({ count, resolve })),
    fetch: postsOnly(server),
  };
}

/**
 * A {@linkcode legacyAskingServer} whose call asks three form elicitations at once, for a policy
 * with `maxServerRequests: 1`: `handler` holds the first until the server has read the answers
 * to the other two, so the second is refused busy, and the third (its message no string) fails
 * to decode. `refusals` are those two answers, in that order; `inputEvents` the three input
 * decision events expected, for the client, server and caller given, at `time`.
 */
export function busyAndInvalidElicitations(version: string): {
  upstream: ReturnType<typeof legacyAskingServer>;
  handler: { elicitation: () => Promise<{ action: "decline" }> };
  refusals: { code: number; message: string }[];
  inputEvents: (
    who: { readonly client: string; readonly server: string; readonly caller?: string },
    time: string,
  ) => Record<string, unknown>[];
} {
  const form = { message: "Name?", requestedSchema: { type: "object", properties: {} } };
  const upstream = legacyAskingServer(version, [
    { jsonrpc: "2.0", id: 1, method: "elicitation/create", params: form },
    { jsonrpc: "2.0", id: 2, method: "elicitation/create", params: form },
    { jsonrpc: "2.0", id: 3, method: "elicitation/create", params: { ...form, message: 5 } },
  ]);
  const refusals = [
    { code: -32000, message: "Busy: 1 server requests are already being answered" },
    { code: -32602, message: "Invalid params: $.params.message: expected string, received 5" },
  ];
  return {
    upstream,
    handler: { elicitation: () => upstream.answered(2).then(() => ({ action: "decline" })) },
    refusals,
    inputEvents: (who, time) => {
      const request = { ...who, time, method: "elicitation/create", mode: "form" };
      const answered = { outcome: "answered", changes: [], handlerMs: 0, durationMs: 0 };
      return [
        ...refusals.map((refusal) => refusedEvent(refusal, request)),
        { type: "input", ...request, era: "legacy", ...answered },
      ];
    },
  };
}
