/**
 * `@sluice/mcp/types`: the Model Context Protocol's wire types as sluice decodes them, types
 * only (no code). A handler's params and answers (`CreateMessageRequestParams`,
 * `ElicitResult`, …), what a client's calls return (`CallToolResult`, `ListToolsResult`, tasks,
 * …) and the capabilities both sides declare.
 *
 * @example
 * ```ts
 * import type { CreateMessageRequestParams, CreateMessageResult } from "@sluice/mcp/types";
 * function echo(params: CreateMessageRequestParams): CreateMessageResult {
 *   return { role: "assistant", content: { type: "text", text: `${params.messages.length} messages` }, model: "echo" };
 * }
 * console.log(echo({ messages: [], maxTokens: 16 }).content); // { type: "text", text: "0 messages" }
 * ```
 *
 * @module
 */
export type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ModelHint,
  ModelPreferences,
  SamplingMessage,
  ToolChoice,
} from "./protocol/sampling.ts";
export type {
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
  ElicitValue,
  RequestedSchema,
} from "./protocol/elicitation.ts";
export type { ListRootsRequestParams, ListRootsResult, Root } from "./protocol/roots.ts";
export type {
  ElicitationInputRequest,
  InputRequest,
  InputRequests,
  RootsInputRequest,
  SamplingInputRequest,
} from "./protocol/input-request.ts";
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
} from "./protocol/content.ts";
export type { CallToolResult } from "./protocol/call-tool-result.ts";
export type {
  ListToolsResult,
  Tool,
  ToolAnnotations,
  ToolExecution,
  ToolInputSchema,
} from "./protocol/tools.ts";
export type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceBase,
  ResourceResultFields,
  ResourceTemplate,
} from "./protocol/resources.ts";
export type {
  GetPromptResult,
  ListPromptsResult,
  Prompt,
  PromptArgument,
  PromptMessage,
} from "./protocol/prompts.ts";
export type { DiscoverResult } from "./protocol/discover.ts";
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
} from "./protocol/tasks.ts";
export type { TaskStatus } from "./protocol/task-status.ts";
export type { LegacyCreateTaskResult, LegacyTask, TaskMetadata } from "./protocol/legacy-tasks.ts";
export type {
  ClientCapabilities,
  ClientTasksCapability,
  ElicitationCapability,
  RootsCapability,
  SamplingCapability,
  ServerCapabilities,
} from "./protocol/capabilities.ts";
export type { Implementation, Meta } from "./protocol/meta.ts";
export type { Icon } from "./protocol/icon.ts";
export type { JsonObject, JsonRpcErrorObject, RequestId } from "./protocol/jsonrpc.ts";
export type { NullProtoRecord } from "./protocol/null-proto-record.ts";
export type { LegacyProtocolVersion, ModernProtocolVersion, ProtocolVersion } from "./protocol/versions.ts";
