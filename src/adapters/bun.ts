/**
 * sluice's gateway on Bun (`@sluice/mcp/bun`), served by `Bun.serve`: the front (`/mcp/<server>`,
 * both eras, `GET /healthz`, `GET /servers`) with the legacy-capable client, so policies may use
 * `era: "legacy"` or `"auto"` and stdio servers. Bun's 10 s idle timeout is lifted once a request's
 * body is read (a stalled body is still cut off), so a waiting call is bounded by the policy's
 * `maxTotalTimeout` instead; once the answer is written the connection may idle 65 s.
 *
 * @example
 * ```ts ignore
 * // Runs on Bun only.
 * import { serve } from "@sluice/mcp/bun";
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
import type { Gateway, GatewayOptions } from "./gateway.ts";
import { selfHostedGateway } from "./_self-hosted.ts";
import { BODY_READ } from "../front/entry-bindings.ts";
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

/** A server made by `Bun.serve`, as far as this entry uses it. */
interface BunServer {
  readonly port: number;
  /** Sets the idle timeout of one request's connection, in seconds; 0 disables it. */
  timeout(request: Request, seconds: number): void;
  /** The address a request came from; `null` on a Unix socket. */
  requestIP(request: Request): { readonly address: string } | null;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}

/** The parts of the `Bun` global this entry uses (the library type-checks without Bun's types). */
interface BunRuntime {
  readonly env: Readonly<Record<string, string | undefined>>;
  serve(options: {
    port: number;
    hostname: string;
    fetch: (request: Request, server: BunServer) => Response | Promise<Response>;
  }): BunServer;
}

function bun(): BunRuntime {
  const runtime = (globalThis as { Bun?: BunRuntime }).Bun;
  if (runtime === undefined) {
    throw new TypeError(
      `@sluice/mcp/bun: no "Bun" global, expected the Bun runtime (on Node use @sluice/mcp/node)`,
    );
  }
  return runtime;
}

/** Whether stdout is a terminal (Bun has Node's `process`). */
function onTerminal(): boolean {
  const global = globalThis as { process?: { stdout?: { isTTY?: boolean } } };
  return global.process?.stdout?.isTTY === true;
}

/** Reads `Bun.env`, or `process.env` where there is no `Bun` (so `createGateway` runs anywhere). */
function environment(name: string): string | undefined {
  const global = globalThis as { Bun?: BunRuntime; process?: { env: BunRuntime["env"] } };
  return (global.Bun?.env ?? global.process?.env)?.[name];
}

/**
 * Creates a gateway without listening: pass `gateway.fetch` to your own `Bun.serve`, or mount
 * `gateway.app`.
 *
 * @param options Policies, handler, state key and the rest.
 * @returns The gateway.
 * @throws {TypeError} When no state key is given nor set in `SLUICE_STATE_KEY`, or the options are invalid.
 * @throws {PolicyError} When a policy does not compile.
 * @example
 * ```ts
 * import { createGateway } from "./bun.ts";
 * const gateway = createGateway({
 *   stateKey: crypto.getRandomValues(new Uint8Array(32)),
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * const health = await gateway.fetch(new Request("http://gateway.local/healthz"));
 * console.log(health.status); // 200
 * await gateway.client.close();
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  return selfHostedGateway(options, { environment, terminal: onTerminal(), peerAddress });
}

/** The address a request came from, via the `requestIP` of Bun's server or `serve()`'s bindings. */
function peerAddress(request: Request, server: unknown): string | undefined {
  const requestIP = (server as Partial<Pick<BunServer, "requestIP">> | undefined)?.requestIP;
  return typeof requestIP === "function" ? requestIP.call(server, request)?.address : undefined;
}

/**
 * Creates a gateway and serves it with `Bun.serve`; resolves once it listens.
 *
 * @param options The gateway's options, and `port`, `hostname`, `signal`.
 * @returns The running gateway: its `url`, and `close()`.
 * @throws {TypeError} When not on Bun, when no state key is found, or `port` or the other options are invalid.
 * @throws {Error} When the port cannot be bound (in use, not permitted), naming the address.
 * @example
 * ```ts ignore
 * // Runs on Bun only.
 * import { serve } from "./bun.ts";
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

/** The response, with `written` run once it is all handed to Bun (for an SSE stream, its last event). */
function afterWritten(response: Response, written: () => void): Response {
  const body = response.body;
  if (body === null || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    written();
    return response;
  }
  const { status, statusText, headers } = response;
  return new Response(body.pipeThrough(new TransformStream({ flush: written })), {
    status,
    statusText,
    headers,
  });
}

function listen(gateway: Gateway, address: { port: number; hostname: string }): Promise<Listener> {
  let server: BunServer;
  let requestIP: BunServer["requestIP"] | undefined;
  try {
    server = bun().serve({
      ...address,
      fetch: async (request, self) => {
        const lift = () => self.timeout(request, 0);
        // A request with a body keeps the idle timeout until the front has read it.
        if (request.body === null) lift();
        requestIP ??= (asked) => self.requestIP(asked);
        const response = await gateway.fetch(
          request,
          request.body === null ? self : { requestIP, [BODY_READ]: lift },
        );
        // The idle timeout comes back after the answer, or a vanished caller would hold its socket.
        return afterWritten(response, () => self.timeout(request, KEEP_ALIVE_MS / 1000));
      },
    });
  } catch (error) {
    return Promise.reject(listenError(address, error));
  }
  return Promise.resolve({ port: server.port, stop: async () => await server.stop() });
}
