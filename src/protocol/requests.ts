/**
 * Encoders for the requests a client sends a server (with the modern `_meta` on every 2026-07-28
 * request) and the params of an MRTR retry. Tasks are in `task-requests.ts`, the legacy
 * utilities (`ping`, `logging/setLevel`, client notifications) in `utility-messages.ts`.
 * Every encoder builds fresh objects (copied one level) and never mutates its inputs.
 *
 * @module
 */
import type { InputResponses } from "./input-responses.ts";
import type { JsonObject } from "./jsonrpc.ts";
import type { TaskMetadata } from "./legacy-tasks.ts";
import { type RequestMeta, withRequestMeta } from "./meta.ts";
import type { LegacyProtocolVersion } from "./versions.ts";
import { copyOwn } from "../_internal/copy.ts";

/** A request to send: wrap it with `encodeRequest(id, method, params)`. */
export interface OutgoingRequest {
  /** The method. */
  readonly method: string;
  /** The params, if any. */
  readonly params?: JsonObject;
}

/** A legacy session: requests carry no protocol metadata (it was negotiated by `initialize`). */
export interface LegacyTarget {
  /** The negotiated version. */
  readonly protocolVersion: LegacyProtocolVersion;
}

/** Where a request goes: a legacy session, or a modern server (the `_meta` to send). */
export type RequestTarget = LegacyTarget | RequestMeta;

/** Fields every request params object may add. */
export interface ParamsBase {
  /** Extra `_meta` keys (`progressToken`, …); the modern reserved keys cannot be set here. */
  readonly _meta?: JsonObject;
}

/** What to call. */
export interface CallToolParams extends ParamsBase {
  /** The tool name. */
  readonly name: string;
  /** Its arguments. */
  readonly arguments?: JsonObject;
  /** 2025-11-25 only: run as a task (dropped in other versions). */
  readonly task?: TaskMetadata;
}

/** What to read. */
export interface ReadResourceParams extends ParamsBase {
  /** The resource URI. */
  readonly uri: string;
}

/** Which prompt to get. */
export interface GetPromptParams extends ParamsBase {
  /** The prompt name. */
  readonly name: string;
  /** Template arguments. */
  readonly arguments?: Readonly<Record<string, string>>;
}

/** Which page of a list. */
export interface ListParams extends ParamsBase {
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** The paginated list methods. */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list";

function isModern(target: RequestTarget): target is RequestMeta {
  return target.protocolVersion === "2026-07-28";
}

/**
 * Builds a request for a target: modern requests get the full `_meta` (see `withRequestMeta`),
 * legacy ones keep only the caller's extra `_meta` keys.
 *
 * @param target The session or the modern metadata.
 * @param method The method.
 * @param params The params, with the caller's extra `_meta` if any; never mutated.
 * @returns A new request whose params (and `_meta`) are copied one level.
 */
export function requestFor(target: RequestTarget, method: string, params: JsonObject): OutgoingRequest {
  if (isModern(target)) return { method, params: withRequestMeta(params, target) };
  const meta = params._meta;
  const copy = typeof meta === "object" && meta !== null ? { ...params, _meta: { ...meta } } : { ...params };
  return { method, params: copy };
}

function withExtras(params: Record<string, unknown>, base: ParamsBase): JsonObject {
  if (base._meta !== undefined) params._meta = base._meta;
  return params;
}

/**
 * Builds a `tools/call` request (the first round; see {@linkcode buildRetryParams} for retries).
 *
 * @param target The session or the modern metadata.
 * @param params Tool name, arguments, and (2025-11-25) task augmentation.
 * @returns A new request.
 */
export function encodeCallTool(target: RequestTarget, params: CallToolParams): OutgoingRequest {
  const out: Record<string, unknown> = { name: params.name };
  if (params.arguments !== undefined) out.arguments = { ...params.arguments };
  if (params.task !== undefined && target.protocolVersion === "2025-11-25") out.task = { ...params.task };
  return requestFor(target, "tools/call", withExtras(out, params));
}

/**
 * Builds a `resources/read` request.
 *
 * @param target The session or the modern metadata.
 * @param params The URI.
 * @returns A new request.
 */
export function encodeReadResource(target: RequestTarget, params: ReadResourceParams): OutgoingRequest {
  return requestFor(target, "resources/read", withExtras({ uri: params.uri }, params));
}

/**
 * Builds a `prompts/get` request.
 *
 * @param target The session or the modern metadata.
 * @param params The prompt name and arguments.
 * @returns A new request.
 */
export function encodeGetPrompt(target: RequestTarget, params: GetPromptParams): OutgoingRequest {
  const out: Record<string, unknown> = { name: params.name };
  if (params.arguments !== undefined) out.arguments = { ...params.arguments };
  return requestFor(target, "prompts/get", withExtras(out, params));
}

/**
 * Builds a list request (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`).
 *
 * @param target The session or the modern metadata.
 * @param method The list method.
 * @param params The cursor of the page wanted, if not the first.
 * @returns A new request.
 */
export function encodeList(
  target: RequestTarget,
  method: ListMethod,
  params: ListParams = {},
): OutgoingRequest {
  return requestFor(
    target,
    method,
    withExtras(params.cursor === undefined ? {} : { cursor: params.cursor }, params),
  );
}

/**
 * Builds a `server/discover` request (2026-07-28).
 *
 * @param meta The modern metadata.
 * @returns A new request whose params hold only `_meta`.
 */
export function encodeDiscover(meta: RequestMeta): OutgoingRequest {
  return { method: "server/discover", params: withRequestMeta(undefined, meta) };
}

/**
 * Builds the params of an MRTR retry: the original params unchanged, plus this round's
 * `inputResponses` (only when there are some) and the server's `requestState` (only when it sent
 * one, byte for byte). Any `inputResponses`/`requestState` already in `originalParams` is
 * replaced, never carried over.
 *
 * @param originalParams The params of the original request (with its `_meta`); never mutated.
 * @param inputResponses This round's answers, by input request key.
 * @param requestState The `requestState` of the `InputRequiredResult`, if it had one.
 * @returns New params; `_meta` and `inputResponses` are fresh copies.
 * @example
 * ```ts
 * import { buildRetryParams } from "./requests.ts";
 * const params = buildRetryParams({ name: "deploy" }, undefined, "opaque");
 * console.log(params); // { name: "deploy", requestState: "opaque" }
 * ```
 */
export function buildRetryParams(
  originalParams: JsonObject,
  inputResponses: InputResponses | undefined,
  requestState: string | undefined,
): JsonObject {
  const out = copyOwn(originalParams);
  // `delete` only when there is something to delete: it turns the object into a slow dictionary
  // for V8, and the params are serialized once per round.
  if (Object.hasOwn(out, "inputResponses")) delete out.inputResponses;
  if (Object.hasOwn(out, "requestState")) delete out.requestState;
  const meta = out._meta;
  if (typeof meta === "object" && meta !== null && !Array.isArray(meta)) out._meta = copyOwn(meta);
  if (inputResponses !== undefined && Object.keys(inputResponses).length > 0) {
    out.inputResponses = copyOwn(inputResponses);
  }
  if (requestState !== undefined) out.requestState = requestState;
  return out;
}
