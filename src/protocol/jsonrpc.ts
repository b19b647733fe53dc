/**
 * JSON-RPC 2.0 framing as MCP uses it in both eras: requests, notifications, results and errors,
 * one message at a time (batch arrays are refused in both eras).
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, failure, wireLooseObject, wireObject, type WireSchema } from "./decode.ts";
import { checkJsonDepth, MESSAGE_LIMIT_DEFAULTS } from "./message-limits.ts";

/** A request id: a string or an integer, never `null`. */
export type RequestId = string | number;

/** A JSON object, as MCP params and results are. */
export type JsonObject = { readonly [key: string]: unknown };

/** A request: expects a response with the same id. */
export interface JsonRpcRequest {
  /** Always `"2.0"`. */
  readonly jsonrpc: "2.0";
  /** Unique among the sender's requests still awaiting a response. */
  readonly id: RequestId;
  /** The method name, e.g. `"tools/call"`. */
  readonly method: string;
  /** The parameters; MCP always uses an object. */
  readonly params?: JsonObject;
}

/** A notification: no id, no response. */
export interface JsonRpcNotification {
  /** Always `"2.0"`. */
  readonly jsonrpc: "2.0";
  /** The method name, e.g. `"notifications/progress"`. */
  readonly method: string;
  /** The parameters. */
  readonly params?: JsonObject;
}

/** A successful response. */
export interface JsonRpcResultResponse {
  /** Always `"2.0"`. */
  readonly jsonrpc: "2.0";
  /** The id of the request answered. */
  readonly id: RequestId;
  /** The result object. */
  readonly result: JsonObject;
}

/** The error member of an error response. */
export interface JsonRpcErrorObject {
  /** An integer code, e.g. `-32602`. */
  readonly code: number;
  /** A short description. */
  readonly message: string;
  /** Extra data defined by the code. */
  readonly data?: unknown;
}

/** An error response; decoded, `id` is `null` when the request could not be identified. */
export interface JsonRpcErrorResponse {
  /** Always `"2.0"`. */
  readonly jsonrpc: "2.0";
  /** The id of the request answered; `null` or absent when it could not be read. */
  readonly id?: RequestId | null;
  /** What went wrong. */
  readonly error: JsonRpcErrorObject;
}

/** Any single JSON-RPC message. */
export type JsonRpcMessage =
  | JsonRpcRequest
  | JsonRpcNotification
  | JsonRpcResultResponse
  | JsonRpcErrorResponse;

/** Any JSON object; the output is a shallow copy. */
export const JsonObjectSchema: WireSchema<JsonObject> = wireLooseObject({});

/** A request id: a string, or an integer within the safe range. */
export const RequestIdSchema: WireSchema<RequestId> = v.union([
  // Numbers first: most are numbers, and each option a value fails costs an issue.
  v.pipe(v.number(), v.safeInteger()),
  v.string(),
]);

const JSONRPC = v.literal("2.0");

const RequestSchema: WireSchema<JsonRpcRequest> = wireObject({
  jsonrpc: JSONRPC,
  id: RequestIdSchema,
  method: v.string(),
  params: v.exactOptional(JsonObjectSchema),
});

const NotificationSchema: WireSchema<JsonRpcNotification> = wireObject({
  jsonrpc: JSONRPC,
  method: v.string(),
  params: v.exactOptional(JsonObjectSchema),
});

const ResultResponseSchema: WireSchema<JsonRpcResultResponse> = wireObject({
  jsonrpc: JSONRPC,
  id: RequestIdSchema,
  result: JsonObjectSchema,
});

/** The error member of an error response. */
export const ErrorObjectSchema: WireSchema<JsonRpcErrorObject> = wireObject({
  code: v.pipe(v.number(), v.safeInteger()),
  message: v.string(),
  data: v.exactOptional(v.unknown()),
});

const ErrorResponseSchema: WireSchema<JsonRpcErrorResponse> = v.pipe(
  wireObject({
    jsonrpc: JSONRPC,
    id: v.optional(v.nullable(RequestIdSchema)),
    error: ErrorObjectSchema,
  }),
  v.transform((m) => ({ jsonrpc: m.jsonrpc, id: m.id ?? null, error: m.error })),
);

/**
 * Decodes one JSON-RPC message from a parsed JSON value.
 *
 * @param input The parsed value.
 * @returns The message, or a failure naming the path; an array (a batch) is always a failure.
 * @example
 * ```ts
 * import { decodeMessage } from "./jsonrpc.ts";
 * const result = decodeMessage({ jsonrpc: "2.0", id: 1, result: {} });
 * console.log(result.ok); // true
 * ```
 */
export function decodeMessage(input: unknown): Decoded<JsonRpcMessage> {
  if (Array.isArray(input)) {
    return failure("$", "a single JSON-RPC message (batches are not supported)", "an array");
  }
  if (typeof input !== "object" || input === null) {
    return failure("$", "a JSON-RPC message object", describe(input));
  }
  if ("method" in input) return decode("id" in input ? RequestSchema : NotificationSchema, input);
  const hasResult = "result" in input;
  if (hasResult === "error" in input) {
    return failure(
      "$",
      'exactly one of "method", "result" or "error"',
      hasResult ? "both result and error" : "none",
    );
  }
  return hasResult ? decode(ResultResponseSchema, input) : decode(ErrorResponseSchema, input);
}

/** Options of {@linkcode parseMessage}. */
export interface ParseMessageOptions {
  /** The deepest nesting accepted (the message is level 1): the policy's `maxJsonDepth`. @default 64 */
  readonly maxDepth?: number;
}

/**
 * Parses JSON text and decodes one JSON-RPC message; text nested deeper than `maxDepth` is refused
 * before parsing, so hostile nesting cannot exhaust the stack.
 *
 * @param text The raw message text.
 * @param options The nesting limit.
 * @returns The message, or a failure (at `$` when the text is not JSON or nests too deep).
 * @example
 * ```ts
 * import { parseMessage } from "./jsonrpc.ts";
 * const deep = parseMessage('{"jsonrpc":"2.0","id":1,"result":{"a":[[[[]]]]}}', { maxDepth: 4 });
 * console.log(deep.ok ? "ok" : deep.message); // $: expected at most 4 levels of nesting (maxJsonDepth), received more than 4
 * ```
 */
export function parseMessage(text: string, options: ParseMessageOptions = {}): Decoded<JsonRpcMessage> {
  const json = parseJsonText(text, options);
  return json.ok ? decodeMessage(json.value) : json;
}

/**
 * Parses JSON text within the nesting limit without decoding it, so a server can tell `-32700` from
 * `-32600`.
 *
 * @param text The raw text.
 * @param options The nesting limit.
 * @returns The value, or a failure at `$` when the text is not JSON or nests too deep.
 */
export function parseJsonText(text: string, options: ParseMessageOptions = {}): Decoded<unknown> {
  const tooDeep = checkJsonDepth(text, options.maxDepth ?? MESSAGE_LIMIT_DEFAULTS.maxJsonDepth);
  if (tooDeep !== undefined) return tooDeep;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return failure("$", "JSON text", `text that is not JSON (${text.length} characters)`);
  }
}

/**
 * Tells whether a message is a request.
 *
 * @param message A decoded message.
 * @returns `true` for a request.
 */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}

/**
 * Tells whether a message is a notification.
 *
 * @param message A decoded message.
 * @returns `true` for a notification.
 */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}

/**
 * Tells whether a message is a response, successful or not.
 *
 * @param message A decoded message.
 * @returns `true` for a result or an error response.
 */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResultResponse | JsonRpcErrorResponse {
  return !("method" in message);
}

/**
 * Builds a fresh request message.
 *
 * @param id A fresh id (see {@linkcode createRequestIds}).
 * @param method The method name.
 * @param params The parameters; copied one level, never mutated.
 * @returns A new request object.
 */
export function encodeRequest(id: RequestId, method: string, params?: JsonObject): JsonRpcRequest {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params: { ...params } };
}

/**
 * Builds a fresh notification message.
 *
 * @param method The method name.
 * @param params The parameters; copied one level, never mutated.
 * @returns A new notification object.
 */
export function encodeNotification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined
    ? { jsonrpc: "2.0", method }
    : { jsonrpc: "2.0", method, params: { ...params } };
}

/**
 * Builds a fresh result response.
 *
 * @param id The id of the request answered.
 * @param result The result; copied one level, never mutated.
 * @returns A new response object.
 */
export function encodeResult(id: RequestId, result: JsonObject): JsonRpcResultResponse {
  return { jsonrpc: "2.0", id, result: { ...result } };
}

/**
 * Builds a fresh error response; with `id` `null` it has no `id`, as JSON-RPC's `"id": null` fails
 * every MCP revision's schema.
 *
 * @param id The id of the request answered, or `null` when it could not be read.
 * @param error Code, message and optional data.
 * @returns A new error response object.
 */
export function encodeError(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  const body: JsonRpcErrorObject = error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data };
  return id === null ? { jsonrpc: "2.0", error: body } : { jsonrpc: "2.0", id, error: body };
}

/**
 * Creates a source of request ids: integers from 1 upwards, never repeated.
 *
 * @returns A function that returns the next id on each call.
 */
export function createRequestIds(): () => number {
  let next = 0;
  return () => ++next;
}

function describe(input: unknown): string {
  if (input === null) return "null";
  if (typeof input === "string") return JSON.stringify(input.length > 40 ? input.slice(0, 40) + "…" : input);
  return typeof input === "object" ? "Object" : `${typeof input} ${String(input)}`;
}
