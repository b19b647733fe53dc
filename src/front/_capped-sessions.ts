/**
 * One server's sessions held to its `maxSessions` and `sessionIdleTimeout`, for the front's legacy
 * callers and for its upstream sessions of 2026-07-28 callers. At the cap an idle session makes
 * room, as hosts that never end theirs (a command line run again and again) would lock others out.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import type { Timers } from "../_internal/timers.ts";
import { quote } from "../_internal/quote.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";

/** What a held session tells about itself. */
export interface HeldSession {
  /** Whose it is: its caller's `principalKey` (callers without a principal are one, `""`). */
  readonly owner: string;
  /** Whether it is in use: such a session is never closed as idle. */
  readonly busy: boolean;
  /** Whether only its open streams keep it in use, with no request in flight. @default false */
  readonly streamsOnly?: boolean;
  /** When it was last used (milliseconds of the clock). */
  readonly lastUsed: number;
  /** Ends it. */
  close(): Promise<void>;
}

/**
 * A server's sessions by key, at most `maxSessions` of them, each closed once idle past
 * `sessionIdleTimeout`: by a sweep every quarter of that time (from 1 s to 60 s), or when looked
 * up with `get` before that. Deleting a key lets go of its session without closing it.
 */
export class CappedSessions<K, S extends HeldSession> extends Map<K, S> {
  readonly #policy: Pick<CompiledPolicy, "server" | "maxSessions" | "sessionIdleTimeoutMs">;
  readonly #what: string;
  readonly #time: { readonly clock: Clock; readonly timers: Timers };
  #sweeper: unknown;
  #closed = false;

  /**
   * @param policy The server's policy: its id, `maxSessions` and `sessionIdleTimeoutMs`.
   * @param what What the sessions are, for the refusal: `sessions`, `upstream sessions for …`.
   * @param time The clock and the timers.
   */
  constructor(
    policy: Pick<CompiledPolicy, "server" | "maxSessions" | "sessionIdleTimeoutMs">,
    what: string,
    time: { readonly clock: Clock; readonly timers: Timers },
  ) {
    super();
    this.#policy = policy;
    this.#what = what;
    this.#time = time;
  }

  /** The refusal of a new session while all `maxSessions` are in use. */
  get refusal(): string {
    const { server, maxSessions } = this.#policy;
    return `Too many sessions: all ${this.#what} of server ${
      quote(server, 64)
    } are in use (maxSessions ${maxSessions} in its policy); try again later`;
  }

  /**
   * At the cap, closes one session to make room for one of `owner`'s, never another caller's who holds
   * no more than `owner`: an idle one of `owner`'s or of a bigger holder (the biggest holder's, longest
   * unused first); else, of another caller holding at least two and more than half of `maxSessions`,
   * its longest-unused session with no request in flight, even with streams open.
   *
   * @param owner Whose the new session is: its caller's `principalKey`.
   * @returns Whether a session may be added now (`false` when none of those can make room).
   */
  makeRoom(owner: string): boolean {
    const { maxSessions } = this.#policy;
    if (this.size < maxSessions) return true;
    const held = new Map<string, number>();
    for (const session of this.values()) held.set(session.owner, (held.get(session.owner) ?? 0) + 1);
    const mine = held.get(owner) ?? 0;
    const heldBy = (session: S) => held.get(session.owner) ?? 0;
    // The biggest holder's first, each's longest unused first.
    const order = [...this].sort(([, a], [, b]) => heldBy(b) - heldBy(a) || a.lastUsed - b.lastUsed);
    const room =
      order.find(([, session]) => !session.busy && (session.owner === owner || heldBy(session) > mine)) ??
        order.find(([, session]) =>
          session.owner !== owner && heldBy(session) >= 2 && heldBy(session) * 2 > maxSessions &&
          (!session.busy || session.streamsOnly === true)
        );
    if (room === undefined) return false;
    this.#end(...room);
    return true;
  }

  /**
   * Holds a session (counted at once, so that two made at the same time cannot pass the cap
   * together), and sweeps while any are held; call {@linkcode CappedSessions.makeRoom} first.
   *
   * @param key Its key.
   * @param session The session.
   * @returns This map.
   */
  override set(key: K, session: S): this {
    super.set(key, session);
    this.#sweep();
    return this;
  }

  /**
   * The session of `key`, unless idle past `sessionIdleTimeout`: then it is closed now, whatever the
   * sweep's pace.
   *
   * @param key Its key.
   * @returns The session, or `undefined`.
   */
  override get(key: K): S | undefined {
    const session = super.get(key);
    if (session === undefined || session.busy) return session;
    if (this.#time.clock.now() - session.lastUsed < this.#policy.sessionIdleTimeoutMs) return session;
    this.#end(key, session);
    return undefined;
  }

  /** Closes every session and stops the sweep; no sweep starts again. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#time.timers.clearTimeout(this.#sweeper);
    this.#sweeper = undefined;
    const all = [...this.values()];
    this.clear();
    await Promise.all(all.map((session) => session.close().catch(() => {})));
  }

  #end(key: K, session: S): void {
    this.delete(key);
    void session.close().catch(() => {});
  }

  /** Closes the sessions unused past `sessionIdleTimeout`; runs while any are held. */
  #sweep(): void {
    if (this.#sweeper !== undefined || this.#closed || this.size === 0) return;
    const idleMs = this.#policy.sessionIdleTimeoutMs;
    this.#sweeper = this.#time.timers.setTimeout(() => {
      this.#sweeper = undefined;
      const now = this.#time.clock.now();
      for (const [key, session] of this) {
        if (!session.busy && now - session.lastUsed >= idleMs) this.#end(key, session);
      }
      this.#sweep();
    }, Math.max(1000, Math.min(60_000, Math.floor(idleMs / 4))));
    // The sweep must not keep a self-hosted process alive on its own.
    (this.#sweeper as { unref?: () => void } | null)?.unref?.();
  }
}
