/**
 * sluice's gateway on Deno (`@sluice/mcp/deno`), served by `Deno.serve`: the front (`/mcp/<server>`,
 * both eras, `GET /healthz`, `GET /servers`) with the legacy-capable client, so policies may use
 * `era: "legacy"` or `"auto"` and stdio servers (with `--allow-run`). A module whose default export
 * is `createGateway(...)` runs as it is under `deno serve` and on Deno Deploy:
 *
 * ```ts ignore
 * // main.ts; run: deno serve --host 127.0.0.1 --allow-net --allow-env=SLUICE_STATE_KEY main.ts
 * import { createGateway } from "@sluice/mcp/deno";
 * export default createGateway({
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * ```
 *
 * `deno serve` listens on every interface unless given `--host`; the gateway still answers only
 * loopback names from this machine unless `allowedHosts` and `auth` say otherwise. On Deno Deploy
 * (`DENO_DEPLOYMENT_ID` set) every delivered `Host` is the deployment's own, so `allowedHosts`
 * defaults to `"routed"` and `auth` is required. Without `--allow-env`, variables read as unset.
 *
 * @example
 * ```ts
 * import { serve } from "@sluice/mcp/deno";
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
import {
  type Listener,
  listenError,
  listenUrl,
  type RunningGateway,
  serveGateway,
  type ServeOptions,
} from "./serve-options.ts";
import { drainFront } from "../front/create-front.ts";
import { STATE_KEY_VARIABLE } from "../_internal/secret-key.ts";

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

/** The parts of the `Deno` global this entry uses (the library type-checks without Deno's types). */
interface DenoRuntime {
  readonly pid: number;
  readonly env: { get(name: string): string | undefined };
  addSignalListener(signal: Signal, handler: () => void): void;
  removeSignalListener(signal: Signal, handler: () => void): void;
  kill(pid: number, signal: Signal): void;
  unrefTimer(id: number): void;
  readonly stdout?: { isTerminal?(): boolean };
  readonly errors: Readonly<Record<string, (abstract new (...args: never[]) => Error) | undefined>>;
  serve(
    options: { port: number; hostname: string; onListen: (address: unknown) => void },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): {
    readonly addr: { readonly port: number };
    readonly finished: Promise<void>;
    shutdown(): Promise<void>;
  };
}

type Signal = "SIGINT" | "SIGTERM";

function deno(): DenoRuntime {
  const runtime = (globalThis as { Deno?: DenoRuntime }).Deno;
  if (runtime === undefined) {
    throw new TypeError(
      `@sluice/mcp/deno: no "Deno" global, expected the Deno runtime (on Node use @sluice/mcp/node)`,
    );
  }
  return runtime;
}

/** Reads a variable; without `--allow-env` (or outside its allow-list) it reads as unset. */
function environment(name: string): string | undefined {
  const read = readVariable(name);
  return read === DENIED ? undefined : read;
}

/** What {@linkcode readVariable} gives for a variable Deno was not allowed to read. */
const DENIED = Symbol("denied");

function readVariable(name: string): string | undefined | typeof DENIED {
  const runtime = deno();
  try {
    return runtime.env.get(name);
  } catch (error) {
    const { NotCapable, PermissionDenied } = runtime.errors;
    if (NotCapable !== undefined && error instanceof NotCapable) return DENIED;
    if (PermissionDenied !== undefined && error instanceof PermissionDenied) return DENIED;
    throw error;
  }
}

/**
 * Creates a gateway without listening: export it as the module's default for `deno serve` and
 * Deno Deploy, or call `gateway.fetch` yourself.
 *
 * @param options Policies, handler, state key and the rest.
 * @returns The gateway.
 * @throws {TypeError} When not on Deno, when no state key is given nor readable from `SLUICE_STATE_KEY`,
 *   on Deno Deploy without `auth`, or the options are invalid.
 * @throws {PolicyError} When a policy does not compile.
 * @example
 * ```ts
 * import { createGateway } from "./deno.ts";
 * const gateway = createGateway({
 *   stateKey: crypto.getRandomValues(new Uint8Array(32)),
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * const health = await gateway.fetch(new Request("http://gateway.local/healthz"));
 * console.log(health.status); // 200
 * await gateway.client.close();
 * ```
 */
export function createGateway(options: GatewayOptions): DenoGateway {
  deno();
  // Not "unset": the key may be set, and saying so would send the operator to the wrong place.
  if (options.stateKey === undefined && readVariable(STATE_KEY_VARIABLE) === DENIED) {
    throw new TypeError(
      `@sluice/mcp/deno: "${STATE_KEY_VARIABLE}" cannot be read: Deno was not allowed to read it, expected --allow-env (or --allow-env=${STATE_KEY_VARIABLE}), or the "stateKey" option`,
    );
  }
  // Deno Deploy delivers only its own domains' requests, and is on the internet.
  const onDeploy = environment(DEPLOYMENT_VARIABLE) !== undefined;
  // Said here: the front's own error would blame an "allowedHosts" this entry set, not the user.
  if (onDeploy && options.auth === undefined) {
    throw new TypeError(
      `@sluice/mcp/deno: on Deno Deploy ("${DEPLOYMENT_VARIABLE}" is set) the gateway is on the internet, so "auth" is required: give bearer secrets ({ bearer: [{ secret, subject }] }), JWT settings ({ jwt: { issuer, jwks } }) or a function, or "none" to let anyone in`,
    );
  }
  const gateway = selfHostedGateway(
    onDeploy && options.allowedHosts === undefined ? { ...options, allowedHosts: "routed" } : options,
    { environment, terminal: deno().stdout?.isTerminal?.() === true, peerAddress },
  );
  let inFlight = 0;
  let settled: (() => void) | undefined;
  const answered = () => {
    if (--inFlight === 0) settled?.();
  };
  return Object.freeze({
    ...gateway,
    fetch: async (request: Request, env?: unknown, ctx?: unknown): Promise<Response> => {
      inFlight++;
      let response: Response;
      try {
        response = await gateway.fetch(request, env, ctx as never);
      } catch (error) {
        answered();
        throw error;
      }
      // Answered once sent whole (Deno's `completed`): a streamed response is still being written
      // when returned, and closing the client then would end it.
      const completed = (env as { completed?: unknown } | undefined)?.completed;
      if (completed instanceof Promise) completed.then(answered, answered);
      else answered();
      return response;
    },
    onListen: (address: unknown) =>
      closeOnSignal(
        gateway,
        address,
        () => inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => void (settled = resolve)),
      ),
  });
}

/** A gateway for `deno serve`: a {@linkcode Gateway} that closes itself on the first signal. */
export interface DenoGateway extends Gateway {
  /**
   * Called by `deno serve` (or `Deno.serve`) once it listens: says where on stderr, and on the first
   * SIGINT or SIGTERM closes the gateway once requests in flight have answered (a stdio child or a
   * legacy stream would otherwise keep the process alive). Calls waiting on a 2025 host's answer are
   * cancelled. A process still running a second later gets the signal again.
   *
   * @param address Where it listens (`Deno.NetAddr`).
   */
  onListen(address: unknown): void;
}

/** See {@linkcode DenoGateway.onListen}. */
function closeOnSignal(gateway: Gateway, address: unknown, answered: () => Promise<void>): void {
  const runtime = deno();
  const { hostname, port } = address as { hostname?: unknown; port?: unknown };
  if (typeof hostname === "string" && typeof port === "number") {
    console.error(`sluice gateway (deno serve): Listening on ${listenUrl(hostname, port)}/`);
  }
  const signals: readonly Signal[] = ["SIGINT", "SIGTERM"];
  const heard = (signal: Signal) => () => {
    for (const one of signals) runtime.removeSignalListener(one, listeners[one]);
    // deno serve stops listening at the signal, so callers' answers cannot come.
    const drained = drainFront(gateway.app, { answersCanCome: false }).then(answered);
    void drained.finally(() => gateway.client.close()).finally(() => {
      const again = setTimeout(() => {
        try {
          runtime.kill(runtime.pid, signal);
        } catch {
          // Without --allow-run the signal cannot be raised again: the process runs on.
        }
      }, 1000);
      runtime.unrefTimer(again as unknown as number);
    });
  };
  const listeners: Record<Signal, () => void> = { SIGINT: heard("SIGINT"), SIGTERM: heard("SIGTERM") };
  try {
    for (const one of signals) runtime.addSignalListener(one, listeners[one]);
  } catch {
    // Where signals cannot be heard (Deno Deploy, SIGTERM on Windows), nothing is closed on them.
    for (const one of signals) {
      try {
        runtime.removeSignalListener(one, listeners[one]);
      } catch {
        // never added
      }
    }
  }
}

/** The address a request came from, from `Deno.serve`'s handler info (none on a Unix socket). */
function peerAddress(_request: Request, info: unknown): string | undefined {
  const hostname = (info as { remoteAddr?: { hostname?: unknown } } | undefined)?.remoteAddr?.hostname;
  return typeof hostname === "string" ? hostname : undefined;
}

/** Set by Deno Deploy in every deployment (readable with `--allow-env`). */
const DEPLOYMENT_VARIABLE = "DENO_DEPLOYMENT_ID";

/**
 * Creates a gateway and serves it with `Deno.serve`; resolves once it listens.
 *
 * @param options The gateway's options, and `port`, `hostname`, `signal`.
 * @returns The running gateway: its `url`, and `close()`.
 * @throws {TypeError} When not on Deno, when no state key is found, or `port` or the other options are invalid.
 * @throws {Error} When the port cannot be bound (in use, not permitted), naming the address.
 * @example
 * ```ts
 * import { serve } from "./deno.ts";
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
  const runtime = deno();
  let server: ReturnType<DenoRuntime["serve"]>;
  try {
    // onListen replaces Deno's "Listening on ..." log line; the caller has `url`.
    server = runtime.serve(
      { ...address, onListen: () => {} },
      (request, info) => gateway.fetch(request, info),
    );
  } catch (error) {
    return Promise.reject(listenError(address, error));
  }
  return Promise.resolve({
    port: server.addr.port,
    stop: async () => {
      await server.shutdown();
      await server.finished;
    },
  });
}
