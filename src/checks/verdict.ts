/**
 * What a check returns: the value to go on with, or a refusal. Refusals are values, never
 * exceptions; how a refusal looks on the wire (a legacy JSON-RPC error, a modern `ClientError`)
 * is decided by the caller in one place.
 *
 * @module
 */

/** A check's refusal: a JSON-RPC error code and a message naming what was wrong. */
export interface Refusal {
  /** The code sent to the server (legacy) or carried by the `ClientError` (modern). */
  readonly code: number;
  /** What was wrong and what was expected, for the operator and the server. */
  readonly message: string;
  /** A handler's own `error.data`, sent with it (checks give none). */
  readonly data?: unknown;
}

/** A check's answer: go on with `value`, or stop with `refusal`. */
export type Verdict<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: Refusal };

/** Codes the checks refuse with (the sampling rejection code comes from the policy). */
export const RefusalCode = {
  /** A parameter of the request is not acceptable. */
  InvalidParams: -32602,
  /** An answer (the handler's, or a downstream caller's) is not acceptable. */
  InternalError: -32603,
  /** The kind is not declared (legacy wire code). */
  MethodNotFound: -32601,
  /** Busy or over budget, for elicitation and roots. */
  ServerError: -32000,
} as const;

/**
 * Lets the value through.
 *
 * @param value The value to go on with (a rewritten copy, or the input).
 * @returns A passing verdict.
 */
export function pass<T>(value: T): Verdict<T> {
  return { ok: true, value };
}

/**
 * Refuses.
 *
 * @param code The JSON-RPC code.
 * @param message What was wrong and what was expected.
 * @returns A refusing verdict.
 */
export function refuse(code: number, message: string): { readonly ok: false; readonly refusal: Refusal } {
  return { ok: false, refusal: { code, message } };
}
