/**
 * The parts of the wire contract both `remoteHandler` and `handlerApp` need: one POST of JSON
 * `{ kind, params, ctx }` answered by `200` with the answer, `{ error }`, or `{ deferred: true }`
 * (the handler returned `ctx.defer()`).
 *
 * @module
 */
import { quote } from "../_internal/quote.ts";
import { exceedsJsonDepth, MESSAGE_LIMIT_DEFAULTS } from "../protocol/message-limits.ts";
import type { ElicitationContext, InputContext } from "./handler.ts";

/** A kind of input request a handler answers over HTTP. */
export type HandlerKind = "sampling" | "elicitation" | "roots";

/** The kinds, in a fixed order. */
export const HANDLER_KINDS: readonly HandlerKind[] = Object.freeze(["sampling", "elicitation", "roots"]);

/**
 * Copies a callback's context as plain JSON data: everything but `signal`, and for an
 * elicitation its mode with `fields` (form) or the URL facts (URL).
 *
 * @param ctx The context the chain gave the callback.
 * @returns A fresh plain object.
 */
export function plainContext(ctx: InputContext | ElicitationContext): Record<string, unknown> {
  const out: Record<string, unknown> = {
    client: ctx.client,
    serverId: ctx.serverId,
    era: ctx.era,
    assigns: ctx.assigns,
    relatedRequestId: ctx.relatedRequestId,
  };
  if (ctx.principal !== undefined) out.principal = ctx.principal;
  if (ctx.changes.length > 0) out.changes = ctx.changes;
  if (!("mode" in ctx)) return out;
  out.mode = ctx.mode;
  if (ctx.mode === "form") {
    // `Object.fromEntries` defines keys, so a field named "__proto__" stays a field.
    out.fields = Object.fromEntries(
      Object.keys(ctx.fields).map((name) => [
        name,
        { sensitiveSuspected: ctx.fields[name]?.sensitiveSuspected === true },
      ]),
    );
  } else {
    out.url = ctx.url;
    out.host = ctx.host;
    out.idn = ctx.idn;
    out.originMismatch = ctx.originMismatch;
  }
  return out;
}

/**
 * Tells what is wrong with a body's `Content-Type` header, whose media type (lower-cased, without
 * parameters) must be `application/json`.
 *
 * @param header The header value.
 * @returns The problem (`expected content type "application/json", received "text/plain"`), or
 *   `undefined` for JSON.
 */
export function contentTypeProblem(header: string | null): string | undefined {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return undefined;
  const received = type === undefined || type === "" ? "none" : quote(type);
  return `expected content type "application/json", received ${received}`;
}

/**
 * Parses a body as UTF-8 JSON no deeper than the protocol's JSON depth limit.
 *
 * @param bytes The body.
 * @returns The value, or what is wrong with the body, as a phrase (`is not valid JSON`).
 */
export function parseJsonBody(
  bytes: Uint8Array,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: "is not valid UTF-8" };
  }
  const { maxJsonDepth } = MESSAGE_LIMIT_DEFAULTS;
  if (exceedsJsonDepth(text, maxJsonDepth)) {
    return { ok: false, problem: `nests more than ${maxJsonDepth} levels deep` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: "is not valid JSON" };
  }
}

/** The JSON a deferral travels as. */
export const WIRE_DEFERRAL = '{"deferred":true}';

/**
 * Tells whether a parsed JSON answer is the wire form of a deferral: an object whose only key is
 * `deferred`, holding `true`.
 *
 * @param value The parsed answer.
 * @returns `true` for `{ "deferred": true }`.
 */
export function isWireDeferral(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "deferred" && (value as { deferred: unknown }).deferred === true;
}
