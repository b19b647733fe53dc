/**
 * Decodes the body of a request to a `handlerApp`: `{ kind, params, ctx }`, the kind one the
 * handler implements, the params as the context's era defines them, the context with the fields
 * its kind and mode need. The result is a call ready to run with the request's signal; the
 * handler's context also has `defer()`, whose value the app sends as `{ "deferred": true }`.
 *
 * @module
 */
import * as v from "valibot";
import {
  decode,
  type Decoded,
  failure,
  nestFailure,
  refuseArrays,
  wireObject,
  wireVariant,
} from "../protocol/decode.ts";
import { RequestIdSchema } from "../protocol/jsonrpc.ts";
import { objectMap } from "../protocol/null-proto-record.ts";
import { decodeCreateMessageParams } from "../protocol/sampling.ts";
import { decodeElicitParams, elicitationModeOf, type ElicitRequestParams } from "../protocol/elicitation.ts";
import { MODERN_PROTOCOL_VERSION, type ProtocolVersion } from "../protocol/versions.ts";
import { describeValue } from "../_internal/quote.ts";
import { defer } from "./deferral.ts";
import type { ElicitationContext, Handler, InputContext, Principal } from "./handler.ts";
import { HANDLER_KINDS, type HandlerKind } from "./_remote-wire.ts";

/** A decoded request: the handler's callback, ready to run. */
export interface HandlerCall {
  /** The kind asked for. */
  readonly kind: HandlerKind;
  /** Calls the handler with the context and `signal`; may throw or reject. */
  run(signal: AbortSignal): unknown;
}

const base = {
  client: v.string(),
  serverId: v.string(),
  era: v.picklist(["modern", "legacy"]),
  assigns: objectMap(v.unknown()),
  relatedRequestId: v.nullable(RequestIdSchema),
  principal: v.exactOptional(wireObject({
    subject: v.string(),
    scopes: v.array(v.string()),
    claims: objectMap(v.unknown()),
  })),
  // Absent from callers that predate it: nothing changed, as far as they can tell.
  changes: v.optional(v.array(wireObject({ field: v.string(), from: v.unknown(), to: v.unknown() })), []),
};
const BaseContext = wireObject(base);
const ElicitationContextSchema = wireVariant("mode", [
  wireObject({
    ...base,
    mode: v.literal("form"),
    fields: objectMap(wireObject({ sensitiveSuspected: v.boolean() })),
  }),
  wireObject({
    ...base,
    mode: v.literal("url"),
    url: v.string(),
    host: v.string(),
    idn: v.boolean(),
    originMismatch: v.boolean(),
  }),
]);

const KindOnly = refuseArrays(v.object({ kind: v.picklist(HANDLER_KINDS) }));
const Envelope = wireVariant("kind", [
  wireObject({ kind: v.literal("sampling"), params: v.unknown(), ctx: BaseContext }),
  wireObject({ kind: v.literal("elicitation"), params: v.unknown(), ctx: ElicitationContextSchema }),
  wireObject({ kind: v.literal("roots"), params: v.exactOptional(wireObject({})), ctx: BaseContext }),
]);

/**
 * Decodes a request body for a handler.
 *
 * @param body The parsed JSON body.
 * @param handler The handler that will answer it.
 * @returns The call, or a failure naming the JSON path of what was wrong.
 */
export function decodeHandlerCall(body: unknown, handler: Handler): Decoded<HandlerCall> {
  const kind = decode(KindOnly, body);
  if (!kind.ok) return kind;
  if (handler[kind.value.kind] === undefined) {
    const implemented = HANDLER_KINDS.filter((k) => handler[k] !== undefined);
    return failure(
      "$.kind",
      `a kind this handler implements (${implemented.map((k) => `"${k}"`).join(" | ")})`,
      describeValue(kind.value.kind),
    );
  }
  const envelope = decode(Envelope, body);
  if (!envelope.ok) return envelope;
  const request = envelope.value;
  const version: ProtocolVersion = request.ctx.era === "modern" ? MODERN_PROTOCOL_VERSION : "2025-11-25";
  switch (request.kind) {
    case "sampling": {
      const params = decodeCreateMessageParams(version, request.params);
      if (!params.ok) return nestFailure("$.params", params);
      return call("sampling", (signal) => handler.sampling?.(params.value, withSignal(request.ctx, signal)));
    }
    case "elicitation": {
      const params = decodeElicitParams(version, request.params);
      if (!params.ok) return nestFailure("$.params", params);
      return elicitationCall(handler, params.value, request.ctx);
    }
    case "roots":
      return call("roots", (signal) => handler.roots?.(withSignal(request.ctx, signal)));
  }
}

function elicitationCall(
  handler: Handler,
  params: ElicitRequestParams,
  ctx: WireContext<ElicitationContext>,
): Decoded<HandlerCall> {
  const mode = elicitationModeOf(params);
  if (ctx.mode !== mode) return failure("$.ctx.mode", `"${mode}" (the mode of the params)`, `"${ctx.mode}"`);
  const modes = handler.elicitationModes ?? ["form"];
  if (!modes.includes(mode)) {
    return failure(
      "$.ctx.mode",
      `a mode this handler presents (${modes.map((m) => `"${m}"`).join(" | ")})`,
      `"${mode}"`,
    );
  }
  return call(
    "elicitation",
    (signal) => handler.elicitation?.(params, withSignal(ctx, signal) as ElicitationContext),
  );
}

function call(kind: HandlerKind, run: (signal: AbortSignal) => unknown): Decoded<HandlerCall> {
  return { ok: true, value: { kind, run } };
}

/** A context as it travels: no signal or `defer`, and `principal` only when there is one. */
type WireContext<C extends InputContext> = Omit<C, "signal" | "defer" | "principal"> & {
  readonly principal?: Principal;
};

function withSignal<T extends WireContext<InputContext>>(
  ctx: T,
  signal: AbortSignal,
): T & InputContext {
  return Object.freeze({ ...ctx, principal: ctx.principal, signal, defer });
}
