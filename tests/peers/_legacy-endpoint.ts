/**
 * The MCP endpoint of the scripted legacy HTTP server (`legacy-http-server.ts`): sessions,
 * `initialize`, POSTed requests, notifications and answers, the GET stream and its resumption,
 * and `DELETE`. Its behaviour is documented in `legacy-http-server.ts`.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { LoggedRequest, PeerConfig } from "../_support/legacy-http-peer.ts";
import { StreamRegistry } from "./_legacy-sse.ts";
import { type LegacySession, TOOL_HANDLERS, TOOLS } from "./_legacy-tools.ts";

/** A JSON-RPC message as the server reads it. */
export type Message = { id?: string | number; method?: string; params?: Record<string, unknown> };
/** A log entry being filled in. */
export type Entry = { -readonly [K in keyof LoggedRequest]: LoggedRequest[K] };

const VERSIONS = ["2025-11-25", "2025-06-18"];
/** How the server behaves; `POST /__config` changes it. */
export const config: { -readonly [K in keyof PeerConfig]-?: NonNullable<PeerConfig[K]> | undefined } = {
  get: "sse",
  getRetryMs: undefined,
  getCloseMs: undefined,
  delete: "200",
  sessionId: undefined,
};
const sessions = new Map<string, LegacySession>();

/** Answers with a JSON body, or none. */
export function jsonReply(res: ServerResponse, status: number, body: object | undefined): void {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

/** Answers with a JSON-RPC error. */
export function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
): void {
  jsonReply(res, status, { jsonrpc: "2.0", error: { code, message }, id });
}

/** Finds the session a request names, or answers the refusal and returns `undefined`. */
function sessionOf(req: IncomingMessage, res: ServerResponse): LegacySession | undefined {
  const id = req.headers["mcp-session-id"];
  if (typeof id !== "string") {
    return void rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
  }
  const session = sessions.get(id);
  if (session === undefined) return void rpcError(res, 404, -32001, "Session not found");
  const version = req.headers["mcp-protocol-version"];
  if (version !== session.version) {
    return void rpcError(res, 400, -32000, `Bad Request: MCP-Protocol-Version must be ${session.version}`);
  }
  return session;
}

function initialize(message: Message, res: ServerResponse): void {
  const requested = message.params?.protocolVersion;
  const version = typeof requested === "string" && VERSIONS.includes(requested) ? requested : VERSIONS[0]!;
  const id = config.sessionId ?? randomUUID();
  config.sessionId = undefined;
  const session: LegacySession = {
    id,
    version,
    streams: new StreamRegistry(),
    standalone: undefined,
    waiting: new Map(),
    nextRequestId: 1,
  };
  sessions.set(id, session);
  const stream = session.streams.open(res, { headers: { "mcp-session-id": id } });
  stream.prime();
  stream.send({
    jsonrpc: "2.0",
    id: message.id,
    result: {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: "legacy-http-server", version: "1.0.0" },
    },
  });
  stream.finish();
}

/** Handles a POST to the MCP endpoint. */
export async function post(req: IncomingMessage, res: ServerResponse, message: Message): Promise<void> {
  if (message.method === "initialize" && req.headers["mcp-session-id"] === undefined) {
    return initialize(message, res);
  }
  const session = sessionOf(req, res);
  if (session === undefined) return;
  const accept = req.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return rpcError(
      res,
      406,
      -32000,
      "Not Acceptable: Accept must list application/json and text/event-stream",
    );
  }
  if (message.method === undefined) {
    const resolve = session.waiting.get(JSON.stringify(message.id));
    if (resolve === undefined) {
      return rpcError(res, 400, -32600, `No server request ${JSON.stringify(message.id)} awaits an answer`);
    }
    session.waiting.delete(JSON.stringify(message.id));
    jsonReply(res, 202, undefined);
    return resolve(message);
  }
  if (message.id === undefined) return jsonReply(res, 202, undefined);
  const id = message.id;
  if (message.method === "ping") return jsonReply(res, 200, { jsonrpc: "2.0", id, result: {} });
  if (message.method === "tools/list") {
    return jsonReply(res, 200, { jsonrpc: "2.0", id, result: { tools: TOOLS } });
  }
  if (message.method !== "tools/call") {
    return rpcError(res, 200, -32601, `Method not found: ${message.method}`, id);
  }
  const name = String(message.params?.name);
  const handler = TOOL_HANDLERS[name];
  if (handler === undefined) return rpcError(res, 200, -32602, `Unknown tool: ${name}`, id);
  const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
  const json = (body: object) => jsonReply(res, 200, body);
  await handler({ session, id, args, res, json, expire: () => sessions.delete(session.id) });
}

/** Handles a GET to the MCP endpoint. */
export function get(req: IncomingMessage, res: ServerResponse, entry: Entry): void {
  if (!(req.headers.accept ?? "").includes("text/event-stream")) {
    return rpcError(res, 406, -32000, "Not Acceptable: Accept must list text/event-stream");
  }
  const session = sessionOf(req, res);
  if (session === undefined) return;
  const lastEventId = req.headers["last-event-id"];
  if (typeof lastEventId === "string") {
    const resumed = session.streams.resume(res, lastEventId);
    if (resumed === undefined) {
      return rpcError(res, 400, -32000, `Unknown Last-Event-ID ${JSON.stringify(lastEventId)}`);
    }
    entry.resumed = { stream: resumed.stream.id, waitedMs: resumed.waitedMs ?? null };
    return;
  }
  if (config.get === "405") return jsonReply(res, 405, undefined);
  if (session.standalone?.connected === true) {
    return rpcError(res, 409, -32000, "Conflict: a GET stream is open");
  }
  const stream = session.streams.open(res, { headers: { "mcp-session-id": session.id } });
  session.standalone = stream;
  const poll = (): void => {
    stream.prime(config.getRetryMs);
    if (config.getCloseMs !== undefined) setTimeout(() => stream.drop(), config.getCloseMs);
  };
  stream.onResume = poll;
  poll();
}

/** Handles a DELETE to the MCP endpoint. */
export function remove(req: IncomingMessage, res: ServerResponse): void {
  const session = sessionOf(req, res);
  if (session === undefined) return;
  if (config.delete === "405") return jsonReply(res, 405, undefined);
  sessions.delete(session.id);
  session.streams.finishAll();
  jsonReply(res, 200, undefined);
}
