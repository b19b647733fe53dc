/**
 * The client shared by both entries, put together from its parts: settings, servers
 * ({@linkcode ClientServers}), sign-ins, notification queue, decision listeners and the flows of calls in
 * progress. The edge entry passes no legacy support (modern era over HTTP only); `@sluice/mcp/legacy` passes
 * the legacy adapter and stdio. The front reaches the parts through {@linkcode clientInternals}.
 *
 * @module
 */
import { createChain } from "../chain/chain.ts";
import type { Decision, DecisionListener, DecisionSink } from "../chain/decision.ts";
import { systemTimers, type Timers } from "../_internal/timers.ts";
import { type Clock, systemClock } from "../_internal/clock.ts";
import { ClientError } from "../errors.ts";
import { createMemoryStore } from "../limits/memory-store.ts";
import { type CompiledPolicy, compilePolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import { PolicyError, type PolicyProblem, sameServerProblem } from "../policy/policy-error.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { describeValue } from "../_internal/quote.ts";
import { isObject } from "../_internal/is-object.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";
import { CLIENT_METADATA_URL_RULE, isClientMetadataUrl } from "../_internal/client-metadata-url.ts";
import { defineHandler } from "../handler/handler.ts";
import type { Implementation } from "../protocol/meta.ts";
import { createNotificationQueue, type NotificationQueue } from "../notify/notification-queue.ts";
import { type LinkedSignal, openFlow } from "../_internal/signals.ts";
import { createClientMethods } from "./client-methods.ts";
import type { Client, ClientOptions } from "./client-types.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { EnvironmentReader, UpstreamSignIn } from "../auth/upstream-sign-in.ts";
import { createMemoryTokenStore, type TokenStore } from "../auth/token-store.ts";
import { createSignInMethods, serverSignIn } from "./sign-ins.ts";
import { ClientServers, LEGACY_ENTRY, type LegacySessionInput, type ServerEntry } from "./client-servers.ts";
import { type ClientInternals, withInternals } from "./client-internals.ts";
import type { ServerSession } from "./server-session.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";

/** sluice's version, sent as `clientInfo.version` when the caller gives none. */
export const SLUICE_VERSION = "0.1.0";

/** What an entry adds to the core. */
export interface EraSupport {
  /** Builds a legacy session (self-hosted entry only). */
  readonly legacy?: (input: LegacySessionInput) => ServerSession;
  /** Reads the environment when the options give none (self-hosted entry); else no variable is set. */
  readonly environment?: EnvironmentReader;
  /** Runs once `client.close()` has closed every session (frees the Node pool); its failure is ignored. */
  readonly onClose?: () => Promise<void>;
}

/** The options with their defaults filled in. */
interface Settings {
  readonly name: string;
  readonly clientInfo: Implementation;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly store: RateLimitStore;
  readonly fetch: Fetcher;
  readonly assigns: Readonly<Record<string, unknown>>;
  readonly tokens: TokenStore;
  /** Whose grants the client's own sign-ins use. */
  readonly principal: string;
}

/** The parts a client is made of. */
interface ClientParts {
  readonly settings: Settings;
  readonly decisions: DecisionListeners;
  readonly signIns: ReadonlyMap<string, UpstreamSignIn>;
  readonly queue: NotificationQueue;
  readonly servers: ClientServers;
  readonly flows: CallFlows;
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
  const settings = settingsOf(options);
  const decisions = new DecisionListeners();
  const { entries, signIns } = compileServers(options, support, settings, decisions);
  const queue = notificationQueueOf(options, settings.clock, entries);
  const servers = new ClientServers(entries, {
    client: settings.name,
    clientInfo: settings.clientInfo,
    tasks: options.tasks === true,
    timers: settings.timers,
    clock: settings.clock,
    assigns: settings.assigns,
    queue,
    legacy: support.legacy,
  });
  const parts: ClientParts = {
    settings,
    decisions,
    signIns,
    queue,
    servers,
    flows: new CallFlows(settings.timers),
  };
  return withInternals(publicClient(parts, support), frontInternals(parts, options));
}

/** Every option of `createClient`: another key is a typo, refused rather than quietly ignored. */
const OPTION_KEYS: readonly (keyof ClientOptions)[] = [
  "name",
  "version",
  "title",
  "handler",
  "policies",
  "assigns",
  "tasks",
  "store",
  "fetch",
  "environment",
  "signIn",
  "timers",
  "clock",
];

/** Checks the options' shape, names and handler, and fills in the defaults. */
function settingsOf(options: ClientOptions): Settings {
  if (!isObject(options)) {
    throw new TypeError(
      `createClient(): the options must be an object { name, policies, handler?, … }, received ${
        options === null ? "null" : Array.isArray(options) ? "an array" : typeof options
      }`,
    );
  }
  checkOptionKeys(options, OPTION_KEYS, "createClient()");
  if (!Array.isArray(options.policies)) {
    throw new TypeError(
      `createClient(): "policies" must be a list of policies, received ${
        options.policies === null ? "null" : typeof options.policies
      }`,
    );
  }
  // A handler written as a plain object gets the checks defineHandler() makes.
  if (options.handler !== undefined) defineHandler(options.handler);
  if (typeof options.name !== "string" || options.name === "") {
    throw new TypeError(
      `createClient(): "name" must be a non-empty string, received ${JSON.stringify(options.name)}`,
    );
  }
  checkOptionShapes(options);
  const clock = options.clock ?? systemClock;
  return {
    name: options.name,
    clientInfo: {
      name: options.name,
      version: options.version ?? SLUICE_VERSION,
      ...(options.title === undefined ? {} : { title: options.title }),
    },
    timers: options.timers ?? systemTimers,
    clock,
    store: options.store ?? createMemoryStore({ clock }),
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    assigns: options.assigns ?? {},
    tokens: options.signIn?.tokens ?? createMemoryTokenStore({ clock }),
    principal: options.signIn?.principal ?? "",
  };
}

const hasMethods = (value: unknown, ...names: string[]) =>
  isObject(value) && names.every((name) => typeof value[name] === "function");

/** What each of the other options must be, to fail here rather than on a call. */
const OPTION_SHAPES: ReadonlyArray<readonly [keyof ClientOptions, (value: unknown) => boolean, string]> = [
  ["version", (value) => typeof value === "string", "a string"],
  ["title", (value) => typeof value === "string", "a string"],
  ["tasks", (value) => typeof value === "boolean", "true or false"],
  ["assigns", isObject, "an object"],
  ["fetch", (value) => typeof value === "function", "a function (url, init) => Promise<Response>"],
  ["environment", (value) => typeof value === "function", "a function (name) => string | undefined"],
  ["store", (value) => hasMethods(value, "take"), "a RateLimitStore (with take())"],
  ["timers", (value) => hasMethods(value, "setTimeout", "clearTimeout"), "{ setTimeout, clearTimeout }"],
  ["clock", (value) => hasMethods(value, "now"), "{ now() }"],
  ["signIn", isObject, "an object { tokens?, redirectUri?, clientMetadataUrl?, principal? }"],
];

/** Checks the options besides name, policies and handler: each given one is what it must be. */
function checkOptionShapes(options: ClientOptions): void {
  for (const [key, fits, expected] of OPTION_SHAPES) {
    const value: unknown = options[key];
    if (value !== undefined && !fits(value)) {
      throw new TypeError(`createClient(): "${key}" must be ${expected}, received ${describeValue(value)}`);
    }
  }
  const { signIn } = options;
  if (signIn === undefined) return;
  checkOptionKeys(
    signIn,
    ["tokens", "redirectUri", "clientMetadataUrl", "principal"],
    "createClient()",
    "signIn.",
  );
  if (signIn.tokens !== undefined && !hasMethods(signIn.tokens, "get", "set", "delete", "claim")) {
    throw new TypeError(
      `createClient(): "signIn.tokens" must be a TokenStore (get, set, delete, claim), received ${
        describeValue(signIn.tokens)
      }`,
    );
  }
  for (const key of ["redirectUri", "clientMetadataUrl", "principal"] as const) {
    if (signIn[key] !== undefined && typeof signIn[key] !== "string") {
      throw new TypeError(
        `createClient(): "signIn.${key}" must be a string, received ${describeValue(signIn[key])}`,
      );
    }
  }
  const { clientMetadataUrl } = signIn;
  if (clientMetadataUrl !== undefined && !isClientMetadataUrl(clientMetadataUrl)) {
    throw new TypeError(
      `createClient(): "signIn.clientMetadataUrl" must be ${CLIENT_METADATA_URL_RULE}, received ${
        JSON.stringify(withoutUrlSecrets(clientMetadataUrl))
      }`,
    );
  }
}

/** Compiles each policy into the server's chain, and its sign-in when it has `transport.auth`. */
function compileServers(
  options: ClientOptions,
  support: EraSupport,
  settings: Settings,
  decisions: DecisionListeners,
): { entries: Map<string, ServerEntry>; signIns: Map<string, UpstreamSignIn> } {
  const { name, store, timers, clock, fetch, tokens, principal } = settings;
  const environment = options.environment ?? support.environment ?? noVariables;
  const entries = new Map<string, ServerEntry>();
  const signIns = new Map<string, UpstreamSignIn>();
  for (const policy of compileAll(options.policies, support.legacy === undefined)) {
    const chain = createChain({
      policy,
      handler: options.handler,
      client: name,
      store,
      timers,
      clock,
      decisions,
    });
    const signIn = serverSignIn(policy, {
      fetch,
      environment,
      clock,
      timers,
      tokens,
      redirectUri: options.signIn?.redirectUri,
      clientMetadataUrl: options.signIn?.clientMetadataUrl,
      clientName: name,
      handler: options.handler,
    });
    if (signIn !== undefined) signIns.set(policy.server, signIn);
    // Both eras send through the server's fetch, so the sign-in has one code path.
    entries.set(policy.server, { policy, chain, fetch: signIn?.fetcher(principal) ?? fetch });
  }
  return { entries, signIns };
}

/**
 * The client's notification queue. Each server waits within its own share, and the shares add up
 * to the whole: a server that floods its notifications never crowds out another's.
 */
function notificationQueueOf(
  options: ClientOptions,
  clock: Clock,
  entries: ReadonlyMap<string, ServerEntry>,
): NotificationQueue {
  const shares = [...entries.values()].map((entry) => entry.policy.maxWaitingNotifications);
  return createNotificationQueue({
    client: options.name,
    ...(options.handler === undefined ? {} : { handler: options.handler }),
    clock,
    maxWaiting: Math.max(1, shares.reduce((sum, share) => sum + share, 0)),
    maxWaitingPerServer: (serverId) => entries.get(serverId)?.policy.maxWaitingNotifications ?? 0,
    logRateLimit: (serverId) => entries.get(serverId)?.policy.logRateLimit,
    logLevel: (serverId) => entries.get(serverId)?.policy.logLevel,
  });
}

/** The client's public face: its methods over the servers, sign-ins, notifications, decisions, close. */
function publicClient(parts: ClientParts, support: EraSupport): Client {
  const { settings, decisions, signIns, queue, servers, flows } = parts;
  let closed = false;
  const methods = createClientMethods({
    client: settings.name,
    clock: settings.clock,
    decisions,
    flowFor: (serverId, signal) => flows.open(signal, servers.policyOf(serverId)?.maxTotalTimeoutMs),
    assigns: settings.assigns,
    run: (serverId, call, work) => servers.run(serverId, call, work),
  });
  return {
    name: settings.name,
    servers: () => servers.ids(),
    ...methods,
    ...createSignInMethods(
      signIns,
      settings.tokens,
      settings.principal,
      () => closed ? new ClientError("config", `Client "${settings.name}" is closed`) : undefined,
    ),
    onNotification: (listener) => queue.subscribe(listenerOf(listener, "onNotification")),
    onDecision: (listener) => decisions.add(listenerOf(listener, "onDecision")),
    notifications: () => queue.entries(),
    stats: () => queue.stats(),
    close: async () => {
      closed = true;
      const reason = flows.close(new ClientError("cancelled", `Client "${settings.name}" was closed`));
      await servers.close(reason);
      await support.onClose?.().catch(() => {});
      await queue.close();
    },
  };
}

/** What the front reaches through {@linkcode clientInternals}. */
function frontInternals(parts: ClientParts, options: ClientOptions): ClientInternals {
  const { settings, decisions, signIns, servers } = parts;
  return {
    clientInfo: settings.clientInfo,
    handler: options.handler,
    store: settings.store,
    timers: settings.timers,
    clock: settings.clock,
    tokens: settings.tokens,
    decisions,
    assigns: settings.assigns,
    policies: () => servers.policies(),
    eraOf: (serverId, call) => servers.eraOf(serverId, call),
    signIn: (serverId) => signIns.get(serverId),
    // The front closes every session it opens (with its caller's, when idle, or from onClose).
    legacySession: (serverId, chain, owner) => servers.legacySession(serverId, chain, owner),
    modernSession: (serverId, chain) => servers.modernSession(serverId, chain),
    onClose: (listener) => servers.onClose(listener),
  };
}

/** The client's decision listeners. */
class DecisionListeners implements DecisionSink {
  readonly #listeners = new Set<DecisionListener>();

  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  readonly decide = (decision: Decision): void => {
    for (const listener of this.#listeners) {
      try {
        const returned = listener(decision);
        if (returned instanceof Promise) returned.catch(() => {});
      } catch {
        // Ignored: a listener cannot change or stop a decision.
      }
    }
  };

  /** Adds a listener; returns what removes it. */
  add(listener: DecisionListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}

/**
 * The flows of the client's calls in progress, each under its server's `maxTotalTimeout`; closing aborts them
 * all. Not one AbortController for the client's life: on Workers an AbortSignal belongs to the request that
 * made it, and a client serves many.
 */
class CallFlows {
  readonly #timers: Timers;
  readonly #open = new Set<LinkedSignal>();
  #closed: ClientError | undefined;

  constructor(timers: Timers) {
    this.#timers = timers;
  }

  /**
   * Opens a call's flow: the caller's signal and the deadline (none for an unknown server, whose call is
   * refused); aborted at once once closed.
   */
  open(signal: AbortSignal | undefined, maxTotalTimeoutMs: number | undefined): LinkedSignal {
    const flow = openFlow(
      [signal],
      maxTotalTimeoutMs === undefined ? undefined : { maxTotalTimeoutMs, timers: this.#timers },
    );
    if (this.#closed !== undefined) flow.abort(this.#closed);
    else this.#open.add(flow);
    return {
      signal: flow.signal,
      abort: flow.abort,
      dispose: () => {
        this.#open.delete(flow);
        flow.dispose();
      },
    };
  }

  /** Aborts every open flow with the first close's reason, and every later one; returns that reason. */
  close(reason: ClientError): ClientError {
    this.#closed ??= reason;
    for (const flow of [...this.#open]) flow.abort(this.#closed);
    this.#open.clear();
    return this.#closed;
  }
}

/** The edge entry reads no environment by itself: on Workers the variables come from `env`. */
function noVariables(): undefined {
  return undefined;
}

/**
 * Compiles every policy, reporting the problems of all of them at once.
 *
 * @throws {PolicyError} With every problem of every policy that does not compile.
 */
function compileAll(policies: readonly (Policy | CompiledPolicy)[], modernOnly: boolean): CompiledPolicy[] {
  const compiled: CompiledPolicy[] = [];
  const problems: PolicyProblem[] = [];
  const named = new Map<string, number>();
  for (const [index, input] of policies.entries()) {
    try {
      const policy = isCompiled(input) ? input : compilePolicy(input);
      compiled.push(policy);
      // Told now, not at the first call; "auto" is left to find out (a server found legacy then fails its
      // call alike).
      if (modernOnly && (policy.era === "legacy" || policy.transport.kind === "stdio")) {
        problems.push(legacyOnlyProblem(policy));
      }
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      problems.push(...error.problems);
    }
    // A policy with problems still names its server: one naming it again is told now, with them.
    const server = (input as { server?: unknown } | null)?.server;
    if (typeof server !== "string") continue;
    const first = named.get(server);
    if (first === undefined) named.set(server, index);
    else problems.push(sameServerProblem(undefined, server, `policies[${first}]`, "policy"));
  }
  if (problems.length > 0) throw new PolicyError(problems);
  return compiled;
}

/** A policy that an entry without the legacy era cannot serve. */
function legacyOnlyProblem(policy: CompiledPolicy): PolicyProblem {
  const [path, what] = policy.transport.kind === "stdio"
    ? ["transport.command", '"transport.command" runs the server over stdio']
    : ["era", '"era" is "legacy"'];
  return {
    source: undefined,
    server: policy.server,
    path,
    message: `${what}, which this entry does not speak: ${LEGACY_ENTRY}`,
  };
}

function isCompiled(policy: Policy | CompiledPolicy): policy is CompiledPolicy {
  return typeof policy === "object" && policy !== null && "handlerTimeoutMs" in policy &&
    typeof (policy.transport as { kind?: unknown }).kind === "string";
}

/** A listener given to `onNotification` or `onDecision`, refused at once when it is not a function. */
function listenerOf<L>(listener: L, method: string): L {
  if (typeof listener === "function") return listener;
  throw new TypeError(
    `client.${method}(): the listener must be a function, received ${describeValue(listener)}`,
  );
}
