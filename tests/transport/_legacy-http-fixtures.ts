// Helpers of legacy-http-connection.host.test.ts: a connection with its events recorded, the
// handshake, a fetch that records what was sent and answered, and bounded polling of a peer.
import { systemTimers, type Timers } from "../../src/_internal/timers.ts";
import type {
  ConnectionClosed,
  LegacyConnection,
  ServerMessage,
} from "../../src/transport/legacy-connection.ts";
import { type CompiledHttpTransport, compilePolicy } from "../../src/policy/compile-policy.ts";
import type {
  JsonObject,
  JsonRpcErrorResponse,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from "../../src/protocol/jsonrpc.ts";
import { createLegacyHttpConnection } from "../../src/transport/legacy-http-connection.ts";
import { eventually } from "../_support/eventually.ts";

/** The policy's credential, which must never reach another origin. */
export const SECRET = "Bearer sluice-test-secret";

/** A connection and everything it reported. */
export interface Opened {
  readonly connection: LegacyConnection;
  readonly messages: ServerMessage[];
  readonly closes: ConnectionClosed[];
}

/** Options of {@linkcode open}. */
export interface OpenOptions {
  readonly redirect?: "same-origin" | "none" | "any";
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  readonly timers?: Timers;
  readonly maxRetryMs?: number;
  readonly maxResumeAttempts?: number;
  readonly callTimeoutMs?: number;
  /** Called after each server message is recorded (to answer it). */
  readonly onServerMessage?: (message: ServerMessage, connection: LegacyConnection) => void;
}

/** The compiled transport of a policy for `url`, with {@linkcode SECRET} as `Authorization`. */
export function transportFor(
  url: string,
  redirect: OpenOptions["redirect"] = "same-origin",
): CompiledHttpTransport {
  const policy = compilePolicy({
    server: "legacy",
    transport: { url, headers: { Authorization: SECRET }, redirect },
  });
  if (policy.transport.kind !== "http") throw new Error("transportFor(): expected an HTTP transport");
  return policy.transport;
}

/** Opens one connection to `url` with its events recorded. */
export function open(url: string, options: OpenOptions = {}): Opened {
  const messages: ServerMessage[] = [];
  const closes: ConnectionClosed[] = [];
  const factory = createLegacyHttpConnection(transportFor(url, options.redirect), {
    fetch: options.fetch ?? ((u, init) => fetch(u, init)),
    timers: options.timers ?? systemTimers,
    ...(options.maxRetryMs === undefined ? {} : { maxRetryMs: options.maxRetryMs }),
    ...(options.maxResumeAttempts === undefined ? {} : { maxResumeAttempts: options.maxResumeAttempts }),
    ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
  });
  const connection: LegacyConnection = factory({
    onServerMessage: (message) => {
      messages.push(message);
      options.onServerMessage?.(message, connection);
    },
    onClose: (closed) => closes.push(closed),
  });
  return { connection, messages, closes };
}

/** A signal that never fires. */
export function noAbort(): { readonly signal: AbortSignal } {
  return { signal: new AbortController().signal };
}

/** The legacy handshake: `initialize` (id 0), `negotiated`, `notifications/initialized`. */
export async function handshake(
  connection: LegacyConnection,
  capabilities: object = { roots: {} },
): Promise<JsonRpcResultResponse | JsonRpcErrorResponse> {
  const response = await connection.request({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "sluice-test", version: "0.0.0" },
    },
  }, noAbort());
  connection.negotiated("2025-11-25");
  await connection.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
  return response;
}

/** A `tools/call` request. */
export function callTool(id: number, name: string, args: JsonObject = {}): JsonRpcRequest {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** One request as a fetch saw it, and the status and session header it got back. */
export interface Exchange {
  readonly method: string;
  readonly url: string;
  /** Header names lower-cased. */
  readonly headers: Record<string, string>;
  readonly status: number | undefined;
  readonly sessionHeader: string | null | undefined;
}

/** A fetch that records every exchange. */
export function recordingFetch(): {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  seen: Exchange[];
} {
  const seen: Exchange[] = [];
  return {
    seen,
    fetch: async (url, init) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => headers[name] = value);
      const entry = {
        method: init.method ?? "GET",
        url,
        headers,
        status: undefined,
        sessionHeader: undefined,
      };
      const response = await fetch(url, init);
      seen.push({ ...entry, status: response.status, sessionHeader: response.headers.get("mcp-session-id") });
      return response;
    },
  };
}

/** Timers that record every delay asked for, backed by the runtime's. */
export function spyTimers(): Timers & { readonly delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      return systemTimers.setTimeout(callback, ms);
    },
    clearTimeout: (handle) => systemTimers.clearTimeout(handle),
  };
}

/** {@linkcode eventually}, with 30 s to wait by default. */
export function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  return eventually(what, probe, ms);
}

/** Picks the named headers (lower-case) of a recorded request; absent ones are left out. */
export function pick(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (headers[name] !== undefined) out[name] = headers[name];
  return out;
}

/** The headers tests compare. */
export const MCP_HEADERS = [
  "accept",
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
] as const;

/** A `text/event-stream` response whose body is `text`, then ends. */
export function sseResponse(text: string): Response {
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}
