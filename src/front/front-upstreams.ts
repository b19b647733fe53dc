/**
 * The upstream sessions the front sends its callers' traffic through, never the client's own (whose
 * chain does not declare the kinds the front passes down, so a server such as server-everything
 * would hide the tools that need them):
 *
 * - a modern upstream: one front session per server (the modern era keeps no connection; each
 *   request declares what its caller can answer);
 * - a legacy upstream, for modern callers: a pool per server and per principal
 *   ({@linkcode principalKey}) of sessions declaring every kind the front can answer or pass down. A
 *   call leases one for its whole life, parked rounds included, so a server's request ties to
 *   exactly one call: on stdio a lease is exclusive (see {@linkcode MAX_CALLS_PER_CALLER}); on HTTP,
 *   where a request ties by the stream that carried it, one session carries all the principal's
 *   calls. A request tied to no call runs as the principal. A session unused for
 *   `sessionIdleTimeout` closes, all close with the client, and a server has at most `maxSessions`
 *   ({@linkcode CappedSessions});
 * - a legacy upstream, for a legacy caller: a session of its own (its own stdio child or HTTP
 *   session), declaring what that caller can answer, so roots, server state and logs never cross
 *   callers; a request tied to no call runs as that caller. The caller's session closes it.
 *
 * The era of an `"auto"` server is the client's to find (it probes once and remembers).
 *
 * @module
 */
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { ClientInternals } from "../client/client-internals.ts";
import type { CallerHooks, ServerSession } from "../client/server-session.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { quote } from "../_internal/quote.ts";
import { CappedSessions, type HeldSession } from "./_capped-sessions.ts";
import { callError, type FrontCallOutcome } from "./front-call.ts";
import type { FrontServer } from "./front-server.ts";
import { type Principal, principalKey } from "./principal.ts";
import type { ModernServerSession } from "../client/modern/modern-server-session.ts";
import type { WaitingCall } from "../client/client-servers.ts";

/**
 * The most calls one principal has in progress (running, or parked waiting for its input) on one
 * legacy server over stdio; the next is refused at once with `-32000`. Each holds a process of
 * its own, so this bounds the processes one caller can keep.
 */
export const MAX_CALLS_PER_CALLER = 4;

/** One call's hold on an upstream session, from its start to its end. */
export interface UpstreamLease {
  /** The session the call runs on. */
  readonly session: ServerSession;
  /**
   * Gives the session back; only the first release counts.
   *
   * @param answered Whether the upstream answered the call (its result or its own error). A
   *   stdio session whose call was cut short (cancelled, timed out, its connection lost) is
   *   closed, not reused: the server may still be running the call, and a request it sends
   *   would tie to the session's next call.
   */
  release(answered: boolean): void;
}

/** Where one modern caller's request goes upstream ({@linkcode FrontUpstreams.forModernCallers}). */
export interface ModernCallersUpstream {
  /** The era the server speaks. */
  readonly era: "modern" | "legacy";
  /**
   * Runs a request that asks for no input (discovery, lists) on a session of the caller's: one
   * not leased if there is one, else one its calls hold (it does not wait for them), else a new
   * one.
   *
   * @param use Sends the request.
   * @returns Its result, or the refusal when the server's sessions are at `maxSessions`, all in use.
   */
  request(use: (session: ServerSession) => Promise<JsonObject>): Promise<FrontCallOutcome>;
  /**
   * Leases a session for one new call (`tools/call`, `resources/read`, `prompts/get`).
   *
   * @returns The lease, or the refusal (`-32000`) when the caller already has
   *   {@linkcode MAX_CALLS_PER_CALLER} calls in progress on a stdio server, or the server's
   *   sessions are at `maxSessions`, all in use.
   */
  lease(): UpstreamLease | FrontCallOutcome;
}

/** One pooled legacy session of one principal's: busy while a call or a request uses it. */
interface Pooled extends HeldSession {
  readonly session: ServerSession;
  /** The calls that lease it (at most one on stdio). */
  calls: number;
  /** The requests without input running on it. */
  requests: number;
  lastUsed: number;
}

/** One server's pool, by session. */
type Pool = CappedSessions<ServerSession, Pooled>;

/** The front's upstream sessions. */
export class FrontUpstreams {
  readonly #internals: ClientInternals;
  readonly #modern = new Map<string, ModernServerSession>();
  readonly #pools = new Map<string, Pool>();

  /** @param internals The client's internals; its close closes the pooled sessions. */
  constructor(internals: ClientInternals) {
    this.#internals = internals;
    // A call still holding a pooled session ends with it.
    internals.onClose(async () => {
      await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
    });
  }

  /**
   * Where a modern caller's request goes: the front's modern session, or the caller's pool of
   * legacy sessions.
   *
   * @param server The server.
   * @param call The caller's request waiting for the era probe (its signal and method), the
   *   caller if known (callers without one share one pool), and its sign-in when the server
   *   signs in per person.
   * @returns The upstream side of the request.
   */
  forModernCallers(
    server: FrontServer,
    call: WaitingCall & { readonly principal: Principal | undefined; readonly fetch?: Fetcher | undefined },
  ): Promise<ModernCallersUpstream> {
    const { principal, fetch } = call;
    // On every modern call's path: one promise step, no more.
    return this.#internals.eraOf(server.policy.server, call).then((era) =>
      era === "modern" ? this.#modernUpstream(server) : this.#legacyUpstream(server, principal, fetch)
    );
  }

  /**
   * The session for one legacy caller: the front's modern session, or a new legacy session of
   * the caller's own (the caller closes it).
   *
   * @param server The server.
   * @param call The caller's request waiting for the era probe (its signal and method), its `hooks`,
   *   its sign-in when the server signs in per person (a modern session takes it per request), and
   *   the caller.
   * @returns The session, and whether it is the caller's own.
   */
  async forLegacyCaller(
    server: FrontServer,
    call: WaitingCall & {
      readonly hooks: CallerHooks;
      readonly fetch?: Fetcher | undefined;
      readonly principal?: Principal | undefined;
    },
  ): Promise<{ readonly session: ServerSession; readonly own: boolean }> {
    const { hooks, fetch, principal } = call;
    const serverId = server.policy.server;
    if (await this.#internals.eraOf(serverId, call) === "modern") {
      return { session: this.modernOf(server), own: false };
    }
    const session = this.#internals.legacySession(serverId, server.chain, {
      caller: hooks,
      fetch,
      principal,
    });
    return { session, own: true };
  }

  /**
   * The front's modern session to a server (the modern front steps its rounds on it).
   *
   * @param server The server.
   * @returns The session.
   */
  modernOf(server: FrontServer): ModernServerSession {
    const serverId = server.policy.server;
    let session = this.#modern.get(serverId);
    if (session === undefined) {
      session = this.#internals.modernSession(serverId, server.chain);
      this.#modern.set(serverId, session);
    }
    return session;
  }

  #modernUpstream(server: FrontServer): ModernCallersUpstream {
    const session = this.modernOf(server);
    return {
      era: "modern",
      request: async (use) => ({ kind: "result", result: await use(session) }),
      lease: () => ({ session, release: () => {} }),
    };
  }

  #legacyUpstream(
    server: FrontServer,
    principal: Principal | undefined,
    fetch: Fetcher | undefined,
  ): ModernCallersUpstream {
    return {
      era: "legacy",
      request: (use) => this.#request(server, principal, use, fetch),
      lease: () => this.#lease(server, principal, fetch),
    };
  }

  async #request(
    server: FrontServer,
    principal: Principal | undefined,
    use: (session: ServerSession) => Promise<JsonObject>,
    fetch: Fetcher | undefined,
  ): Promise<FrontCallOutcome> {
    const pool = this.#poolOf(server);
    const key = principalKey(principal);
    const mine = [...pool.values()].filter((entry) => entry.owner === key);
    const entry = mine.find((candidate) => candidate.calls === 0) ?? mine[0] ??
      this.#open(server, principal, fetch);
    if (entry === undefined) return callError(-32000, pool.refusal);
    entry.requests++;
    entry.lastUsed = this.#internals.clock.now();
    try {
      return { kind: "result", result: await use(entry.session) };
    } finally {
      entry.requests--;
      this.#settle(pool, entry);
    }
  }

  #lease(
    server: FrontServer,
    principal: Principal | undefined,
    fetch: Fetcher | undefined,
  ): UpstreamLease | FrontCallOutcome {
    const pool = this.#poolOf(server);
    const key = principalKey(principal);
    const mine = [...pool.values()].filter((entry) => entry.owner === key);
    const stdio = server.policy.transport.kind === "stdio";
    let entry: Pooled | undefined;
    if (stdio) {
      const inProgress = mine.reduce((sum, candidate) => sum + candidate.calls, 0);
      if (inProgress >= MAX_CALLS_PER_CALLER) return tooManyCalls(server, key);
      entry = mine.find((candidate) => candidate.calls === 0);
    } else {
      entry = mine[0];
    }
    entry ??= this.#open(server, principal, fetch);
    if (entry === undefined) return callError(-32000, pool.refusal);
    const leased = entry;
    leased.calls++;
    leased.lastUsed = this.#internals.clock.now();
    let released = false;
    return {
      session: leased.session,
      release: (answered) => {
        if (released) return;
        released = true;
        leased.calls--;
        if (stdio && !answered) pool.delete(leased.session);
        this.#settle(pool, leased);
      },
    };
  }

  #poolOf(server: FrontServer): Pool {
    const serverId = server.policy.server;
    const pool = this.#pools.get(serverId) ??
      new CappedSessions(server.policy, "upstream sessions for 2026-07-28 callers", this.#internals);
    this.#pools.set(serverId, pool);
    return pool;
  }

  /**
   * A new session in the pool, for a principal; at `maxSessions` another is closed to make room,
   * fairly between principals ({@linkcode CappedSessions.makeRoom}).
   *
   * @param server The server.
   * @param principal The caller whose request opens it, and whose the session is.
   * @param fetch The caller's sign-in, when the server signs in per person.
   * @returns The entry, or `undefined` while every session is in use.
   */
  #open(
    server: FrontServer,
    principal: Principal | undefined,
    fetch: Fetcher | undefined,
  ): Pooled | undefined {
    const pool = this.#poolOf(server);
    if (!pool.makeRoom(principalKey(principal))) return undefined;
    const { policy, chain } = server;
    const session = this.#internals.legacySession(policy.server, chain, { fetch, principal, pooled: true });
    const entry: Pooled = {
      session,
      owner: principalKey(principal),
      calls: 0,
      requests: 0,
      lastUsed: this.#internals.clock.now(),
      get busy() {
        return this.calls + this.requests > 0;
      },
      close: () => session.close(),
    };
    pool.set(session, entry);
    return entry;
  }

  /** After a use ends: a session out of the pool (retired, or the front closed) closes once unused. */
  #settle(pool: Pool, entry: Pooled): void {
    entry.lastUsed = this.#internals.clock.now();
    if (!pool.has(entry.session) && !entry.busy) void entry.session.close().catch(() => {});
  }
}

/** The refusal of a call past {@linkcode MAX_CALLS_PER_CALLER}. */
function tooManyCalls(server: FrontServer, key: string): FrontCallOutcome {
  const who = key === ""
    ? "callers without a principal already have"
    : `caller ${quote(key, 64)} already has`;
  return callError(
    -32000,
    `Too many calls in progress: ${who} "${MAX_CALLS_PER_CALLER}" calls running on server ${
      quote(server.policy.server, 64)
    } (each holds a stdio server of its own); wait for one to end`,
  );
}
