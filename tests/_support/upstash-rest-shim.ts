// The project's Upstash-REST-to-Redis shim: enough of Upstash's REST protocol for @upstash/redis
// and @upstash/ratelimit, over ioredis and a real redis-server, on a free loopback port.
//
// Protocol points honoured: `Authorization: Bearer <token>` (401 otherwise); a command is a JSON
// array POSTed to `/`, a list of them to `/pipeline` or `/multi-exec`; with `Upstash-Encoding:
// base64` every string in a result is base64; errors are `{ error }` (HTTP 400 for a single
// command, per item in a pipeline). Lua: Upstash-only shebang flags (`#!lua flags=...`) are
// stripped before Redis sees a script, and the SHA1 of the script as the client sent it is
// mapped to the SHA1 of the script as run, so the client's EVALSHA works after its first EVAL
// and gets NOSCRIPT before.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Buffer } from "node:buffer";
import { Redis } from "ioredis";

/**
 * The `timeoutMs` of a store over the shim where the store's deadline is not what a test checks:
 * a busy machine can take over a second (the default) for requests an idle one answers in
 * milliseconds, and a take can be three of them (EVALSHA, NOSCRIPT, EVAL).
 */
export const SHIM_TIMEOUT_MS = 30_000;

/** A running shim. */
export interface UpstashShim {
  /** The base URL for `new Redis({ url, token })`. */
  readonly url: string;
  readonly token: string;
  /** Resolves once the shim's connection to Redis is up (after a restart of redis-server). */
  redisReady(): Promise<void>;
  /** Holds each request that arrives from now on `ms` before running it (0: none; a slow Redis). */
  delay(ms: number): void;
  /** Closes the HTTP server (dropping open connections) and the Redis connection. */
  stop(): Promise<void>;
}

export interface UpstashShimOptions {
  /** The loopback port of the redis-server behind the shim. */
  readonly redisPort: number;
  /** The bearer token clients must send. */
  readonly token?: string;
  /** Accept requests and never answer them (a hung Upstash). */
  readonly hang?: boolean;
}

type Reply = { result: unknown } | { error: string };

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** Starts the shim on a free loopback port. */
export async function startUpstashShim(options: UpstashShimOptions): Promise<UpstashShim> {
  const token = options.token ?? "shim-token";
  const redis = new Redis({
    host: "127.0.0.1",
    port: options.redisPort,
    lazyConnect: true,
    enableOfflineQueue: false, // fail at once while Redis is down, as a real proxy would
    maxRetriesPerRequest: 0,
    retryStrategy: () => 20, // keep reconnecting quickly
  });
  redis.on("error", () => {}); // reconnection errors are expected while Redis is down
  await redis.connect();
  const lua = new LuaScripts();

  const sockets = new Set<Socket>();
  let delayMs = 0;
  const server = createServer((request, response) => {
    if (options.hang === true) return;
    const held = delayMs;
    const run = () =>
      answer(request, response, { token, redis, lua }).catch((error: unknown) => {
        send(response, 500, { error: `ERR shim: ${String(error)}` });
      });
    if (held === 0) void run();
    else setTimeout(run, held);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("startUpstashShim(): no TCP address");

  return {
    url: `http://127.0.0.1:${address.port}`,
    token,
    redisReady: async () => {
      if (redis.status !== "ready") await once(redis, "ready");
    },
    delay: (ms) => {
      delayMs = ms;
    },
    stop: async () => {
      const closed = once(server, "close");
      server.close();
      for (const socket of sockets) socket.destroy();
      await closed;
      redis.disconnect();
    },
  };
}

interface Context {
  readonly token: string;
  readonly redis: Redis;
  readonly lua: LuaScripts;
}

async function answer(request: IncomingMessage, response: ServerResponse, ctx: Context): Promise<void> {
  if (request.headers.authorization !== `Bearer ${ctx.token}`) {
    return send(response, 401, { error: "Unauthorized" });
  }
  if (request.method !== "POST") return send(response, 405, { error: "ERR only POST is supported" });
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return send(response, 400, { error: "ERR failed to parse command" });
  }
  const base64 = request.headers["upstash-encoding"] === "base64";
  const path = new URL(request.url ?? "/", "http://shim").pathname;
  if (ctx.redis.status !== "ready") {
    return send(response, 503, { error: `ERR redis-server unreachable (connection ${ctx.redis.status})` });
  }
  if (path === "/") {
    if (!isCommand(body)) return send(response, 400, { error: "ERR expected a command as a JSON array" });
    const reply = await run(ctx, body, base64);
    return send(response, "error" in reply ? 400 : 200, reply);
  }
  if (path === "/pipeline" || path === "/multi-exec") {
    if (!Array.isArray(body) || !body.every(isCommand)) {
      return send(response, 400, { error: "ERR expected a JSON array of commands" });
    }
    const batch = path === "/pipeline" ? ctx.redis.pipeline() : ctx.redis.multi();
    const commands = body.map((command) => ctx.lua.translate(command));
    for (const command of commands) batch.callBuffer(command.name, ...command.args);
    let results: [Error | null, unknown][] | null;
    try {
      results = await batch.exec();
    } catch (error) {
      return send(response, 400, { error: message(error) });
    }
    if (results === null) return send(response, 400, { error: "ERR transaction aborted" });
    return send(
      response,
      200,
      results.map(([error, result], i) =>
        error === null ? { result: encode(commands[i]!.finish(result), base64) } : { error: error.message }
      ),
    );
  }
  return send(response, 404, { error: `ERR unknown path "${path}"` });
}

async function run(ctx: Context, command: unknown[], base64: boolean): Promise<Reply> {
  const { name, args, finish } = ctx.lua.translate(command);
  try {
    return { result: encode(finish(await ctx.redis.callBuffer(name, ...args)), base64) };
  } catch (error) {
    return { error: message(error) };
  }
}

/** The Lua handling: shebang stripping and the client-SHA → run-SHA map. */
class LuaScripts {
  readonly #runSha = new Map<string, string>();

  translate(command: unknown[]): { name: string; args: string[]; finish: (result: unknown) => unknown } {
    const name = String(command[0]);
    const args = command.slice(1).map((arg) =>
      arg === null ? "" : typeof arg === "object" ? JSON.stringify(arg) : String(arg)
    );
    const upper = name.toUpperCase();
    const same = (result: unknown) => result;
    if ((upper === "EVAL" || upper === "EVAL_RO") && args[0] !== undefined) {
      args[0] = this.#prepare(args[0]);
    } else if ((upper === "EVALSHA" || upper === "EVALSHA_RO") && args[0] !== undefined) {
      args[0] = this.#runSha.get(args[0].toLowerCase()) ?? args[0];
    } else if (upper === "SCRIPT" && args[0]?.toUpperCase() === "LOAD" && args[1] !== undefined) {
      const sent = sha1(args[1]);
      args[1] = this.#prepare(args[1]);
      return { name, args, finish: () => sent }; // the client expects the SHA of what it sent
    }
    return { name, args, finish: same };
  }

  #prepare(script: string): string {
    // Drop the shebang line but keep its newline, so Redis's error line numbers stay right.
    const run = script.startsWith("#!") ? script.replace(/^#![^\n]*/, "") : script;
    this.#runSha.set(sha1(script), sha1(run));
    return run;
  }
}

function isCommand(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0 && typeof value[0] === "string";
}

/** Redis replies as JSON: byte strings become base64 (or UTF-8 text without the header). */
function encode(value: unknown, base64: boolean): unknown {
  if (Buffer.isBuffer(value)) return value.toString(base64 ? "base64" : "utf8");
  if (typeof value === "string") return base64 ? Buffer.from(value, "utf8").toString("base64") : value;
  if (Array.isArray(value)) return value.map((item) => encode(item, base64));
  return value;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
