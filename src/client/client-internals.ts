/**
 * What the front needs of a client beyond its public methods. `createClient` puts it on the client under a
 * symbol only this module holds; `createFront` takes it back with {@linkcode clientInternals}. Not exported
 * from any entry: not part of the contract.
 *
 * @module
 */
import type { DecisionSink } from "../chain/decision.ts";
import type { Timers } from "../_internal/timers.ts";
import type { Clock } from "../_internal/clock.ts";
import type { TokenStore } from "../auth/token-store.ts";
import type { UpstreamSignIn } from "../auth/upstream-sign-in.ts";
import type { Handler } from "../handler/handler.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import type { Implementation } from "../protocol/meta.ts";
import type { Client } from "./client-types.ts";
import type { ClientServers } from "./client-servers.ts";

/**
 * The client's settings, its servers' policies, eras and sessions as {@linkcode ClientServers} gives them
 * (the front closes the sessions it opens), its sign-ins and its decision listeners.
 */
export interface ClientInternals
  extends Pick<ClientServers, "policies" | "eraOf" | "legacySession" | "modernSession" | "onClose"> {
  readonly clientInfo: Implementation;
  readonly handler: Handler | undefined;
  readonly store: RateLimitStore;
  readonly timers: Timers;
  readonly clock: Clock;
  /** Where sign-ins keep grants, registrations and flows in progress. */
  readonly tokens: TokenStore;
  /** The client's decision listeners (the front's chains and calls report to them). */
  readonly decisions: DecisionSink;
  /** The client's `assigns`: what handlers get as `ctx.assigns` behind the front. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** A server's upstream sign-in, when its policy has `transport.auth`. */
  signIn(serverId: string): UpstreamSignIn | undefined;
}

const INTERNALS: unique symbol = Symbol("sluice.clientInternals");

/**
 * Puts a client's internals on it, out of sight of enumeration, and freezes it.
 *
 * @param client The client's public methods (not yet frozen).
 * @param internals Its internals.
 * @returns The client, frozen.
 */
export function withInternals(client: Client, internals: ClientInternals): Client {
  Object.defineProperty(client, INTERNALS, { value: internals });
  return Object.freeze(client);
}

/**
 * The internals of a client made by `createClient` (either entry), for the front.
 *
 * @param client The client.
 * @returns Its internals, or `undefined` for an object that is not such a client.
 */
export function clientInternals(client: Client): ClientInternals | undefined {
  return typeof client === "object" && client !== null && INTERNALS in client
    ? (client as Client & { readonly [INTERNALS]: ClientInternals })[INTERNALS]
    : undefined;
}
