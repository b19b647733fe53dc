/**
 * `createClient`: one client for many servers, each with its policy's chain around the same
 * handler. This edge entry speaks the modern era (`2026-07-28`) over Streamable HTTP using Web
 * standards only; the legacy era and stdio come from `@sluice/mcp/legacy`.
 *
 * @module
 */
import { createChain } from "../chain/chain.ts";
import { systemTimers } from "../chain/timers.ts";
import { systemClock } from "../chain/verdict.ts";
import { ClientError } from "../errors.ts";
import { createMemoryStore } from "../limits/memory-store.ts";
import { type CompiledPolicy, compilePolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import type { Implementation } from "../protocol/meta.ts";
import { createNotificationSink } from "./_notification-sink.ts";
import { linkSignals } from "./_signals.ts";
import type { Client, ClientOptions } from "./client-types.ts";
import { createModernClientMethods } from "./modern/client-methods.ts";
import type { Fetcher } from "./modern/http-leg.ts";
import { ModernSession } from "./modern/modern-session.ts";

/** sluice's version, sent as `clientInfo.version` when the caller gives none. */
export const SLUICE_VERSION = "0.1.0";

/**
 * Creates a client.
 *
 * @param options Name, handler, policies and the rest (see {@linkcode ClientOptions}).
 * @returns The client.
 * @throws {TypeError} When the options are not valid (no name, a duplicate server id).
 * @throws {PolicyError} When a policy does not compile, listing every problem.
 * @example
 * ```ts
 * import { createClient } from "./create-client.ts";
 * const client = createClient({
 *   name: "my-agent",
 *   handler: { elicitation: async () => ({ action: "decline" }) },
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * console.log(client.servers()); // ["github"]
 * await client.close();
 * ```
 */
export function createClient(options: ClientOptions): Client {
  if (typeof options.name !== "string" || options.name === "") {
    throw new TypeError(
      `createClient(): "name" must be a non-empty string, received ${JSON.stringify(options.name)}`,
    );
  }
  const timers = options.timers ?? systemTimers;
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const fetcher: Fetcher = options.fetch ?? ((url, init) => fetch(url, init));
  const clientInfo: Implementation = {
    name: options.name,
    version: options.version ?? SLUICE_VERSION,
    ...(options.title === undefined ? {} : { title: options.title }),
  };
  const closing = new AbortController();
  const sink = createNotificationSink(options.handler, options.name);
  const sessions = new Map<string, { policy: CompiledPolicy; session: ModernSession | undefined }>();
  for (const input of options.policies) {
    const policy = isCompiled(input) ? input : compilePolicy(input);
    if (sessions.has(policy.server)) {
      throw new TypeError(`createClient(): two policies for server "${policy.server}"`);
    }
    const chain = createChain({ policy, handler: options.handler, client: options.name, store, timers });
    const transport = policy.transport;
    const session = transport.kind === "http" && policy.era !== "legacy"
      ? new ModernSession({
        serverId: policy.server,
        transport,
        chain,
        clientInfo,
        tasks: options.tasks === true,
        fetch: fetcher,
        timers,
        callTimeoutMs: policy.callTimeoutMs,
        logLevel: options.handler?.log === undefined ? undefined : policy.logLevel,
        notify: (notification) => sink(policy.server, "modern", notification),
      })
      : undefined;
    sessions.set(policy.server, { policy, session });
  }

  const sessionOf = (serverId: string): ModernSession => {
    if (closing.signal.aborted) throw new ClientError("config", `Client "${options.name}" is closed`);
    const entry = sessions.get(serverId);
    if (entry === undefined) {
      const known = [...sessions.keys()].map((id) => `"${id}"`).join(", ") || "none";
      throw new ClientError(
        "config",
        `Unknown server ${JSON.stringify(String(serverId).slice(0, 64))}: expected one of ${known}`,
      );
    }
    if (entry.session === undefined) {
      throw new ClientError(
        "config",
        `Server "${serverId}" needs the legacy era or stdio, which this entry does not speak: import createClient from "@sluice/mcp/legacy" (self-hosted)`,
        { serverId },
      );
    }
    return entry.session;
  };

  const flowFor = (serverId: string, signal: AbortSignal | undefined) => {
    const entry = sessions.get(serverId);
    const ms = entry?.policy.maxTotalTimeoutMs ?? 600_000;
    return linkSignals([signal, closing.signal], { ms, which: "total", timers });
  };

  const methods = createModernClientMethods({
    sessionOf,
    flowFor,
    policyOf: (serverId) => sessions.get(serverId)?.policy,
    assigns: options.assigns ?? {},
    tasks: options.tasks === true,
    timers,
  });

  return Object.freeze({
    name: options.name,
    servers: (): string[] => [...sessions.keys()],
    ...methods,
    close: (): Promise<void> => {
      closing.abort(new ClientError("cancelled", `Client "${options.name}" was closed`));
      return Promise.resolve();
    },
  });
}

function isCompiled(policy: Policy | CompiledPolicy): policy is CompiledPolicy {
  return "handlerTimeoutMs" in policy && typeof (policy.transport as { kind?: unknown }).kind === "string";
}
