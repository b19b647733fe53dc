/**
 * What the front says about itself: `server/discover` (sluice's own, listing what the upstream
 * offers) and `GET /servers` (ids, eras, declared capabilities and limits; never credentials or
 * URLs with them).
 *
 * @module
 */
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { ServerSession } from "../client/server-session.ts";
import { SLUICE_VERSION } from "../client/client-core.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { TASKS_EXTENSION } from "../protocol/tasks.ts";
import type { FrontServer } from "./front-server.ts";

const OFFERED = ["tools", "resources", "prompts", "completions"] as const;

/**
 * The front's own implementation info, the same in both eras: `sluice-front`, titled with the
 * server it fronts.
 *
 * @param serverId The server's id.
 * @returns The `serverInfo`.
 */
export function frontServerInfo(serverId: string): { name: string; title: string; version: string } {
  return { name: "sluice-front", title: `sluice: ${serverId}`, version: SLUICE_VERSION };
}

/**
 * What the front offers its caller of what an upstream offers: tools, resources, prompts and
 * completions, without the promises the front does not keep. `listChanged` and `subscribe` stay
 * only where the front relays those notifications: a legacy upstream's, on a legacy caller's
 * GET stream. (It serves no `subscriptions/listen` to modern callers.)
 *
 * @param upstream The upstream's capabilities.
 * @param relaysNotifications Whether the upstream's list changes and resource updates reach this caller.
 * @returns The capabilities to offer.
 * @example
 * ```ts
 * import { offeredCapabilities } from "./_front-info.ts";
 * const upstream = { tools: { listChanged: true }, resources: { subscribe: true }, sampling: {} };
 * console.log(offeredCapabilities(upstream, false)); // { tools: {}, resources: {} }
 * ```
 */
export function offeredCapabilities(
  upstream: Readonly<Record<string, unknown>>,
  relaysNotifications: boolean,
): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  for (const name of OFFERED) {
    const offered = upstream[name];
    if (offered === undefined) continue;
    if (relaysNotifications || typeof offered !== "object" || offered === null) {
      capabilities[name] = offered;
      continue;
    }
    const { listChanged: _changes, subscribe: _subscribe, ...rest } = offered as Record<string, unknown>;
    capabilities[name] = rest;
  }
  return capabilities;
}

/**
 * The front's `server/discover` result: the upstream's tools, resources, prompts and completions
 * as the front serves them in 2026-07-28, `logging` (the front relays the upstream's logs to a
 * caller that asks by its request's logLevel `_meta`), and, of extensions, only a modern
 * upstream's tasks.
 *
 * @param session The upstream's session.
 * @param serverId The server's id.
 * @param signal Aborts the upstream request.
 * @param fetch The caller's own fetch (its upstream sign-in), for a modern upstream; else the session's.
 * @returns The result object.
 */
export async function frontDiscover(
  session: ServerSession,
  serverId: string,
  signal: AbortSignal,
  fetch?: Fetcher,
): Promise<JsonObject> {
  const offer = await session.offer(signal, fetch);
  const upstream = offer.capabilities;
  const capabilities: Record<string, unknown> = { logging: {}, ...offeredCapabilities(upstream, false) };
  const extensions = upstream.extensions as Record<string, unknown> | undefined;
  if (session.era === "modern" && extensions?.[TASKS_EXTENSION] !== undefined) {
    capabilities.extensions = { [TASKS_EXTENSION]: extensions[TASKS_EXTENSION] };
  }
  return {
    resultType: "complete",
    supportedVersions: [MODERN_PROTOCOL_VERSION],
    capabilities,
    // The server's guidance for the model, as a 2025 host gets it in its initialize result.
    ...(offer.instructions === undefined ? {} : { instructions: offer.instructions }),
    ttlMs: 0,
    cacheScope: "private",
    _meta: { "io.modelcontextprotocol/serverInfo": frontServerInfo(serverId) },
  };
}

/**
 * `GET /servers`: per server, its id, era, transport kind, the origin URL elicitations are
 * compared with, declared capabilities and limits.
 *
 * @param servers The front's servers.
 * @returns The listing.
 */
export function frontServerList(servers: ReadonlyMap<string, FrontServer>): JsonObject {
  return {
    servers: [...servers.values()].map(({ policy, chain }) => ({
      id: policy.server,
      era: policy.era,
      transport: policy.transport.kind,
      // The origin URL elicitations are compared with (scheme, host, port: no path, no
      // credentials), so a page can tell its user whether a URL leads to the server's own site.
      elicitationOrigin: policy.elicitation.origin ?? null,
      capabilities: chain.capabilities(MODERN_PROTOCOL_VERSION),
      passDown: policy.passDown,
      limits: {
        inputRateLimit: policy.inputRateLimit,
        maxRounds: policy.maxRounds,
        callTimeoutMs: policy.callTimeoutMs,
        maxTotalTimeoutMs: policy.maxTotalTimeoutMs,
        stateTtlMs: policy.stateTtlMs,
        maxMessageBytes: policy.maxMessageBytes,
        maxEventBytes: policy.maxEventBytes,
        maxJsonDepth: policy.maxJsonDepth,
        maxInputRequests: policy.maxInputRequests,
        sampling: { maxTokens: policy.sampling.maxTokens },
      },
    })),
  };
}
