/**
 * What the self-hosted entries (`@sluice/mcp/node`, `/deno`, `/bun`) share: the options of
 * `serve()`, the running gateway it returns, and the steps around the runtime's own listen call
 * (port and hostname defaults, the abort signal, an idempotent `close()`).
 *
 * @module
 */
import { type Gateway, GATEWAY_OPTION_KEYS, type GatewayOptions } from "./gateway.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { isLoopbackHost } from "../front/guard.ts";
import { drainFront } from "../front/create-front.ts";
import { closingRefusal, SESSION_HEADER } from "../front/legacy-callers.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";

/** The port used when neither the `port` option nor the `PORT` variable gives one. */
export const DEFAULT_PORT = 8787;

/**
 * What can be listened on: a host name (`_` allowed, as container names have it), an IPv4 address,
 * or an IPv6 one (two colons at least), bracketed or not, with a zone or not.
 */
const IPV6 = String.raw`[\da-f.]*(?::[\da-f.]*){2,}(?:%[\w.-]+)?`;
const HOSTNAME = new RegExp(
  String.raw`^(?:\w(?:[\w-]*\w)?(?:\.\w(?:[\w-]*\w)?)*\.?|${IPV6}|\[${IPV6}\])$`,
  "i",
);

/** The interface listened on when no `hostname` is given: loopback only. */
export const DEFAULT_HOSTNAME = "127.0.0.1";

/** The environment variable read for the port when the `port` option is absent. */
export const PORT_VARIABLE = "PORT";

/**
 * How long an idle caller connection stays open on Node and Bun: longer than callers keep theirs (a
 * load balancer's 60 s), so the caller closes first and never sends a POST on a closing socket.
 */
export const KEEP_ALIVE_MS = 65_000;

/** Options of `serve()`: the gateway's, and where to listen. */
export interface ServeOptions extends GatewayOptions {
  /**
   * The TCP port; `0` picks a free one (read the real one from `url`).
   * @default the `PORT` environment variable when set (it must be a port, 0 to 65535), else 8787
   */
  readonly port?: number | undefined;
  /**
   * The interface to listen on. The default accepts connections from this machine only;
   * `"0.0.0.0"` (or `"::"`) exposes the gateway, and the servers behind it, to the network: then
   * `allowedHosts` and `auth` are required (`auth: "none"` starts, with a warning each time).
   * @default "127.0.0.1"
   */
  readonly hostname?: string | undefined;
  /** Aborting it closes the gateway, as `close()` does. @default none */
  readonly signal?: AbortSignal | undefined;
}

/** A gateway that listens: its address, and how to stop it. */
export interface RunningGateway extends Gateway {
  /** Where it listens, with the port actually bound: `http://127.0.0.1:8787`. */
  readonly url: string;
  /**
   * Closes the gateway: ends 2025 callers' standalone GET streams and refuses new requests (`503`)
   * while still taking those callers' answers their calls in flight wait for; then stops accepting
   * connections, lets requests in flight finish, and closes the client. On Node it then waits (5 s
   * at most) for stdout to take the decision lines. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** A runtime's server once it listens. */
export interface Listener {
  /** The port actually bound. */
  readonly port: number;
  /** Stops listening and resolves once the server has closed. */
  stop(): Promise<void>;
  /** Resolves, within a bound, once the Node entry's decision lines have left the process. */
  flush?(): Promise<void>;
}

/** Starts a runtime's server for `gateway` on `port` and `hostname`; resolves once it listens. */
export type Listen = (gateway: Gateway, address: { port: number; hostname: string }) => Promise<Listener>;

/**
 * Chooses the port: the option when given, else `PORT` when set, else 8787.
 *
 * @param port The `port` option.
 * @param environment Reads an environment variable.
 * @returns The port to listen on (0: any free port).
 * @throws {TypeError} When the option or `PORT` is not an integer from 0 to 65535.
 * @example
 * ```ts
 * import { resolvePort } from "./serve-options.ts";
 * console.log(resolvePort(undefined, (name) => name === "PORT" ? "3000" : undefined)); // 3000
 * ```
 */
export function resolvePort(
  port: number | undefined,
  environment: (name: string) => string | undefined,
): number {
  if (port !== undefined) {
    if (Number.isInteger(port) && port >= 0 && port <= 65535) return port;
    throw new TypeError(`sluice serve(): "port" must be an integer from 0 to 65535, received "${port}"`);
  }
  const value = environment(PORT_VARIABLE)?.trim() ?? "";
  if (value === "") return DEFAULT_PORT;
  if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) return Number(value);
  throw new TypeError(
    `sluice serve(): ${PORT_VARIABLE} must be an integer from 0 to 65535, received ${
      JSON.stringify(value.slice(0, 32))
    }`,
  );
}

/**
 * Formats the URL of a listening server, bracketing an IPv6 address: `http://[::1]:8787`.
 *
 * @param hostname The interface listened on.
 * @param port The port bound.
 * @returns The URL, without a trailing slash.
 * @example
 * ```ts
 * import { listenUrl } from "./serve-options.ts";
 * console.log(listenUrl("127.0.0.1", 8787)); // "http://127.0.0.1:8787"
 * ```
 */
export function listenUrl(hostname: string, port: number): string {
  const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}

/**
 * Describes a failure to listen, naming the address and the system's code (`EADDRINUSE`) when
 * there is one; the original error is the `cause`.
 *
 * @param address The hostname and port asked for.
 * @param error What the runtime threw or emitted.
 * @returns The error to reject with.
 * @example
 * ```ts
 * import { listenError } from "./serve-options.ts";
 * const failure = Object.assign(new Error("address in use"), { code: "EADDRINUSE" });
 * console.log(listenError({ hostname: "127.0.0.1", port: 8787 }, failure).message);
 * // sluice serve(): cannot listen on "127.0.0.1" port "8787": EADDRINUSE, expected a free port this process may bind
 * ```
 */
export function listenError(
  address: { readonly hostname: string; readonly port: number },
  error: unknown,
): Error {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const reason = typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  // A name that does not resolve, or an address that is not this machine's (Bun says EINVAL for
  // both): the host is wrong, not the port.
  const expected =
    code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EADDRNOTAVAIL" || code === "EINVAL"
      ? "expected a name or address of this machine"
      : "expected a free port this process may bind";
  return new Error(
    `sluice serve(): cannot listen on "${address.hostname}" port "${address.port}": ${reason}, ${expected}`,
    { cause: error },
  );
}

/**
 * Builds a gateway and listens with the runtime's `listen`. Nothing is built when the options are
 * invalid or the signal is already aborted; the client is closed again when listening fails.
 *
 * @param options The serve options.
 * @param parts How this runtime builds a gateway, reads the environment, and listens.
 * @returns The running gateway.
 * @throws {TypeError} When `port` or `hostname` is invalid, or the gateway options are.
 * @throws {unknown} The signal's reason when it is already aborted; the listen error when listening fails.
 * @example
 * ```ts
 * import { serveGateway } from "./serve-options.ts";
 * const signal = AbortSignal.abort(new Error("not now"));
 * const parts = {
 *   createGateway: () => { throw new Error("never built"); },
 *   environment: () => undefined,
 *   listen: () => Promise.reject(new Error("never listens")),
 * };
 * await serveGateway({ policies: [], signal }, parts).catch((e) => console.log(e.message)); // "not now"
 * ```
 */
export async function serveGateway(
  options: ServeOptions,
  parts: {
    readonly createGateway: (options: GatewayOptions) => Gateway;
    readonly environment: (name: string) => string | undefined;
    readonly listen: Listen;
  },
): Promise<RunningGateway> {
  if (typeof options === "object" && options !== null) {
    checkOptionKeys(options, [...GATEWAY_OPTION_KEYS, "port", "hostname", "signal"], "sluice serve()");
  }
  const { port: portOption, hostname: hostnameOption, signal, ...gatewayOptions } = options;
  signal?.throwIfAborted();
  const port = resolvePort(portOption, parts.environment);
  const hostname = hostnameOption ?? DEFAULT_HOSTNAME;
  if (typeof hostname !== "string" || !HOSTNAME.test(hostname)) {
    throw new TypeError(
      `sluice serve(): "hostname" must be a host name or an IP address to listen on, received ${
        JSON.stringify(hostname)
      }`,
    );
  }
  if (!isLoopbackHost(hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname)) {
    exposedProblems(hostname, port, gatewayOptions);
  }
  const gateway = parts.createGateway(gatewayOptions);
  let draining = false;
  // While closing, only 2025 session requests pass (calls in flight may wait for the caller's answer,
  // a new POST); the sessions refuse new requests themselves.
  const served: Gateway = {
    ...gateway,
    fetch: (request, env, ctx) =>
      draining && !ofLegacySession(request) ? closingRefusal(null) : gateway.fetch(request, env, ctx),
  };
  let listener: Listener;
  try {
    // Node's listen() takes no brackets around an IPv6 address (Deno's and Bun's take either).
    listener = await parts.listen(served, { port, hostname: hostname.replace(/^\[(.*)\]$/, "$1") });
  } catch (error) {
    await gateway.client.close().catch(() => {});
    throw error;
  }
  let closing: Promise<void> | undefined;
  const onAbort = (): void => void close().catch(() => {});
  const close = (): Promise<void> => {
    signal?.removeEventListener("abort", onAbort);
    if (closing === undefined) {
      draining = true;
      closing = drainFront(gateway.app).then(() => listener.stop()).finally(() => gateway.client.close())
        .finally(() => listener.flush?.());
    }
    return closing;
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted === true) onAbort();
  return Object.freeze({ ...served, url: listenUrl(hostname, listener.port), close });
}

/** Whether a request is a 2025 caller's on its session (`Mcp-Session-Id`, not the 2026 version). */
function ofLegacySession(request: Request): boolean {
  const { headers } = request;
  return headers.has(SESSION_HEADER) && headers.get("mcp-protocol-version") !== MODERN_PROTOCOL_VERSION;
}

/**
 * The rules for a gateway listening where the network reaches it: it must know the names it is
 * reached by (`allowedHosts`) and who may call it (`auth`); `auth: "none"` starts, loudly.
 */
function exposedProblems(hostname: string, port: number, options: GatewayOptions): void {
  // Port 0 is picked by the system only later, when the gateway binds.
  const reached = port === 0 ? "its port (a free one, picked as it binds)" : `port "${port}"`;
  if (options.allowedHosts === undefined) {
    throw new TypeError(
      `sluice serve(): listening on "${hostname}" answers the network: set "allowedHosts" (the command's --allowed-hosts) to the names clients reach it by, such as ["gate.example.com"] (other Host values are refused, against DNS rebinding)`,
    );
  }
  if (options.auth === undefined) {
    throw new TypeError(
      `sluice serve(): listening on "${hostname}" needs "auth" (the command's --auth, SLUICE_BEARER_TOKENS or --public): bearer secrets ({ bearer: [{ secret, subject }] }), JWT settings ({ jwt: { issuer, jwks } }) or a function; or auth: "none" (the command's --public) to let anyone who reaches ${reached} call every server with the credentials its policies hold`,
    );
  }
  if (options.auth === "none") {
    console.warn(
      `sluice serve(): WARNING: listening on "${hostname}" with auth: "none": anyone who reaches ${reached} can call every server behind this gateway, with the credentials its policies hold`,
    );
  }
}
