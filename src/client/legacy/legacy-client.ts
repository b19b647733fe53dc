/**
 * `createClient` of the self-hosted entry: the edge entry's client plus the legacy era (2025-11-25,
 * 2025-06-18) over stdio and legacy Streamable HTTP, so `era: "legacy"` and `"auto"` work. On Node, a client
 * given no `fetch` sends its HTTP through its own `createNodeFetch()` pool (`undici.request`, cheaper in CPU
 * than Node's global `fetch`), loaded on the first request and closed by `client.close()`; Deno and Bun keep
 * their global `fetch`.
 *
 * @module
 */
import { createClientWith } from "../client-core.ts";
import type { LegacySessionInput } from "../client-servers.ts";
import type { Client, ClientOptions } from "../client-types.ts";
import type { Fetcher } from "../../transport/fetch-with-redirects.ts";
import type { ServerSession } from "../server-session.ts";
import type { NodeFetch } from "../../transport/node-fetch.ts";
import { createLegacyHttpConnection } from "../../transport/legacy-http-connection.ts";
import { createStdioConnection } from "../../transport/stdio-connection.ts";
import { messageLimitsOf } from "../../protocol/message-limits.ts";
import { isObject } from "../../_internal/is-object.ts";
import { LegacyServerSession } from "./legacy-server-session.ts";
import { LegacySession, STDERR_LOG_LEVEL } from "./legacy-session.ts";

/**
 * Creates a client that also speaks the legacy era and stdio.
 *
 * @param options Name, handler, policies and the rest, as for the edge entry's `createClient`.
 * @returns The client.
 * @throws {TypeError} When the options are not valid.
 * @throws {PolicyError} When a policy does not compile, listing every problem.
 * @example
 * ```ts
 * import { createClient } from "./legacy-client.ts";
 * const client = createClient({
 *   name: "my-agent",
 *   policies: [{ server: "files", transport: { command: "npx", args: ["--no-install", "mcp-server-filesystem", "/tmp"] } }],
 * });
 * console.log(client.servers()); // ["files"]
 * await client.close();
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const support = { legacy: openLegacySession, environment: processEnvironment };
  // Options that are not an object get createClientWith's TypeError, not one from reading `fetch`.
  const plain = !isObject(options);
  if (plain || options.fetch !== undefined || !onNode()) return createClientWith(options, support);
  const pool = lazyNodeFetch();
  return createClientWith({ ...options, fetch: pool.fetch }, { ...support, onClose: pool.close });
}

/** The process environment (Node, Bun, and Deno 2, which has `process` too). */
function processEnvironment(name: string): string | undefined {
  const runtime = globalThis as { process?: { env?: Record<string, string | undefined> } };
  return runtime.process?.env?.[name];
}

/** Tells whether this is Node itself (Deno and Bun also set `process.versions.node`). */
function onNode(): boolean {
  const runtime = globalThis as {
    Deno?: unknown;
    Bun?: unknown;
    process?: { versions?: { node?: unknown } };
  };
  return runtime.Deno === undefined && runtime.Bun === undefined &&
    typeof runtime.process?.versions?.node === "string";
}

/**
 * A client's `createNodeFetch()`, imported and created on its first request, so a client that
 * sends no HTTP never loads undici. Once closed, it sends nothing more.
 */
function lazyNodeFetch(): { readonly fetch: Fetcher; readonly close: () => Promise<void> } {
  let ready: NodeFetch | undefined;
  let loading: Promise<NodeFetch> | undefined;
  let closed = false;
  const load = (): Promise<NodeFetch> =>
    loading ??= import("../../transport/node-fetch.ts").then((module) => ready = module.createNodeFetch());
  return {
    fetch: (url, init) => {
      if (closed) return Promise.reject(new TypeError("fetch failed: the client was closed"));
      return ready === undefined ? load().then((nodeFetch) => nodeFetch(url, init)) : ready(url, init);
    },
    close: async () => {
      closed = true;
      if (loading !== undefined) await (await loading).close();
    },
  };
}

function openLegacySession(input: LegacySessionInput): ServerSession {
  const { policy, timers, clock } = input;
  const transport = policy.transport;
  const limits = messageLimitsOf(policy);
  const factory = transport.kind === "stdio"
    ? createStdioConnection(transport, { timers, callTimeoutMs: policy.callTimeoutMs, ...limits })
    : createLegacyHttpConnection(transport, {
      fetch: input.fetch,
      timers,
      callTimeoutMs: policy.callTimeoutMs,
      ...limits,
    });
  const session = new LegacySession({
    serverId: policy.server,
    policy,
    chain: input.chain,
    clientInfo: input.clientInfo,
    factory,
    singleChannel: transport.kind === "stdio",
    pooled: input.pooled === true,
    timers,
    assigns: input.assigns,
    // Every server is asked for its logs at the policy's logLevel: subscribers hear them too,
    // and may come after the handshake (the only time the session sends logging/setLevel).
    notify: input.notify,
    caller: input.caller,
    principal: input.principal,
    // The server's stderr goes down the log path (sanitized there), as "stderr" entries at STDERR_LOG_LEVEL.
    onStderr: (line) =>
      input.notify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: STDERR_LOG_LEVEL, logger: "stderr", data: line },
      }, 0),
  });
  return new LegacyServerSession(session, { policy, timers, now: () => clock.now() });
}
