/**
 * The servers of one client and the sessions it speaks to them through. Each server's session is opened on
 * first use, in the era its policy names or, for `"auto"` over HTTP, the era a `server/discover` probe finds
 * (digest §2.7; an outage is an error, not an era), and kept until a failure says the guess was wrong. The
 * front opens sessions of its own from the same servers (its own chain, its caller's sign-in and principal)
 * and closes them itself, so they are never kept here.
 *
 * @module
 */
import type { Chain } from "../chain/chain.ts";
import type { Timers } from "../_internal/timers.ts";
import type { Clock } from "../_internal/clock.ts";
import { ClientError } from "../errors.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import type { Implementation } from "../protocol/meta.ts";
import type { NotificationQueue } from "../notify/notification-queue.ts";
import { messageLimitsOf } from "../protocol/message-limits.ts";
import { probeEra } from "./era-probe.ts";
import { awaitShared, joinable, sharedWork } from "../_internal/signals.ts";
import { abortError } from "./modern/failure-errors.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { ModernServerSession } from "./modern/modern-server-session.ts";
import { ModernSession } from "./modern/modern-session.ts";
import type { CallerHooks, ServerSession } from "./server-session.ts";
import type { Principal } from "../handler/handler.ts";

/** One server of the client. */
export interface ServerEntry {
  readonly policy: CompiledPolicy;
  readonly chain: Chain;
  /** The server's fetch: the client's, signing in first when the policy has `transport.auth`. */
  readonly fetch: Fetcher;
}

/** What a legacy session is built from: with the front's caller, principal and pooling when the front opens it. */
export interface LegacySessionInput extends Omit<FrontLegacySession, "fetch"> {
  readonly policy: CompiledPolicy;
  readonly chain: Chain;
  readonly clientInfo: Implementation;
  readonly fetch: Fetcher;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly assigns: Readonly<Record<string, unknown>>;
  /** Takes the server's notifications; `connection` numbers its connections (log budget per connection). */
  readonly notify: (notification: JsonRpcNotification, connection: number) => void;
}

/** Whom the front opens a legacy session for ({@linkcode ClientServers.legacySession}). */
export interface FrontLegacySession {
  /** A legacy caller's hooks (its own declaration, its unrelated messages); none for a pooled session. */
  readonly caller?: CallerHooks | undefined;
  /** The fetch to use instead of the server's (the caller's sign-in). @default the server's */
  readonly fetch?: Fetcher | undefined;
  /** The one caller the session belongs to: the server's requests tied to no call run as theirs. */
  readonly principal?: Principal | undefined;
  /**
   * The session serves 2026 calls (no caller of its own, no channel but a call's rounds): a request the
   * server ties to no call is tied to the one call in flight, when there is exactly one, as on stdio.
   */
  readonly pooled?: boolean | undefined;
}

/** What every session of the client is opened with. */
export interface SessionParts {
  /** The client's name, for errors. */
  readonly client: string;
  readonly clientInfo: Implementation;
  /** Whether the client declares the tasks extension. */
  readonly tasks: boolean;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly assigns: Readonly<Record<string, unknown>>;
  /** Where the servers' notifications go. */
  readonly queue: Pick<NotificationQueue, "push">;
  /** Opens a legacy session: only the self-hosted entry can. */
  readonly legacy: ((input: LegacySessionInput) => ServerSession) | undefined;
}

/** The era a server speaks. */
type Era = "modern" | "legacy";

/** A call waiting for a server's session or era, shared with the calls that wait with it. */
export interface WaitingCall {
  /** Ends this call's wait (the work shared goes on for the others). */
  readonly signal: AbortSignal;
  /** The call's method (`"tools/call"`), named when it gives up while it waits. */
  readonly method: string;
}

/** Where the legacy era and stdio are: what an entry without them tells its user. */
export const LEGACY_ENTRY = 'import createClient from "@sluice/mcp/legacy" (self-hosted)';

/** A client's servers and their sessions. */
export class ClientServers {
  readonly #entries: ReadonlyMap<string, ServerEntry>;
  readonly #parts: SessionParts;
  /** Each server's session, once asked for; an attempt that failed is forgotten. */
  readonly #sessions = new Map<string, Promise<ServerSession>>();
  /** The probed eras of `"auto"` servers the front asked about; a probe that failed is forgotten. */
  readonly #eras = new Map<string, Promise<Era>>();
  /** The sessions kept in `#sessions`, once opened (closed with the client). */
  readonly #opened = new Set<ServerSession>();
  /** How many calls run on or wait for each session, kept or forgotten, counted by its promise. */
  readonly #calls = new Map<Promise<ServerSession>, number>();
  /** The closes of forgotten sessions under way (`close()` waits for them). */
  readonly #closing = new Set<Promise<void>>();
  /** What closes the sessions the front opened. */
  readonly #closers: Array<() => Promise<void>> = [];
  #closed: ClientError | undefined;
  /** The signal of the probes the calls share (aborted by `close()`): owned by none of them. */
  readonly #lifetime = new AbortController();

  /**
   * @param entries The servers, by id.
   * @param parts What every session is opened with.
   */
  constructor(entries: ReadonlyMap<string, ServerEntry>, parts: SessionParts) {
    this.#entries = entries;
    this.#parts = parts;
  }

  /** The servers' ids. */
  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every server's compiled policy. */
  policies(): CompiledPolicy[] {
    return [...this.#entries.values()].map((entry) => entry.policy);
  }

  /**
   * A server's compiled policy.
   *
   * @param serverId The server.
   * @returns Its policy, or `undefined` for an unknown server.
   */
  policyOf(serverId: string): CompiledPolicy | undefined {
    return this.#entries.get(serverId)?.policy;
  }

  /**
   * Runs one call on a server's session, opened on first use. The call is counted on its session before it
   * waits, so no other call's failure closes the session under it: a forgotten session closes after its last
   * call.
   *
   * @param serverId The server.
   * @param call The call: its signal ends its wait for the era probe.
   * @param work The call, on the session.
   * @returns What the call returns.
   * @throws {ClientError} `"config"` when the client is closed or the server unknown; what the
   *   probe fails with; `"cancelled"` or `"timeout"` (naming the call's method) when its signal
   *   fires during the probe; and what the call fails with.
   */
  async run<T>(
    serverId: string,
    call: WaitingCall,
    work: (session: ServerSession) => Promise<T>,
  ): Promise<T> {
    const kept = this.#takeSession(serverId, call);
    this.#calls.set(kept, (this.#calls.get(kept) ?? 0) + 1);
    try {
      const session = await this.#awaitSession(serverId, kept, call);
      try {
        return await work(session);
      } catch (error) {
        if (error instanceof ClientError) this.#afterFailure(kept, session, error);
        throw error;
      }
    } finally {
      this.#callEnded(serverId, kept);
    }
  }

  /**
   * The server's kept session, or a new one kept from now on (synchronously, so a call counts it first).
   *
   * @throws {ClientError} `"config"` when the client is closed or the server unknown;
   *   `"cancelled"` or `"timeout"` (naming the call's method) when a probe would start under a
   *   signal fired already.
   */
  #takeSession(serverId: string, call: WaitingCall): Promise<ServerSession> {
    if (this.#closed !== undefined) {
      throw new ClientError("config", `Client "${this.#parts.client}" is closed`);
    }
    const entry = this.#entries.get(serverId);
    if (entry === undefined) {
      const ids = this.ids();
      const expected = ids.length === 0
        ? `client "${this.#parts.client}" has no servers (its "policies" are empty)`
        : `expected one of ${ids.map((id) => `"${id}"`).join(", ")}`;
      throw new ClientError(
        "config",
        `Unknown server ${JSON.stringify(String(serverId).slice(0, 64))}: ${expected}`,
      );
    }
    const kept = joinable(this.#sessions.get(serverId));
    if (kept !== undefined) return kept;
    if (probes(entry.policy) && call.signal.aborted) {
      throw abortError(serverId, call.method, call.signal.reason);
    }
    return this.#keepSession(serverId, entry);
  }

  /** Waits for a session from `#takeSession`: a call that gives up during a probe is told of its own call, not of the probe it shares. */
  #awaitSession(serverId: string, kept: Promise<ServerSession>, call: WaitingCall): Promise<ServerSession> {
    const policy = this.#entries.get(serverId)?.policy;
    if (policy === undefined || !probes(policy)) return kept;
    const cancelled = (reason: unknown) => abortError(serverId, call.method, reason);
    return awaitShared(kept, { signal: call.signal, cancelled });
  }

  /**
   * Forgets an `"auto"` server's session after a transport or protocol failure, or a modern error answered to
   * a legacy session (a wrong guess), so the next call probes again; one forgotten already is left alone (the
   * server's session may be another by now).
   */
  #afterFailure(kept: Promise<ServerSession>, session: ServerSession, error: ClientError): void {
    const { serverId } = session;
    const policy = this.#entries.get(serverId)?.policy;
    if (policy?.era !== "auto" || this.#sessions.get(serverId) !== kept) return;
    // Over stdio the era is legacy without a probe: a modern error there changes nothing.
    const wrongGuess = probes(policy) && session.era === "legacy" && error.kind === "server" &&
      MODERN_ERRORS.has(error.code);
    if (error.kind === "transport" || error.kind === "protocol" || wrongGuess) {
      this.#sessions.delete(serverId);
      this.#opened.delete(session);
    }
  }

  /** Counts a call on `kept` ended, and closes its session once it is forgotten and no call runs on it. */
  #callEnded(serverId: string, kept: Promise<ServerSession>): void {
    const left = (this.#calls.get(kept) ?? 1) - 1;
    if (left > 0) {
      this.#calls.set(kept, left);
      return;
    }
    this.#calls.delete(kept);
    // Once the client is closed, close() has closed it.
    if (this.#sessions.get(serverId) === kept || this.#closed !== undefined) return;
    const closing: Promise<void> = kept.then((session) => (this.#opened.delete(session), session.close()))
      .catch(() => {}).finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }

  /**
   * A server's era. With `fetch` (the front's caller's sign-in), an unresolved `"auto"` server is probed
   * through it and only the era is kept; without, the client's own session is opened.
   *
   * @param serverId The server.
   * @param call The call that waits, and the fetch to probe with.
   * @returns `"modern"` or `"legacy"`.
   * @throws {ClientError} `"config"` when the client is closed or the server unknown; what the
   *   probe fails with; `"cancelled"` or `"timeout"` (naming the call's method) when its signal
   *   fires during it.
   */
  async eraOf(serverId: string, call: WaitingCall & { readonly fetch?: Fetcher | undefined }): Promise<Era> {
    const { signal, method, fetch } = call;
    const entry = this.#entries.get(serverId);
    if (fetch === undefined || entry === undefined) {
      return (await this.#awaitSession(serverId, this.#takeSession(serverId, call), call)).era;
    }
    const { policy } = entry;
    if (policy.era !== "auto") return policy.era;
    if (policy.transport.kind === "stdio") return "legacy";
    // A probe is shared: each call waits under its own signal and is told of its own call.
    const cancelled = (reason: unknown) => abortError(serverId, method, reason);
    const session = joinable(this.#sessions.get(serverId));
    if (session !== undefined) return (await awaitShared(session, { signal, cancelled })).era;
    const kept = joinable(this.#eras.get(serverId));
    if (kept === undefined && signal.aborted) throw cancelled(signal.reason);
    const probe = () => {
      const work = sharedWork(this.#lifetime.signal);
      return work.share(probeEra(this.#modern(this.#frontEntry(serverId, entry.chain, fetch)), work.signal));
    };
    return await awaitShared(kept ?? keptUntilFailed(this.#eras, serverId, probe()), { signal, cancelled });
  }

  /**
   * A new legacy session to a server with the front's chain, for one of its callers when `owner.caller` is
   * given; not kept here.
   *
   * @param serverId The server.
   * @param chain The chain of the session.
   * @param owner The front's caller's hooks, its fetch, and the principal the session belongs to.
   * @returns The session.
   * @throws {ClientError} `"config"` when the client is closed, the entry has no legacy support or
   *   the server is unknown.
   */
  legacySession(serverId: string, chain: Chain, owner: FrontLegacySession = {}): ServerSession {
    return this.#legacy(this.#frontEntry(serverId, chain, owner.fetch), owner);
  }

  /**
   * A new modern session to a server with another chain (the front's), not kept here.
   *
   * @param serverId The server.
   * @param chain The chain of the session.
   * @returns The session.
   * @throws {ClientError} `"config"` when the client is closed, the server unknown or not reached
   *   over HTTP.
   */
  modernSession(serverId: string, chain: Chain): ModernServerSession {
    return this.#modern(this.#frontEntry(serverId, chain));
  }

  /**
   * Runs `listener` on close, before the kept sessions close (the front closes its own there).
   *
   * @param listener Closes what the listener's owner opened; its failure is ignored.
   */
  onClose(listener: () => Promise<void>): void {
    this.#closers.push(listener);
  }

  /**
   * Refuses new sessions, runs the close listeners, then closes every session, kept or forgotten, and waits.
   *
   * @param reason Why (the client was closed).
   */
  async close(reason: ClientError): Promise<void> {
    this.#closed ??= reason;
    this.#lifetime.abort(reason);
    await Promise.all(this.#closers.map((closer) => closer().catch(() => {})));
    const kept = [...this.#opened];
    // The sessions forgotten but still running calls (kept ones are closed once).
    const forgotten = [...this.#calls.keys()].map((counted) =>
      counted.then((session) => kept.includes(session) ? undefined : session.close()).catch(() => {})
    );
    await Promise.all([
      ...kept.map((session) => session.close().catch(() => {})),
      ...forgotten,
      ...this.#closing,
    ]);
  }

  /** Opens a server's session (its era probed under the work's own signal, see `sharedWork`) and keeps it until it fails. */
  #keepSession(serverId: string, entry: ServerEntry): Promise<ServerSession> {
    const work = sharedWork(this.#lifetime.signal);
    return keptUntilFailed(
      this.#sessions,
      serverId,
      work.share(this.#open(entry, work.signal).then((session) => (this.#opened.add(session), session))),
    );
  }

  async #open(entry: ServerEntry, signal: AbortSignal): Promise<ServerSession> {
    const { era } = entry.policy;
    if (era === "modern") return this.#modern(entry);
    if (!probes(entry.policy)) return this.#legacy(entry);
    const candidate = this.#modern(entry);
    return await probeEra(candidate, signal) === "modern" ? candidate : this.#legacy(entry);
  }

  #modern(entry: ServerEntry): ModernServerSession {
    const { policy, chain, fetch } = entry;
    const { clientInfo, tasks, timers, queue } = this.#parts;
    if (policy.transport.kind !== "http") {
      throw new ClientError(
        "config",
        `Server "${policy.server}": the modern era over stdio is not supported; use era "legacy"`,
        { serverId: policy.server },
      );
    }
    const session = new ModernSession({
      serverId: policy.server,
      transport: policy.transport,
      chain,
      clientInfo,
      tasks,
      fetch,
      timers,
      callTimeoutMs: policy.callTimeoutMs,
      limits: messageLimitsOf(policy),
      maxInputRequests: policy.maxInputRequests,
      logLevel: policy.logLevel,
      notify: (notification) => queue.push(policy.server, "modern", notification),
    });
    return new ModernServerSession(session, { maxRounds: policy.maxRounds, tasks, timers });
  }

  #legacy(entry: ServerEntry, owner: Omit<FrontLegacySession, "fetch"> = {}): ServerSession {
    const { policy, chain, fetch } = entry;
    const { legacy, clientInfo, timers, clock, assigns, queue } = this.#parts;
    if (legacy === undefined) {
      throw new ClientError(
        "config",
        `Server "${policy.server}" needs the legacy era or stdio, which this entry does not speak: ${LEGACY_ENTRY}`,
        { serverId: policy.server },
      );
    }
    const notify = (notification: JsonRpcNotification, connection: number) =>
      queue.push(policy.server, "legacy", notification, connection);
    const { caller, principal, pooled } = owner;
    return legacy({
      policy,
      chain,
      clientInfo,
      fetch,
      timers,
      clock,
      assigns,
      notify,
      caller,
      principal,
      pooled,
    });
  }

  /** A server as the front opens it: its chain, and its caller's fetch when given. */
  #frontEntry(serverId: string, chain: Chain, fetch?: Fetcher): ServerEntry {
    if (this.#closed !== undefined) {
      throw new ClientError("config", `Client "${this.#parts.client}" is closed`);
    }
    const entry = this.#entries.get(serverId);
    if (entry === undefined) {
      throw new ClientError("config", `Unknown server ${JSON.stringify(serverId.slice(0, 64))}`);
    }
    return { policy: entry.policy, chain, fetch: fetch ?? entry.fetch };
  }
}

/**
 * The errors only a modern server answers with (header mismatch, missing capabilities, unsupported version:
 * digest §2.7): a legacy session that gets one was a wrong guess.
 */
const MODERN_ERRORS: ReadonlySet<number | undefined> = new Set([-32020, -32021, -32022]);

/** Whether a server's era is found by a `server/discover` probe (`"auto"` over HTTP). */
function probes(policy: CompiledPolicy): boolean {
  return policy.era === "auto" && policy.transport.kind === "http";
}

/** Keeps an attempt under its key until it fails, so the next call after a failure tries again. */
function keptUntilFailed<T>(kept: Map<string, Promise<T>>, key: string, attempt: Promise<T>): Promise<T> {
  kept.set(key, attempt);
  attempt.catch(() => {
    if (kept.get(key) === attempt) kept.delete(key);
  });
  return attempt;
}
