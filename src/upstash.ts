/**
 * `@sluice/mcp/upstash`: a rate-limit store shared across isolates and machines, over Upstash
 * Redis (`@upstash/ratelimit` and `@upstash/redis`, optional peer dependencies). Web standards
 * only: it runs on Cloudflare Workers, Deno Deploy, Bun, Deno and Node. It fails closed: when
 * Redis cannot answer within `timeoutMs`, a take rejects with `StoreUnavailableError` and the
 * budget refuses.
 *
 * Deno asks for `--allow-env`: `@upstash/redis` reads `UPSTASH_DISABLE_TELEMETRY` and
 * `UPSTASH_CONSOLE` from the environment.
 *
 * @example
 * ```ts
 * import { Redis } from "@upstash/redis";
 * import { createUpstashStore, StoreUnavailableError } from "@sluice/mcp/upstash";
 *
 * const store = createUpstashStore({
 *   redis: new Redis({ url: "https://eu1-example.upstash.io", token: "secret" }),
 *   prefix: "my-agent:ratelimit",
 *   timeoutMs: 500,
 * });
 * async function allowed(serverId: string): Promise<boolean> {
 *   try {
 *     return (await store.take(serverId, { rate: 10, perMs: 1000, burst: 20 })).allowed;
 *   } catch (error) {
 *     if (error instanceof StoreUnavailableError) return false; // fail closed
 *     throw error;
 *   }
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
export { type RateLimitStore, StoreUnavailableError } from "./limits/rate-limit-store.ts";
export type { Rate, TakeResult } from "./limits/token-bucket.ts";
