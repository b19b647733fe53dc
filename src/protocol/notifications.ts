/**
 * Notifications a server sends the client: `notifications/cancelled`, `notifications/progress`,
 * `notifications/message` and (2025-11-25) `notifications/elicitation/complete`. Unknown keys are
 * dropped, so callbacks see only known fields.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireObject, type WireSchema } from "./decode.ts";
import { type RequestId, RequestIdSchema } from "./jsonrpc.ts";
import { type Meta, MetaSchema, type ProgressToken, ProgressTokenSchema } from "./meta.ts";

/** Params of `notifications/cancelled`. */
export interface CancelledNotificationParams {
  /** The request cancelled (required in 2026-07-28 and for non-task legacy requests). */
  readonly requestId?: RequestId;
  /** Why. */
  readonly reason?: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Params of `notifications/progress`. */
export interface ProgressNotificationParams {
  /** The token of the request this is about. */
  readonly progressToken: ProgressToken;
  /** Progress so far; grows each time. */
  readonly progress: number;
  /** The total, if known. */
  readonly total?: number;
  /** A note on the progress. */
  readonly message?: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Params of `notifications/message` (a server log entry). */
export interface LoggingMessageNotificationParams {
  /** The level: any string here (unknown levels are clamped by the sanitizer). */
  readonly level: string;
  /** The logger's name. */
  readonly logger?: string;
  /** Any JSON value. */
  readonly data: unknown;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Params of `notifications/elicitation/complete` (2025-11-25). */
export interface ElicitationCompleteNotificationParams {
  /** The `elicitationId` of the URL elicitation that finished. */
  readonly elicitationId: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** The method of the notification a legacy client sends when its roots change. */
export const ROOTS_LIST_CHANGED_NOTIFICATION = "notifications/roots/list_changed";

const opt = v.exactOptional;

/** `notifications/cancelled` params; unknown keys are dropped. */
export const CancelledNotificationParamsSchema: WireSchema<CancelledNotificationParams> = wireObject({
  requestId: opt(RequestIdSchema),
  reason: opt(v.string()),
  _meta: opt(MetaSchema),
});

/** `notifications/progress` params; unknown keys are dropped. */
export const ProgressNotificationParamsSchema: WireSchema<ProgressNotificationParams> = wireObject({
  progressToken: ProgressTokenSchema,
  progress: v.number(),
  total: opt(v.number()),
  message: opt(v.string()),
  _meta: opt(MetaSchema),
});

/** `notifications/message` params; unknown keys are dropped. */
export const LoggingMessageNotificationParamsSchema: WireSchema<LoggingMessageNotificationParams> =
  wireObject({
    level: v.string(),
    logger: opt(v.string()),
    data: v.unknown(),
    _meta: opt(MetaSchema),
  });

/** `notifications/elicitation/complete` params; unknown keys are dropped. */
export const ElicitationCompleteNotificationParamsSchema: WireSchema<ElicitationCompleteNotificationParams> =
  wireObject({ elicitationId: v.string(), _meta: opt(MetaSchema) });

/**
 * Decodes `notifications/cancelled` params (legacy: a server cancelling its own request).
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeCancelledNotificationParams(value: unknown): Decoded<CancelledNotificationParams> {
  return decode(CancelledNotificationParamsSchema, value);
}

/**
 * Decodes `notifications/progress` params.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeProgressNotificationParams(value: unknown): Decoded<ProgressNotificationParams> {
  return decode(ProgressNotificationParamsSchema, value);
}

/**
 * Decodes `notifications/message` params; `data` is required but may be any JSON value.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeLoggingMessageNotificationParams(
  value: unknown,
): Decoded<LoggingMessageNotificationParams> {
  return decode(LoggingMessageNotificationParamsSchema, value);
}

/**
 * Decodes `notifications/elicitation/complete` params (2025-11-25).
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeElicitationCompleteNotificationParams(
  value: unknown,
): Decoded<ElicitationCompleteNotificationParams> {
  return decode(ElicitationCompleteNotificationParamsSchema, value);
}
