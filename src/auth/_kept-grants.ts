/**
 * Where an upstream sign-in's grants live and how they are kept fresh: the token a principal's request
 * is sent with (from memory, else the store), replaced before it expires or after the server refused
 * it. Getting one is done once per principal and shared; it runs under its own signal, so a request
 * that gives up stops only its own wait (with client credentials every gateway caller is one
 * principal, and one hanging up must not fail the others).
 *
 * @module
 */
import { type Grant, grantKey, readGrant } from "./authorization-code.ts";
import {
  abortedLikeFetch,
  type GrantAsk,
  type GrantSource,
  type UpstreamSignInOptions,
} from "./_grant-source.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import { awaitShared, joinable, sharedWork } from "../_internal/signals.ts";

/** How long before its expiry a token is replaced, at most. */
const RENEW_MARGIN_MS = 30_000;
/** How many principals' grants one sign-in keeps in memory (the store keeps them all). */
const MAX_RECENT = 1000;

/** What a principal's request is sent with (see {@linkcode KeptGrants.current}). */
export interface Sendable {
  /** The token's grant, or `undefined`: the request goes without a token. */
  readonly grant: Grant | undefined;
  /**
   * Why an expired stored grant could not be refreshed (metadata not found without a challenge): the
   * request goes without a token so the server's 401 names it; a 401 without a challenge fails with this.
   */
  readonly unrefreshed?: unknown;
}

const NO_GRANT: Sendable = Object.freeze({ grant: undefined });

/** What a principal's request waits for when getting its token is shared (see `#once`). */
interface SharedGrant {
  /** The request's signal: it stops this request's wait. */
  readonly signal: AbortSignal | undefined;
  /** Gets the grant, under the shared work's signal. */
  readonly work: (signal: AbortSignal) => Promise<Grant>;
}

/** The grants of one server's principals: the store's, a recent few in memory, and client credentials tokens. */
export class KeptGrants {
  readonly #source: GrantSource;
  readonly #options: UpstreamSignInOptions;
  /** Client credentials tokens: cheap to ask for again, kept in memory. */
  readonly #machineTokens = new Map<string, Grant>();
  /**
   * The grants last read from the store, per principal, so a request skips the store while its grant
   * is usable; a sign-out on another instance shows as the server's 401.
   */
  readonly #recent = new Map<string, Grant>();
  readonly #pending = new Map<string, Promise<Grant>>();
  /** Owns the shared work (see `sharedWork`), which ends when every waiting request has stopped. */
  readonly #owner = new AbortController();
  /**
   * When each grant seen is to be replaced, by expiry and access token: a grant read again keeps its
   * first time, else each read would push renewal toward the expiry.
   */
  readonly #renewAt = new Map<string, number>();

  constructor(source: GrantSource, options: UpstreamSignInOptions) {
    this.#source = source;
    this.#options = options;
  }

  /**
   * The principal's token to send now, refreshed when it is about to expire; none when there is
   * none, or when a refresh cannot find the server's metadata (see {@linkcode Sendable}).
   *
   * @param principal Whose token.
   * @param signal Ends this request's wait for a refresh (which others may share), and aborts discovery.
   * @returns What the request is sent with.
   */
  async current(principal: string, signal: AbortSignal | undefined): Promise<Sendable> {
    if (this.#options.transport.auth.kind === "client_credentials") {
      const grant = this.#machineTokens.get(principal);
      if (this.#usable(grant)) return { grant };
      if (grant === undefined) return NO_GRANT;
      this.#machineTokens.delete(principal);
      // The server wanted a token (it had one): a new one first, not a round trip without.
      const challenge = { metadataUrl: undefined, scopes: undefined, dpop: grant.dpop !== undefined };
      return {
        grant: await this.#once(principal, {
          signal,
          work: (shared) => this.#machineToken(principal, { challenge, again: grant.scopes, signal: shared }),
        }),
      };
    }
    const cached = this.#recent.get(principal);
    if (cached !== undefined && this.#usable(cached)) return { grant: cached };
    const grant = await readGrant(this.#options.tokens, grantKey(this.#source.owner, principal));
    if (grant === undefined) return NO_GRANT;
    if (this.#usable(grant)) return { grant: this.#remember(principal, grant) };
    if (grant.refreshToken === undefined) return NO_GRANT;
    try {
      await this.#source.discover(signal);
    } catch (error) {
      // The request goes without a token; the server's challenge leads to the refresh (`renew`).
      signal?.throwIfAborted();
      return { grant: undefined, unrefreshed: error };
    }
    const renewed = await this.#once(principal, {
      signal,
      work: async (shared) =>
        (await this.#source.refresh(principal, grant, { challenge: undefined, signal: shared })) ?? grant,
    });
    return this.#usable(renewed) ? { grant: this.#remember(principal, renewed) } : NO_GRANT;
  }

  /**
   * A new token after the server refused the one sent (or none was sent), for the scopes of
   * `caller.again` when the server wants more than the token had.
   *
   * @param principal Whose token.
   * @param sent The token the server refused, if one was sent.
   * @param caller The challenge and scopes; its signal ends this caller's wait only.
   * @returns The new token.
   * @throws What getting it threw, or the caller's signal's reason once it fired.
   */
  renew(principal: string, sent: Grant | undefined, caller: GrantAsk): Promise<Grant> {
    // A step-up may wait minutes for the person: shared apart, so refreshes are not held up by it.
    const stepUp = caller.again !== undefined && this.#options.transport.auth.kind !== "client_credentials";
    return this.#once(stepUp ? stepUpKey(principal) : principal, {
      signal: caller.signal,
      work: (shared) => this.#renewed(principal, sent, { ...caller, signal: shared }),
    });
  }

  /**
   * What `renew` shares: the new token, got under the shared work's signal (`ask.signal`).
   *
   * @param principal Whose token.
   * @param sent The token the server refused, if one was sent.
   * @param ask The challenge, the scopes and the shared work's signal.
   * @returns The new token.
   */
  async #renewed(principal: string, sent: Grant | undefined, ask: GrantAsk): Promise<Grant> {
    const { tokens } = this.#options;
    const key = grantKey(this.#source.owner, principal);
    if (sent !== undefined) {
      // The server may have a new authorization server.
      this.#source.forgetMetadata();
      this.#machineTokens.delete(principal);
    }
    this.#recent.delete(principal);
    if (this.#options.transport.auth.kind === "client_credentials") {
      return await this.#machineToken(principal, ask);
    }
    if (ask.again !== undefined) return await this.#stepUp(principal, ask);
    let stored = await readGrant(tokens, key);
    if (stored !== undefined) {
      // Another request (or instance) signed in meanwhile.
      if (stored.accessToken !== sent?.accessToken && this.#usable(stored)) return stored;
      if (stored.refreshToken !== undefined) {
        const renewed = await this.#source.refresh(principal, stored, ask);
        if (renewed !== undefined) return renewed;
      }
    }
    // The person is asked one sign-in at a time: a step-up asking them now may bring the grant.
    const steppingUp = joinable(this.#pending.get(stepUpKey(principal)));
    if (steppingUp !== undefined) {
      const stepped = await steppingUp.catch(() => undefined);
      if (stepped !== undefined && this.#usable(stepped)) return stepped;
      stored = await readGrant(tokens, key);
    }
    // The server refused it, and it cannot be refreshed: no other request is to send it.
    if (stored !== undefined) await tokens.delete(key);
    return await this.#source.signInByPerson(principal, ask);
  }

  /** Whether a step-up sign-in of the principal's is waiting for the person. */
  steppingUp(principal: string): boolean {
    return joinable(this.#pending.get(stepUpKey(principal))) !== undefined;
  }

  /**
   * A step-up sign-in, for more scopes than any stored grant has. The stored grant stays in use for
   * what it covers until the step-up's grant replaces it.
   *
   * @param principal Whose sign-in.
   * @param ask The step-up's challenge and scopes.
   * @returns The step-up's grant.
   * @throws {UpstreamAuthError} When the sign-in ended but stored no new grant.
   */
  async #stepUp(principal: string, ask: GrantAsk): Promise<Grant> {
    const stored = await readGrant(this.#options.tokens, grantKey(this.#source.owner, principal));
    const grant = await this.#source.signInByPerson(principal, ask);
    // The sign-in reads its grant back from the store: the grant stored before, unless it stored one.
    if (stored !== undefined && grant.accessToken === stored.accessToken) {
      throw new UpstreamAuthError(
        `sign-in to "${this.#options.server}" did not complete: no new tokens were stored`,
      );
    }
    return grant;
  }

  /** Drops the principal's grant from memory: the next request reads the store. */
  drop(principal: string): void {
    this.#recent.delete(principal);
  }

  /** Forgets the principal's tokens: in memory and in the store. */
  async forget(principal: string): Promise<void> {
    this.#recent.delete(principal);
    this.#machineTokens.delete(principal);
    await this.#options.tokens.delete(grantKey(this.#source.owner, principal));
  }

  async #machineToken(principal: string, ask: GrantAsk): Promise<Grant> {
    const grant = await this.#source.clientCredentials(ask);
    this.#machineTokens.set(principal, grant);
    return grant;
  }

  /**
   * Runs `work` once per key at a time under its own signal; concurrent callers share its result,
   * each waiting under its own signal. Work every caller left is not joined but started anew.
   *
   * @param key Whose grant (the principal; a step-up's, apart).
   * @param caller The caller's signal, and the work to start unless it runs already.
   * @returns The grant.
   * @throws What the work threw, or the caller's signal's reason once it fired.
   */
  #once(key: string, caller: SharedGrant): Promise<Grant> {
    // A caller without a signal never stops waiting: the work goes on while it waits.
    const { signal = new AbortController().signal, work } = caller;
    let running = joinable(this.#pending.get(key));
    if (running === undefined) {
      if (signal.aborted) return Promise.reject(abortedLikeFetch(signal.reason));
      const shared = sharedWork(this.#owner.signal);
      const started: Promise<Grant> = shared.share(
        work(shared.signal)
          .then((grant) => (this.#renewalOf(grant), grant))
          .finally(() => {
            if (this.#pending.get(key) === started) this.#pending.delete(key);
          }),
      );
      this.#pending.set(key, started);
      running = started;
    }
    return awaitShared(running, { signal, cancelled: abortedLikeFetch });
  }

  #remember(principal: string, grant: Grant): Grant {
    this.#recent.delete(principal);
    if (this.#recent.size >= MAX_RECENT) this.#recent.delete(this.#recent.keys().next().value as string);
    this.#recent.set(principal, grant);
    return grant;
  }

  /** Whether a grant may still be sent: until its renewal time. */
  #usable(grant: Grant | undefined): boolean {
    return grant !== undefined && this.#options.clock.now() < this.#renewalOf(grant);
  }

  /**
   * When a grant is to be replaced: RENEW_MARGIN_MS before its expiry, or halfway through its time
   * left when first seen here (issue time is not stored), whichever comes later.
   */
  #renewalOf(grant: Grant): number {
    if (grant.expiresAt === null) return Infinity;
    const key = `${grant.expiresAt} ${grant.accessToken}`;
    let at = this.#renewAt.get(key);
    if (at === undefined) {
      const left = Math.max(0, grant.expiresAt - this.#options.clock.now());
      at = grant.expiresAt - Math.min(RENEW_MARGIN_MS, left / 2);
      // Bounded: the oldest goes first, most likely replaced by then.
      if (this.#renewAt.size >= 2 * MAX_RECENT) {
        this.#renewAt.delete(this.#renewAt.keys().next().value as string);
      }
      this.#renewAt.set(key, at);
    }
    return at;
  }
}

/** The key of a principal's step-up in the shared work: apart from its refreshes (see `renew`). */
function stepUpKey(principal: string): string {
  return `${principal}\u0000step-up`;
}
