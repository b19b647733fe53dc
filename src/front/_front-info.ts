/**
 * What the front says about itself: `server/discover` (sluice's own, listing what the upstream
 * offers) and `GET /servers` (ids, eras, declared capabilities and limits; never credentials or
 * URLs with them).
 *
 * @module
 */
import type { ServerSession } from "../client/server-session.ts";
import { SLUICE_VERSION } from "../client/client-core.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { FrontServer } from "./front-server.ts";

const OFFERED = ["tools", "resources", "prompts", "completions"] as const;

/**
 * The front's `server/discover` result: the upstream's tools, resources and prompts
 * capabilities, as the front serves them in 2026-07-28.
 *
 * @param session The upstream's session.
 * @param signal Aborts the upstream request.
 * @returns The result object.
 */
export async function frontDiscover(session: ServerSession, signal: AbortSignal): Promise<JsonObject> {
  const upstream = (await session.offer(signal)).capabilities;
  const capabilities: Record<string, unknown> = {};
  for (const name of OFFERED) if (upstream[name] !== undefined) capabilities[name] = upstream[name];
  return {
    resultType: "complete",
    supportedVersions: [MODERN_PROTOCOL_VERSION],
    capabilities,
    ttlMs: 0,
    cacheScope: "private",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-front", version: SLUICE_VERSION } },
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
