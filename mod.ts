/**
 * sluice: the client side of the Model Context Protocol, answering what MCP servers ask of the
 * client (sampling, elicitation, roots) safely and per server. This is the edge entry: Web
 * standards only, so it runs on Cloudflare Workers, Deno Deploy, Bun, Deno and Node.
 *
 * @example
 * ```ts
 * import { compilePolicy, definePolicy } from "@sluice/mcp";
 * const policy = compilePolicy(definePolicy({ server: "github", transport: { url: "https://mcp.example.com/mcp" } }));
 * console.log(policy.sampling.maxTokens); // 4096
 * ```
 *
 * @module
 */
export { ClientError, type ClientErrorDetails, type ClientErrorKind } from "./src/errors.ts";
export {
  definePolicy,
  type ElicitationPolicy,
  type HandlerTimeoutPolicy,
  type HttpTransport,
  type LogLevel,
  type Policy,
  type RateOption,
  type SamplingPolicy,
  type StdioTransport,
} from "./src/policy/policy.ts";
export type { Duration } from "./src/policy/duration.ts";
export {
  checkPolicy,
  type CompiledHttpTransport,
  type CompiledPolicy,
  type CompiledRate,
  type CompiledStdioTransport,
  type CompileOptions,
  compilePolicy,
} from "./src/policy/compile-policy.ts";
export { POLICY_DEFAULTS, type PolicyDefaults } from "./src/policy/policy-defaults.ts";
export { describeProblem, PolicyError, type PolicyProblem } from "./src/policy/policy-error.ts";
export {
  type Answer,
  defineHandler,
  type ElicitationContext,
  type FormElicitationContext,
  type Handler,
  type HandlerError,
  type InputContext,
  type LogEntry,
  type NotificationContext,
  type UrlElicitationContext,
} from "./src/handler/handler.ts";
export {
  type Chain,
  type ChainOptions,
  type ChainResult,
  type ChainStage,
  createChain,
  type RunContext,
} from "./src/chain/chain.ts";
export type { Refusal, Verdict } from "./src/chain/verdict.ts";
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from "./src/limits/memory-store.ts";
export { type RateLimitStore, StoreUnavailableError } from "./src/limits/rate-limit-store.ts";
export type { Rate, TakeResult } from "./src/limits/token-bucket.ts";
