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
  checkPolicy,
  type CompiledClientCredentials,
  type CompiledHttpTransport,
  type CompiledOAuthSignIn,
  type CompiledPolicy,
  type CompiledRate,
  type CompiledStdioTransport,
  type CompiledUpstreamAuth,
  type CompileOptions,
  compilePolicy,
} from "./src/policy/compile-policy.ts";
export { POLICY_DEFAULTS, type PolicyDefaults } from "./src/policy/policy-defaults.ts";
export { describeProblem, PolicyError, type PolicyProblem } from "./src/policy/policy-error.ts";
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
  type InputContext,
  type LogEntry,
  type NotificationContext,
  type Principal,
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
export {
  type CallDecision,
  type Decision,
  type DecisionChange,
  type DecisionListener,
  describeDecision,
  type InputDecision,
} from "./src/chain/decision.ts";
export { type OpenTelemetryApi, openTelemetryDecisions } from "./src/chain/opentelemetry.ts";
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from "./src/limits/memory-store.ts";
export { type RateLimitStore, StoreUnavailableError } from "./src/limits/rate-limit-store.ts";
export type { Rate, TakeResult } from "./src/limits/token-bucket.ts";
export { createClient, SLUICE_VERSION } from "./src/client/create-client.ts";
export type {
  CallOptions,
  Client,
  ClientOptions,
  ListOptions,
  SignInOptions,
  ToolCallOptions,
} from "./src/client/client-types.ts";
export {
  createMemoryTokenStore,
  type MemoryTokenStoreOptions,
  type TokenStore,
} from "./src/auth/token-store.ts";
export { signInRequiredBy, SignInRequiredError, UpstreamAuthError } from "./src/auth/upstream-auth-error.ts";
export type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ModelHint,
  ModelPreferences,
  SamplingMessage,
  ToolChoice,
} from "./src/protocol/sampling.ts";
export type {
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
  ElicitValue,
  RequestedSchema,
} from "./src/protocol/elicitation.ts";
export type { ListRootsRequestParams, ListRootsResult, Root } from "./src/protocol/roots.ts";
export type { Icon } from "./src/protocol/icon.ts";
export type { JsonObject, JsonRpcErrorObject, RequestId } from "./src/protocol/jsonrpc.ts";
export type { Meta } from "./src/protocol/meta.ts";
export type { NullProtoRecord } from "./src/protocol/null-proto-record.ts";
export type {
  ElicitationInputRequest,
  InputRequest,
  InputRequests,
  RootsInputRequest,
  SamplingInputRequest,
} from "./src/protocol/input-request.ts";
export type { LegacyCreateTaskResult, LegacyTask, TaskMetadata } from "./src/protocol/legacy-tasks.ts";
export type { TaskStatus } from "./src/protocol/task-status.ts";
export type { Timers } from "./src/_internal/timers.ts";
export type { Clock } from "./src/_internal/clock.ts";
export type { DeclaredCapabilities } from "./src/handler/capabilities.ts";
export type {
  Annotations,
  AudioContent,
  BasicContentBlock,
  BlobResourceContents,
  ContentBlock,
  ContentBlockBase,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  Role,
  SamplingContentBlock,
  TextContent,
  TextResourceContents,
  ToolResultContent,
  ToolUseContent,
} from "./src/protocol/content.ts";
export type { CallToolResult } from "./src/protocol/call-tool-result.ts";
export type {
  ListToolsResult,
  Tool,
  ToolAnnotations,
  ToolExecution,
  ToolInputSchema,
} from "./src/protocol/tools.ts";
export type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceBase,
  ResourceResultFields,
  ResourceTemplate,
} from "./src/protocol/resources.ts";
export type {
  GetPromptResult,
  ListPromptsResult,
  Prompt,
  PromptArgument,
  PromptMessage,
} from "./src/protocol/prompts.ts";
export type { DiscoverResult } from "./src/protocol/discover.ts";
export type {
  CancelledTask,
  CompletedTask,
  CreateTaskResult,
  DetailedTask,
  FailedTask,
  InputRequiredTask,
  Task,
  TaskResultFields,
  WorkingTask,
} from "./src/protocol/tasks.ts";
export type {
  ClientCapabilities,
  ClientTasksCapability,
  ElicitationCapability,
  RootsCapability,
  SamplingCapability,
  ServerCapabilities,
} from "./src/protocol/capabilities.ts";
export type { Implementation } from "./src/protocol/meta.ts";
export {
  LEGACY_PROTOCOL_VERSIONS,
  type LegacyProtocolVersion,
  MODERN_PROTOCOL_VERSION,
  type ModernProtocolVersion,
  type ProtocolVersion,
} from "./src/protocol/versions.ts";
export { sanitizeText } from "./src/notify/sanitize-text.ts";
export type {
  LogNotificationEntry,
  NotificationEntry,
  ServerNotificationEntry,
} from "./src/notify/notification-entry.ts";
export type { NotificationStats } from "./src/notify/notification-queue.ts";
export { createFront, type FrontOptions } from "./src/front/create-front.ts";
export type { Deferral } from "./src/handler/deferral.ts";
export {
  type HandlerEndpoint,
  type HandlerKind,
  remoteHandler,
  type RemoteHandlerOptions,
  type RemoteTarget,
} from "./src/handler/remote-handler.ts";
export { handlerApp, type HandlerAppOptions } from "./src/handler/handler-app.ts";
