/// <reference types="node" />
/**
 * sluice's gateway on Node.js (`@sluice/mcp/node`), served by `@hono/node-server`: the front
 * (`/mcp/<server>`, both eras, `GET /healthz`, `GET /servers`) with the legacy-capable client, so
 * policies may use `era: "legacy"` or `"auto"` and stdio servers.
 *
 * @example
 * ```ts
 * import { serve } from "@sluice/mcp/node";
 * const gateway = await serve({
 *   port: 0,
 *   stateKey: crypto.getRandomValues(new Uint8Array(32)),
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * const health = await fetch(`${gateway.url}/healthz`);
 * console.log(await health.json()); // { ok: true }
 * await gateway.close();
 * ```
 *
 * @module
 */
import process from "node:process";
import { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Http2ServerResponse } from "node:http2";
import { type Http2Bindings, type HttpBindings, serve as serveNode } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { CALLER_GONE, type CallerGone, JSON_WRITER, type JsonWriter } from "../front/entry-bindings.ts";
import type { Gateway, GatewayOptions } from "./gateway.ts";
import { selfHostedGateway } from "./_self-hosted.ts";
import { droppingBehind } from "../_internal/line-backlog.ts";
import {
  KEEP_ALIVE_MS,
  type Listener,
  listenError,
  type RunningGateway,
  serveGateway,
  type ServeOptions,
} from "./serve-options.ts";

export type { Gateway, GatewayOptions } from "./gateway.ts";
export type {
  AuthFunction,
  BearerSecret,
  GatewayAuth,
  JwtAuthOptions,
  PrincipalInput,
} from "../front/downstream-auth.ts";
export type { SignInUser } from "../front/front-sign-in.ts";
export type { RunningGateway, ServeOptions } from "./serve-options.ts";
export { createNodeFetch, type NodeFetch, type NodeFetchOptions } from "../transport/node-fetch.ts";
export type { Fetcher } from "../transport/fetch-with-redirects.ts";

const environment = (name: string): string | undefined => process.env[name];

/**
 * Creates a gateway without listening: mount `gateway.app` or call `gateway.fetch` yourself.
 *
 * @param options Policies, handler, state key and the rest.
 * @returns The gateway.
 * @throws {TypeError} When no state key is given nor set in `SLUICE_STATE_KEY`, or the options are invalid.
 * @throws {PolicyError} When a policy does not compile.
 * @example
 * ```ts
 * import { createGateway } from "./node.ts";
 * const gateway = createGateway({
 *   stateKey: crypto.getRandomValues(new Uint8Array(32)),
 *   policies: [{ server: "files", transport: { command: "npx", args: ["--no-install", "mcp-server-filesystem", "/tmp"] } }],
 * });
 * const servers = await gateway.app.request("/servers");
 * console.log(servers.status); // 200
 * await gateway.client.close();
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  return selfHostedGateway(options, {
    environment,
    terminal: process.stdout.isTTY === true,
    writeLine: writeStdoutLine,
    peerAddress,
  });
}

/** The address of the connection a request came on, from `@hono/node-server`'s bindings. */
function peerAddress(_request: Request, env: unknown): string | undefined {
  return (env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress;
}

/**
 * Creates a gateway and serves it with `@hono/node-server`; resolves once it listens. Idle caller
 * connections stay open 65 s, so callers close them first.
 *
 * @param options The gateway's options, and `port`, `hostname`, `signal`.
 * @returns The running gateway: its `url`, and `close()`.
 * @throws {TypeError} When no state key is found, or `port` or the other options are invalid.
 * @throws {Error} When the port cannot be bound (in use, not permitted), naming the address.
 * @example
 * ```ts
 * import { serve } from "./node.ts";
 * const controller = new AbortController();
 * const gateway = await serve({
 *   port: 0,
 *   signal: controller.signal,
 *   stateKey: crypto.getRandomValues(new Uint8Array(32)),
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * console.log(gateway.url.startsWith("http://127.0.0.1:")); // true
 * controller.abort(); // or: await gateway.close();
 * ```
 */
export function serve(options: ServeOptions): Promise<RunningGateway> {
  return serveGateway(options, { createGateway, environment, listen });
}

function listen(gateway: Gateway, address: { port: number; hostname: string }): Promise<Listener> {
  return new Promise((resolve, reject) => {
    // Once stopping, a connection closes as soon as none of its requests is in flight: server.close()
    // closes only connections idle at that moment, and would keep the others open until the
    // keep-alive timeout, or 60 s for headers on one that has sent nothing yet.
    let stopping = false;
    const inFlight = new Map<Socket, number>();
    const closeIfIdle = (socket: Socket): void => {
      if (stopping && (inFlight.get(socket) ?? 0) === 0) socket.destroy();
    };
    // overrideGlobalObjects: false keeps the global Request and Response; the front writes JSON
    // answers itself (JSON_WRITER) and hears a caller that left from the connection (CALLER_GONE),
    // so the request's signal need not be made.
    const fetch = (request: Request, env: HttpBindings | Http2Bindings) => {
      const { incoming, outgoing } = env;
      const writer: JsonWriter = (status, json) => writeJson(outgoing, status, json);
      let gone: CallerGone | undefined;
      // HTTP/1 only: an HTTP/2 answer does not say when it was written in full.
      if (outgoing instanceof ServerResponse) {
        const { socket } = incoming;
        inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
        // One "close" listener per response, which also tells the call's own if it asked.
        let onGone: ((reason: unknown) => void) | undefined;
        outgoing.once("close", () => {
          const left = (inFlight.get(socket) ?? 1) - 1;
          if (inFlight.has(socket)) inFlight.set(socket, left);
          closeIfIdle(socket);
          if (onGone === undefined) return;
          if (incoming.errored) onGone(incoming.errored.toString());
          else if (!outgoing.writableFinished) onGone("Client connection prematurely closed.");
        });
        gone = (listener) => {
          const before = onGone;
          onGone = before === undefined ? listener : (reason) => {
            before(reason);
            listener(reason);
          };
        };
      }
      // The entry's own keys first: V8 builds an object slowly when keys follow an opening spread.
      return gateway.fetch(request, { [JSON_WRITER]: writer, [CALLER_GONE]: gone, ...env });
    };
    const server = serveNode(
      { fetch, port: address.port, hostname: address.hostname, overrideGlobalObjects: false },
      (info) => {
        server.off("error", onError);
        resolve({
          port: info.port,
          stop: () =>
            new Promise<void>((done, fail) => {
              stopping = true;
              server.close((error) => error === undefined ? done() : fail(error));
              for (const socket of inFlight.keys()) closeIfIdle(socket);
            }),
          flush: stdoutFlushed,
        });
      },
    );
    if ("keepAliveTimeout" in server) server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.on("connection", (socket: Socket) => {
      inFlight.set(socket, 0);
      socket.once("close", () => inFlight.delete(socket));
    });
    const onError = (error: Error): void => reject(listenError(address, error));
    server.once("error", onError);
  });
}

/** Writes a JSON answer as Hono's `c.json` would; returns `@hono/node-server`'s `RESPONSE_ALREADY_SENT`. */
function writeJson(outgoing: ServerResponse | Http2ServerResponse, status: number, json: string): Response {
  outgoing.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
  });
  outgoing.end(json);
  return RESPONSE_ALREADY_SENT;
}

/** Decision lines not yet written: those of the current turn of the event loop, and how many. */
let pendingLines = "";
let pendingCount = 0;
let watchingStdout = false;
let stdoutClosed = false;

/** How long a gateway's `close()` waits for stdout to take the decision lines written before it. */
const FLUSH_WAIT_MS = 5_000;

/** Decision lines to stdout, dropped and counted while it holds too much unwritten (line-backlog.ts). */
const stdoutLines = droppingBehind(
  { write: (text) => process.stdout.write(text), backlog: () => process.stdout.writableLength },
  (count) =>
    process.stderr.write(`sluice: ${count} decision lines dropped: stdout was not read fast enough\n`),
);

/**
 * Writes a decision line to stdout with the rest of this event-loop turn's lines, after the turn's
 * answers have gone out, so a call's answer does not wait on the pipe. Pending lines are written at
 * exit. A reader that closes stdout ends the decision lines, not the gateway: its EPIPE is an
 * unguarded `error` event on `process.stdout`.
 */
function writeStdoutLine(line: string): void {
  if (stdoutClosed) return;
  if (pendingLines === "") setImmediate(flushLines);
  pendingLines += `${line}\n`;
  pendingCount++;
  if (!watchingStdout) {
    watchingStdout = true;
    process.once("exit", flushLines);
    process.stdout.on("error", () => {
      stdoutClosed = true;
      pendingLines = "";
      pendingCount = 0;
    });
  }
}

function flushLines(): void {
  if (pendingLines === "" || stdoutClosed) return;
  const text = pendingLines;
  const count = pendingCount;
  pendingLines = "";
  pendingCount = 0;
  stdoutLines.write(text, count);
}

/**
 * Resolves once stdout has taken what was written to it, or after {@linkcode FLUSH_WAIT_MS}:
 * `process.exit` drops what a pipe has not taken. Reports dropped lines on stderr.
 */
function stdoutFlushed(): Promise<void> {
  flushLines();
  stdoutLines.sayDropped();
  if (stdoutClosed || process.stdout.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_WAIT_MS);
    process.stdout.write("", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
