/**
 * What `sluice serve` prints once it listens: the address, each route as a URL a caller can use,
 * who may call, and how to stop it.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { GatewayAuth } from "../front/downstream-auth.ts";
import { isLoopbackHost } from "../front/guard.ts";
import { show } from "./_args.ts";

/**
 * The banner of a running `sluice serve`: where it listens, then the routes at the URL callers use
 * (see `callerBase`).
 *
 * @param url Where it listens (`http://0.0.0.0:8841`).
 * @param options The policies served, who may call (`auth`), and the host names answered.
 * @returns The lines, each ending in a newline.
 * @example
 * ```ts
 * import { serveBanner } from "./_serve-banner.ts";
 * const text = serveBanner("http://0.0.0.0:8841", { policies: [], auth: "none", allowedHosts: ["gate.example.com"] });
 * console.log(text.split("\n")[1]); // "  GET  http://gate.example.com:8841/servers  the servers, their capabilities and limits"
 * ```
 */
export function serveBanner(
  url: string,
  options: {
    readonly policies: readonly CompiledPolicy[];
    readonly auth?: GatewayAuth | undefined;
    readonly allowedHosts?: readonly string[] | "routed" | undefined;
  },
): string {
  const { policies, auth } = options;
  const base = callerBase(url, options.allowedHosts);
  const width = Math.max(...policies.map((p) => `${base}/mcp/${p.server}`.length), `${base}/healthz`.length) +
    2;
  const lines = [
    `sluice front listening on ${url}`,
    ...policies.map((p) =>
      `  POST ${`${base}/mcp/${p.server}`.padEnd(width)}${p.server}: ${p.era}, ${p.transport.kind}`
    ),
    `  GET  ${`${base}/servers`.padEnd(width)}the servers, their capabilities and limits`,
    `  GET  ${`${base}/healthz`.padEnd(width)}health check`,
    `  GET  ${`${base}/`.padEnd(width)}the playground: call a tool and answer what the server asks, by hand`,
    `Callers: ${describeAuth(auth)}`,
    "Stop with Ctrl-C (SIGINT) or SIGTERM.",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * The URL callers reach the front by: the listening one on a loopback name, else the first allowed
 * host (`0.0.0.0` or a LAN address would be refused `403`) with the listening port or the entry's
 * own (a proxy's). The scheme stays the listener's: a proxy's HTTPS is not known here.
 */
function callerBase(url: string, allowedHosts: readonly string[] | "routed" | undefined): string {
  const listening = new URL(url);
  const first = Array.isArray(allowedHosts) ? allowedHosts[0]?.trim().toLowerCase() : undefined;
  if (first === undefined || first === "" || isLoopbackHost(listening.host)) return url;
  const port = /:\d+$/.test(first) || listening.port === "" ? "" : `:${listening.port}`;
  return `${listening.protocol}//${first}${port}`;
}

/** Who may call, in a line of the banner (never a secret). */
function describeAuth(auth: GatewayAuth | undefined): string {
  if (auth === undefined) return "anyone on this machine (loopback only, no auth)";
  if (auth === "none") return "anyone who reaches the address (auth: none)";
  if (typeof auth === "function") return "checked by the --auth module's function";
  if ("bearer" in auth) {
    const subjects = [...new Set(auth.bearer.map((entry) => entry.subject))];
    return `bearer secrets of ${subjects.map((subject) => show(subject)).join(", ")}`;
  }
  return `OAuth access tokens issued by ${show(auth.jwt.issuer)}`;
}
