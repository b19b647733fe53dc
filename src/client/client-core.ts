/**
 * The client shared by both entries: policies, chains, the era of each server and its session.
 * The edge entry passes no legacy support (modern era over HTTP only); `@sluice/mcp/legacy` passes
 * the legacy adapter and stdio.
 *
 * Era choice per server: `"modern"` and `"legacy"` as the policy says; `"auto"` probes an HTTP
 * server with `server/discover` and falls back to `initialize` on anything but a recognised modern
 * answer (digest §2.7), caches the answer, and probes again after a transport or protocol failure.
 *
 * @module
 */
import { type Chain, createChain } from "../chain/chain.ts";
import type { Decision, DecisionListener } from "../chain/decision.ts";
import { systemTimers, type Timers } from "../_internal/timers.ts";
import { type Clock, systemClock } from "../_internal/clock.ts";
import { ClientError } from "../errors.ts";
import { createMemoryStore } from "../limits/memory-store.ts";
import { type CompiledPolicy, compilePolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { DEFAULT_LOG_RATE, type NotificationStats } from "../notify/notification-queue.ts";
import type { NotificationEntry } from "../notify/notification-entry.ts";
import type { Implementation } from "../protocol/meta.ts";
import { createNotificationQueue } from "../notify/notification-queue.ts";
import { type LinkedSignal, openFlow } from "../_internal/signals.ts";
import { createClientMethods } from "./client-methods.ts";
import type { Client, ClientOptions } from "./client-types.ts";
import { probeEra } from "./era-probe.ts";
import type { Fetcher } from "./modern/http-leg.ts";
import type { EnvironmentReader, UpstreamSignIn } from "../auth/upstream-sign-in.ts";
import { createMemoryTokenStore, type TokenStore } from "../auth/token-store.ts";
import { createSignInMethods, serverSignIn } from "./_sign-ins.ts";
import { messageLimitsOf } from "../transport/read-response.ts";
import { ModernServerSession } from "./modern/modern-server-session.ts";
import { ModernSession } from "./modern/modern-session.ts";
import type { CallerHooks, ServerSession } from "./server-session.ts";
import type { Handler } from "../handler/handler.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";

/** sluice's version, sent as `clientInfo.version` when the caller gives none. */
export const SLUICE_VERSION = "0.1.0";

/** What a legacy session is built from. */
export interface LegacySessionInput {
  readonly policy: CompiledPolicy;
  readonly chain: Chain;
  readonly clientInfo: Implementation;
  readonly fetch: Fetcher;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly assigns: Readonly<Record<string, unknown>>;
  readonly wantsLogs: boolean;
  /** Takes the server's notifications; `connection` numbers its connections (log budget per connection). */
  readonly notify: (notification: JsonRpcNotification, connection: number) => void;
  /** The front's hooks when the session serves one of its callers. */
  readonly caller?: CallerHooks | undefined;
}

/** What an entry adds to the core. */
export interface EraSupport {
  /** Builds a legacy session (self-hosted entry only). */
  readonly legacy?: (input: LegacySessionInput) => ServerSession;
  /**
   * Reads the runtime's environment when the options give no `environment` (the self-hosted
   * entry: its runtime's environment variables). Without it, no variable is set.
   */
  readonly environment?: EnvironmentReader;
  /**
   * Runs once `client.close()` has closed every session: releases what the entry made for the
   * client (the self-hosted entry's connection pool on Node). Its failure is ignored.
   */
  readonly onClose?: () => Promise<void>;
}

/** What the front needs of a client beyond its public methods (see {@linkcode clientInternals}). */
export interface ClientInternals {
  readonly clientInfo: Implementation;
  readonly handler: Handler | undefined;
  readonly store: RateLimitStore;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly tasks: boolean;
  /** Every server's compiled policy. */
  policies(): CompiledPolicy[];
  /** A server's session (its era resolved first when `"auto"`). */
  sessionOf(serverId: string, signal: AbortSignal): Promise<ServerSession>;
  /**
   * A server's era, probed through `fetch` when `"auto"` and not yet known (the front probes
   * with its caller's sign-in); only the era is kept, never the probing session.
   */
  eraOf(serverId: string, signal: AbortSignal, fetch?: Fetcher): Promise<"modern" | "legacy">;
  /** A server's upstream sign-in, when its policy has `transport.auth`. */
  signIn(serverId: string): UpstreamSignIn | undefined;
  /** Where sign-ins keep grants, registrations and flows in progress. */
  readonly tokens: TokenStore;
  /** Tells the client's decision listeners (the front's chains and calls report through it). */
  readonly decide: (decision: Decision) => void;
  /**
   * A new legacy session to a server with another chain (the front's, which declares the kinds
   * it passes down); with `caller`, a session of one of the front's callers (its own
   * declaration, its unrelated messages to the caller). The front closes it: the client does
   * not keep it, so a long-lived front that opens and closes sessions holds none it closed.
   *
   * @throws {ClientError} `"config"` when the entry has no legacy support or the server is unknown.
   */
  legacySession(serverId: string, chain: Chain, caller?: CallerHooks, fetch?: Fetcher): ServerSession;
  /** Runs `listener` when the client closes, before its sessions close (the front's own sessions). */
  onClose(listener: () => Promise<void>): void;
  /**
   * A new modern session to a server with another chain (the front's).
   *
   * @throws {ClientError} `"config"` when the server is unknown or not reached over HTTP.
   */
  modernSession(serverId: string, chain: Chain): ModernServerSession;
}

const INTERNALS = new WeakMap<Client, ClientInternals>();

/**
 * The internals of a client made by `createClient`, for the front (module-private otherwise).
 *
 * @param client The client.
 * @returns Its internals, or `undefined` for an object that is not such a client.
 */
export function clientInternals(client: Client): ClientInternals | undefined {
  return INTERNALS.get(client);
}

interface ServerEntry {
  readonly policy: CompiledPolicy;
  readonly chain: Chain;
  /** The server's fetch: the client's, signing in first when the policy has `transport.auth`. */
  readonly fetch: Fetcher;
  resolved: Promise<ServerSession> | undefined;
}

/**
 * Creates a client with the given era support.
 *
 * @param options The client's options.
 * @param support What the entry adds (legacy sessions).
 * @returns The client.
 * @throws {TypeError} When the options are not valid.
 * @throws {PolicyError} When a policy does not compile.
 */
export function createClientWith(options: ClientOptions, support: EraSupport): Client {
  if (typeof options.name !== "string" || options.name === "") {
    throw new TypeError(
      `createClient(): "name" must be a non-empty string, received ${JSON.stringify(options.name)}`,
    );
  }
  const timers = options.timers ?? systemTimers;
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const fetcher: Fetcher = options.fetch ?? ((url, init) => fetch(url, init));
  const assigns = options.assigns ?? {};
  const environment = options.environment ?? support.environment ?? noVariables;
  const tokens = options.signIn?.tokens ?? createMemoryTokenStore({ clock });
  const principal = options.signIn?.principal ?? "";
  const signIns = new Map<string, UpstreamSignIn>();
  const decisionListeners = new Set<DecisionListener>();
  /** Tells every decision listener; what a listener throws or rejects with is its own. */
  const decide = (decision: Decision): void => {
    for (const listener of decisionListeners) {
      try {
        const returned = listener(decision);
        if (returned instanceof Promise) returned.catch(() => {});
      } catch {
        // Ignored: a listener cannot change or stop a decision.
      }
    }
  };
  const clientInfo: Implementation = {
    name: options.name,
    version: options.version ?? SLUICE_VERSION,
    ...(options.title === undefined ? {} : { title: options.title }),
  };
  // Closing aborts the flows in progress. Not one AbortController for the client's life: on
  // Workers an AbortSignal belongs to the request that made it, and a client serves many.
  let closed: ClientError | undefined;
  const flows = new Set<LinkedSignal>();
  const servers = new Map<string, ServerEntry>();
  const opened = new Set<ServerSession>();
  const closers: Array<() => Promise<void>> = [];
  for (const input of options.policies) {
    const policy = isCompiled(input) ? input : compilePolicy(input);
    if (servers.has(policy.server)) {
      throw new TypeError(`createClient(): two policies for server "${policy.server}"`);
    }
    const chain = createChain({
      policy,
      handler: options.handler,
      client: options.name,
      store,
      timers,
      clock,
      onDecision: decide,
    });
    const signIn = serverSignIn(policy, {
      fetch: fetcher,
      environment,
      clock,
      tokens,
      redirectUri: options.signIn?.redirectUri,
      clientMetadataUrl: options.signIn?.clientMetadataUrl,
      clientName: options.name,
      handler: options.handler,
    });
    if (signIn !== undefined) signIns.set(policy.server, signIn);
    // Both eras send through the server's fetch, so the sign-in has one code path.
    const fetch = signIn?.fetcher(principal) ?? fetcher;
    servers.set(policy.server, { policy, chain, fetch, resolved: undefined });
  }
  // Each server waits within its own share, and the shares add up to the whole: a server that
  // floods its notifications never crowds out another's.
  const shares = [...servers.values()].map((entry) => entry.policy.maxWaitingNotifications);
  const queue = createNotificationQueue({
    client: options.name,
    ...(options.handler === undefined ? {} : { handler: options.handler }),
    clock,
    maxWaiting: Math.max(1, shares.reduce((sum, share) => sum + share, 0)),
    maxWaitingPerServer: (serverId) => servers.get(serverId)?.policy.maxWaitingNotifications ?? 0,
    logRateLimit: (serverId) => servers.get(serverId)?.policy.logRateLimit ?? DEFAULT_LOG_RATE,
  });
  const wantsLogs = options.handler?.log !== undefined;

  const modern = (entry: ServerEntry): ModernServerSession => {
    const { policy, chain, fetch } = entry;
    if (policy.transport.kind !== "http") {
      throw new ClientError(
        "config",
        `Server "${policy.server}": the modern era over stdio is not supported; use era "legacy"`,
        {
          serverId: policy.server,
        },
      );
    }
    const session = new ModernSession({
      serverId: policy.server,
      transport: policy.transport,
      chain,
      clientInfo,
      tasks: options.tasks === true,
      fetch,
      timers,
      callTimeoutMs: policy.callTimeoutMs,
      limits: messageLimitsOf(policy),
      maxInputRequests: policy.maxInputRequests,
      logLevel: wantsLogs ? policy.logLevel : undefined,
      notify: (notification) => queue.push(policy.server, "modern", notification),
    });
    return new ModernServerSession(session, {
      maxRounds: policy.maxRounds,
      tasks: options.tasks === true,
      timers,
    });
  };
  const legacy = (entry: ServerEntry, caller?: CallerHooks): ServerSession => {
    const { policy, chain, fetch } = entry;
    if (support.legacy === undefined) {
      throw new ClientError(
        "config",
        `Server "${policy.server}" needs the legacy era or stdio, which this entry does not speak: import createClient from "@sluice/mcp/legacy" (self-hosted)`,
        { serverId: policy.server },
      );
    }
    const notify = (notification: JsonRpcNotification, connection: number) =>
      queue.push(policy.server, "legacy", notification, connection);
    return support.legacy({
      policy,
      chain,
      clientInfo,
      fetch,
      timers,
      clock,
      assigns,
      wantsLogs,
      notify,
      caller,
    });
  };
  const resolve = async (entry: ServerEntry, signal: AbortSignal): Promise<ServerSession> => {
    const era = entry.policy.era;
    if (era === "modern") return modern(entry);
    if (era === "legacy" || entry.policy.transport.kind === "stdio") return legacy(entry);
    const candidate = modern(entry);
    return await probeEra(candidate, signal) === "modern" ? candidate : legacy(entry);
  };

  const sessionOf = (serverId: string, signal: AbortSignal): Promise<ServerSession> => {
    if (closed !== undefined) {
      return Promise.reject(new ClientError("config", `Client "${options.name}" is closed`));
    }
    const entry = servers.get(serverId);
    if (entry === undefined) {
      const known = [...servers.keys()].map((id) => `"${id}"`).join(", ") || "none";
      return Promise.reject(
        new ClientError(
          "config",
          `Unknown server ${JSON.stringify(String(serverId).slice(0, 64))}: expected one of ${known}`,
        ),
      );
    }
    if (entry.resolved === undefined) {
      const attempt = resolve(entry, signal).then((session) => (opened.add(session), session));
      entry.resolved = attempt;
      attempt.catch(() => {
        if (entry.resolved === attempt) entry.resolved = undefined;
      });
    }
    return entry.resolved;
  };

  const frontEntry = (serverId: string, chain: Chain, fetch?: Fetcher): ServerEntry => {
    if (closed !== undefined) throw new ClientError("config", `Client "${options.name}" is closed`);
    const entry = servers.get(serverId);
    if (entry === undefined) {
      throw new ClientError("config", `Unknown server ${JSON.stringify(serverId.slice(0, 64))}`);
    }
    return { policy: entry.policy, chain, fetch: fetch ?? entry.fetch, resolved: undefined };
  };

  /** Probed eras of `"auto"` servers the front asked about (a failed probe is asked again). */
  const eras = new Map<string, Promise<"modern" | "legacy">>();
  const eraOf = async (
    serverId: string,
    signal: AbortSignal,
    fetch?: Fetcher,
  ): Promise<"modern" | "legacy"> => {
    const entry = servers.get(serverId);
    if (fetch === undefined || entry === undefined) return (await sessionOf(serverId, signal)).era;
    const { policy } = entry;
    if (policy.era !== "auto") return policy.era;
    if (policy.transport.kind === "stdio") return "legacy";
    if (entry.resolved !== undefined) return (await entry.resolved).era;
    let probed = eras.get(serverId);
    if (probed === undefined) {
      const attempt = probeEra(modern(frontEntry(serverId, entry.chain, fetch)), signal);
      probed = attempt;
      eras.set(serverId, attempt);
      attempt.catch(() => {
        if (eras.get(serverId) === attempt) eras.delete(serverId);
      });
    }
    return await probed;
  };

  const methods = createClientMethods({
    client: options.name,
    clock,
    onCall: decide,
    sessionOf,
    flowFor: (serverId, signal) => {
      const flow = openFlow([signal], {
        ms: servers.get(serverId)?.policy.maxTotalTimeoutMs ?? 600_000,
        which: "total",
        timers,
      });
      if (closed !== undefined) flow.abort(closed);
      else flows.add(flow);
      return {
        signal: flow.signal,
        abort: flow.abort,
        dispose: () => {
          flows.delete(flow);
          flow.dispose();
        },
      };
    },
    assigns,
    onFailure: (serverId, error) => {
      // An "auto" server is probed again after its connection or protocol assumption failed.
      const entry = servers.get(serverId);
      if (entry?.policy.era === "auto" && (error.kind === "transport" || error.kind === "protocol")) {
        entry.resolved = undefined;
      }
    },
  });

  const client: Client = Object.freeze({
    name: options.name,
    servers: (): string[] => [...servers.keys()],
    ...methods,
    ...createSignInMethods(signIns, tokens, principal),
    onNotification: (listener: (entry: NotificationEntry) => unknown): () => void =>
      queue.subscribe(listener),
    onDecision: (listener: DecisionListener): () => void => {
      decisionListeners.add(listener);
      return () => void decisionListeners.delete(listener);
    },
    notifications: (): AsyncIterableIterator<NotificationEntry, undefined> => queue.entries(),
    stats: (): Readonly<Record<string, NotificationStats>> => queue.stats(),
    close: async (): Promise<void> => {
      closed ??= new ClientError("cancelled", `Client "${options.name}" was closed`);
      for (const flow of [...flows]) flow.abort(closed);
      flows.clear();
      await Promise.all(closers.map((closer) => closer().catch(() => {})));
      await Promise.all([...opened].map((session) => session.close().catch(() => {})));
      await support.onClose?.().catch(() => {});
      queue.close();
    },
  });
  INTERNALS.set(client, {
    clientInfo,
    handler: options.handler,
    store,
    timers,
    clock,
    tasks: options.tasks === true,
    policies: () => [...servers.values()].map((entry) => entry.policy),
    sessionOf,
    eraOf,
    signIn: (serverId) => signIns.get(serverId),
    decide,
    tokens,
    // The front closes every session it opens (with its caller's, when idle, or from onClose).
    legacySession: (serverId, chain, caller, fetch) => legacy(frontEntry(serverId, chain, fetch), caller),
    onClose: (listener) => void closers.push(listener),
    modernSession: (serverId, chain) => modern(frontEntry(serverId, chain)),
  });
  return client;
}

/** The edge entry reads no environment by itself: on Workers the variables come from `env`. */
function noVariables(): undefined {
  return undefined;
}

function isCompiled(policy: Policy | CompiledPolicy): policy is CompiledPolicy {
  return "handlerTimeoutMs" in policy && typeof (policy.transport as { kind?: unknown }).kind === "string";
}
