/**
 * Capability gate: an input request of a kind the client did not declare (the handler does not
 * implement it, or the policy forbids it) is refused before anything else runs: `-32601` on the
 * legacy wire; the modern caller turns it into a `"protocol"` error.
 *
 * @module
 */
import { pass, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import { quote } from "../_internal/quote.ts";

/** Which kinds are declared. */
export interface DeclaredKinds {
  /** `sampling/createMessage`. */
  readonly sampling: boolean;
  /** `elicitation/create` (any mode). */
  readonly elicitation: boolean;
  /** `roots/list`. */
  readonly roots: boolean;
}

/** The kind of an input request: the capability it needs. */
export type InputKind = keyof DeclaredKinds;

const KIND_OF: Readonly<Record<string, InputKind>> = Object.freeze({
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
});

/**
 * The capability an input request's method needs.
 *
 * @param method A JSON-RPC method.
 * @returns Its kind, or `undefined` for a method that is not an input request.
 * @example
 * ```ts
 * import { inputKindOf } from "./capability.ts";
 * console.log(inputKindOf("roots/list"), inputKindOf("tools/call")); // roots undefined
 * ```
 */
export function inputKindOf(method: string): InputKind | undefined {
  return Object.hasOwn(KIND_OF, method) ? KIND_OF[method] : undefined;
}

/** The check built by {@linkcode createCapabilityCheck}. */
export interface CapabilityCheck {
  /** Refuses a method whose kind is not declared (or that is not an input request at all). */
  check(method: string): Verdict<void>;
}

/**
 * Builds the gate.
 *
 * @param declared The declared kinds.
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createCapabilityCheck } from "./capability.ts";
 * const gate = createCapabilityCheck({ sampling: false, elicitation: true, roots: false });
 * console.log(gate.check("sampling/createMessage").ok, gate.check("elicitation/create").ok); // false true
 * ```
 */
export function createCapabilityCheck(declared: DeclaredKinds): CapabilityCheck {
  const allowed = Object.freeze({ ...declared });
  return Object.freeze({
    check(method: string): Verdict<void> {
      const kind = inputKindOf(method);
      if (kind !== undefined && allowed[kind]) return pass(undefined);
      return refuse(
        RefusalCode.MethodNotFound,
        kind === undefined
          ? `Input request refused: ${quote(method, 64)} is not an input request method`
          : `Input request refused: this client did not declare the ${kind} capability`,
      );
    },
  });
}
