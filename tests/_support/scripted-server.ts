// A modern-era server scripted by a test, reached through the client's injected `fetch`, so
// client tests run on every runtime (workerd included) and see exactly what the client sent.
// The real peers (tests/peers/) cover the same flows over loopback HTTP.
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
 * What a 2025 server answers `initialize` (`version`, tools only) and `tools/list` (one tool named
 * `tool`) with; `undefined` for any other message.
 */
export function legacyHandshake(
  body: { id?: unknown; method?: string },
  version: string,
  tool: string,
): Response | undefined {
  if (body.id === undefined) return undefined;
  if (body.method === "initialize") {
    return result(body.id, {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: "scripted", version: "1.0.0" },
    });
  }
  if (body.method === "tools/list") {
    return result(body.id, { tools: [{ name: tool, inputSchema: { type: "object" } }] });
  }
  return undefined;
}
