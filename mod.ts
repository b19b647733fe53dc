/**
 * sluice: the client side of the Model Context Protocol, answering what MCP servers ask of the
 * client (sampling, elicitation, roots) safely and per server. This is the edge entry: Web
 * standards only, so it runs on Cloudflare Workers, Deno Deploy, Bun, Deno and Node.
 *
 * The root holds the public contract (`createClient`, `defineHandler`, `definePolicy`,
 * `ClientError`, `sanitizeText`, `createFront`, `remoteHandler`, `handlerApp`), the types of what
 * a user passes to it and gets back, and `openTelemetryDecisions`, the listener the README gives
 * `client.onDecision` to record decisions as spans and metrics, and the sign-in errors
 * (`UpstreamAuthError`, `SignInRequiredError`, `signInRequiredBy`) that a client's calls and
 * `beginAuthorization`/`completeAuthorization` reject with, so that a caller can find the URL to
 * open when a server needs a sign-in. The wire types of the protocol
 * (tool results, sampling and elicitation params, …) are in `@sluice/mcp/types`.
 *
 * @example
 * ```ts
 * import { createClient, definePolicy } from "@sluice/mcp";
 * const github = definePolicy({ server: "github", transport: { url: "https://mcp.example.com/mcp" } });
 * const client = createClient({ name: "my-agent", policies: [github] });
 * console.log(client.servers()); // ["github"]
 * await client.close();
 * ```
 *
 * @module
 */
export { ClientError, type ClientErrorDetails, type ClientErrorKind } from "./src/errors.ts";
// What createClient() (and the entries made on it) throws for policies that do not compile: its
// `problems` list each one, for a caller that reports them its own way.
export { PolicyError, type PolicyProblem } from "./src/policy/policy-error.ts";
export {
  type AccessRule,
  type ClientCredentialsAuth,
  definePolicy,
  type ElicitationPolicy,
  type HandlerTimeoutPolicy,
  type HttpTransport,
  type LogLevel,
  type OAuthSignIn,
  type Policy,
  type RateOption,
  type SamplingPolicy,
  type StdioTransport,
  type UpstreamAuth,
} from "./src/policy/policy.ts";
export type { Duration } from "./src/policy/duration.ts";
export {
  type Answer,
  type AuthorizationPrompt,
  type AuthorizeAnswer,
  type AuthorizeContext,
  defineHandler,
  type ElicitationContext,
  type FormElicitationContext,
  type Handler,
  type HandlerError,
  type InputChange,
  type InputContext,
  type LogEntry,
  type NotificationContext,
  type Principal,
  type UrlElicitationContext,
} from "./src/handler/handler.ts";
export type { Deferral } from "./src/handler/deferral.ts";
export { createClient } from "./src/client/create-client.ts";
export type {
  CallOptions,
  Client,
  ClientOptions,
  ListOptions,
  SignInOptions,
  ToolCallOptions,
} from "./src/client/client-types.ts";
export type { TokenStore } from "./src/auth/token-store.ts";
export type { RateLimitStore } from "./src/limits/rate-limit-store.ts";
export type { Rate, TakeResult } from "./src/limits/token-bucket.ts";
export type { Timers } from "./src/_internal/timers.ts";
export type { Clock } from "./src/_internal/clock.ts";
export { signInRequiredBy, SignInRequiredError, UpstreamAuthError } from "./src/upstream-auth-error.ts";
export type {
  CallDecision,
  Decision,
  DecisionChange,
  DecisionListener,
  InputDecision,
} from "./src/chain/decision.ts";
export { type OpenTelemetryApi, openTelemetryDecisions } from "./src/chain/opentelemetry.ts";
export { sanitizeText } from "./src/notify/sanitize-text.ts";
export type {
  LogNotificationEntry,
  NotificationEntry,
  ServerNotificationEntry,
} from "./src/notify/notification-entry.ts";
export type { NotificationStats } from "./src/notify/notification-queue.ts";
export { createFront, type FrontOptions } from "./src/front/create-front.ts";
export {
  type HandlerEndpoint,
  type HandlerKind,
  remoteHandler,
  type RemoteHandlerOptions,
  type RemoteTarget,
} from "./src/handler/remote-handler.ts";
export { handlerApp, type HandlerAppOptions } from "./src/handler/handler-app.ts";
