/**
 * Who a downstream caller is: the principal the gateway's `auth` established for a request. It
 * reaches handlers as `ctx.principal`, keys input budgets and upstream sessions, decides what a
 * policy's `access` lets the caller use, and is sealed into every `requestState` so one caller's
 * state is refused for another.
 *
 * @module
 */

import type { Principal } from "../handler/handler.ts";

export type { Principal };

/**
 * The key that separates callers' budgets, sessions and states: the subject, or `""` when there
 * is no principal (a gateway with `auth: "none"`, or the library).
 *
 * @param principal The caller, if known.
 * @returns Its key.
 * @example
 * ```ts
 * import { principalKey } from "./principal.ts";
 * console.log(principalKey({ subject: "alice", scopes: [], claims: {} })); // "alice"
 * console.log(principalKey(undefined)); // ""
 * ```
 */
export function principalKey(principal: Principal | undefined): string {
  return principal?.subject ?? "";
}
