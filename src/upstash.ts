/**
 * `@sluice/mcp/upstash`: a rate-limit store and a token store shared across isolates and machines,
 * over Upstash Redis. Web standards only: they run on Cloudflare Workers, Deno Deploy, Bun, Deno and
 * Node. They fail closed: when Redis cannot answer within `timeoutMs`, an operation rejects with
 * `StoreUnavailableError`. The token store encrypts every value; changing its `key` signs everyone
 * out. Deno needs `--allow-env` (`@upstash/redis` reads `UPSTASH_DISABLE_TELEMETRY`, `UPSTASH_CONSOLE`).
 *
 * @example
 * ```ts
 * import { Redis } from "@upstash/redis";
 * import { createUpstashStore, createUpstashTokenStore, StoreUnavailableError } from "@sluice/mcp/upstash";
 *
 * const redis = new Redis({ url: "https://eu1-example.upstash.io", token: "secret" });
 * const store = createUpstashStore({ redis, prefix: "my-agent:ratelimit", timeoutMs: 500 });
 * // The key comes from the environment (`openssl rand -base64 32`), like the state key.
 * const tokens = createUpstashTokenStore({ redis, key: "an example secret, at least 32 bytes long" });
 * async function allowed(serverId: string): Promise<boolean> {
 *   try {
 *     return (await store.take(serverId, { rate: 10, perMs: 1000, burst: 20 })).allowed;
 *   } catch (error) {
 *     if (error instanceof StoreUnavailableError) return false; // fail closed
 *     throw error;
 *   }
 * }
 * async function remember(principal: string, accessToken: string): Promise<void> {
 *   await tokens.set(`token:github:${principal}`, accessToken, 3_600_000); // encrypted, gone in an hour
 * }
 * ```
 *
 * @module
 */
export {
  createUpstashStore,
  type UpstashRedis,
  type UpstashStore,
  type UpstashStoreOptions,
} from "./limits/upstash-store.ts";
export {
  createUpstashTokenStore,
  type UpstashTokenRedis,
  type UpstashTokenStoreOptions,
} from "./auth/upstash-token-store.ts";
export type { TokenStore } from "./auth/token-store.ts";
export { type RateLimitStore, StoreUnavailableError } from "./limits/rate-limit-store.ts";
export type { Rate, TakeResult } from "./limits/token-bucket.ts";
