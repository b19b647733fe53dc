/**
 * The upstream sessions the front sends its callers' traffic through, never the client's own
 * (whose chain does not declare the kinds the front passes down, so a server such as
 * server-everything would hide the tools that need them):
 *
 * - a modern upstream: one front session per server (the modern era keeps no connection; each
 *   request declares what its caller can answer);
 * - a legacy upstream, for modern callers: one shared front session per server, which declares
 *   every kind the front can answer or pass down (modern callers have no session of their own);
 * - a legacy upstream, for a legacy caller: a session of its own (its own stdio child or HTTP
 *   session), declaring what that caller can answer, so roots, server state and logs never
 *   cross callers. The caller's session closes it.
 *
 * The era of an `"auto"` server is the client's to find (it probes once and remembers).
 *
 * @module
 */
import type { ClientInternals } from "../client/client-core.ts";
import type { CallerHooks, ServerSession } from "../client/server-session.ts";
import type { FrontServer } from "./front-server.ts";
import type { ModernServerSession } from "../client/modern/modern-server-session.ts";

/** The front's upstream sessions. */
export class FrontUpstreams {
  readonly #internals: ClientInternals;
  readonly #modern = new Map<string, ModernServerSession>();
  readonly #shared = new Map<string, ServerSession>();

  /** @param internals The client's internals. */
  constructor(internals: ClientInternals) {
    this.#internals = internals;
  }

  /**
   * The era a server speaks (probing an `"auto"` server first).
   *
   * @param serverId The server.
   * @param signal Aborts the probe.
   * @returns Its era.
   * @throws {ClientError} When the server is unknown, or the probe failed to reach it.
   */
  async eraOf(serverId: string, signal: AbortSignal): Promise<"modern" | "legacy"> {
    return (await this.#internals.sessionOf(serverId, signal)).era;
  }

  /**
   * The session for modern callers: the front's modern session, or its shared legacy one.
   *
   * @param server The server.
   * @param signal Aborts the era probe.
   * @returns The session.
   */
  forModernCallers(server: FrontServer, signal: AbortSignal): Promise<ServerSession> {
    // On every modern call's path: one promise step, no more.
    return this.#internals.sessionOf(server.policy.server, signal).then((session) =>
      session.era === "modern" ? this.modernOf(server) : this.#sharedOf(server)
    );
  }

  /**
   * The session for one legacy caller: the front's modern session, or a new legacy session of
   * the caller's own (the caller closes it).
   *
   * @param server The server.
   * @param hooks What the caller declares, and where its unrelated messages go.
   * @param signal Aborts the era probe.
   * @returns The session, and whether it is the caller's own.
   */
  async forLegacyCaller(
    server: FrontServer,
    hooks: CallerHooks,
    signal: AbortSignal,
  ): Promise<{ readonly session: ServerSession; readonly own: boolean }> {
    const serverId = server.policy.server;
    if (await this.eraOf(serverId, signal) === "modern") {
      return { session: this.modernOf(server), own: false };
    }
    return { session: this.#internals.legacySession(serverId, server.chain, hooks), own: true };
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

  #sharedOf(server: FrontServer): ServerSession {
    const serverId = server.policy.server;
    let session = this.#shared.get(serverId);
    if (session === undefined) {
      session = this.#internals.legacySession(serverId, server.chain);
      this.#shared.set(serverId, session);
    }
    return session;
  }
}
