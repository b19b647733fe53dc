/**
 * What the memory bench holds by the thousand, each through sluice's real code with only the
 * wire replaced by an in-memory fake:
 *
 * - a pending legacy server request: a `sampling/createMessage` tied to a `tools/call` in
 *   flight, run by the legacy session's supervisor through the chain into a handler that has not
 *   answered yet (10 servers of 1000 each: `maxServerRequests` allows at most 1000 per server);
 * - a queued notification: `notifications/resources/updated` waiting in the notification queue
 *   behind a handler callback that has not returned;
 * - an in-flight MRTR flow: a `callTool` whose server answered `input_required` with a form and
 *   whose elicitation handler has not answered yet (the edge client over a fake fetch).
 *
 * Every message is a fresh object, as a connection's JSON parser makes them.
 *
 * @module
 */
import { createChain } from "../src/chain/chain.ts";
import { systemTimers } from "../src/_internal/timers.ts";
import { LegacySession } from "../src/client/legacy/legacy-session.ts";
import type { ConnectionEvents, LegacyConnection } from "../src/transport/legacy-connection.ts";
import { createMemoryStore } from "../src/limits/memory-store.ts";
import { createNotificationQueue } from "../src/notify/notification-queue.ts";
import { compilePolicy } from "../src/policy/compile-policy.ts";
import type { JsonRpcRequest } from "../src/protocol/jsonrpc.ts";

/** A kind of pending item the bench allocates and lets go of. */
export interface MemorySubject {
  readonly name: string;
  /** Makes `count` items pending (resolves once they all wait). */
  add(count: number): Promise<void>;
  /** Lets every pending item finish (resolves once they all have). */
  release(): Promise<void>;
  /** One fresh message of the kind, for the "message alone" figure. */
  message(i: number): unknown;
  close(): Promise<void>;
}

const BUDGET = { rate: 1_000_000, per: "1s", burst: 1_000_000 } as const;
const REPLY = { role: "assistant", content: { type: "text", text: "ok" }, model: "bench" } as const;
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Waits until `done()` holds, a macrotask at a time. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await tick();
}

function samplingRequest(i: number, server: number): JsonRpcRequest {
  return JSON.parse(JSON.stringify({
    jsonrpc: "2.0",
    id: `s${server}-${i}`,
    method: "sampling/createMessage",
    params: {
      messages: [{ role: "user", content: { type: "text", text: `Summarise item ${i}` } }],
      maxTokens: 100,
    },
  }));
}

interface LegacyServer {
  readonly session: LegacySession;
  readonly wire: { events?: ConnectionEvents; callId?: string | number };
  readonly call: AbortController;
}

/** Pending legacy server requests over `servers` sessions of up to 1000 each. */
export async function legacyRequests(servers: number): Promise<MemorySubject> {
  const waiting: Array<() => void> = [];
  const sessions: LegacyServer[] = [];
  for (let s = 0; s < servers; s++) {
    const policy = compilePolicy({
      server: `legacy-${s}`,
      transport: { url: "https://mcp.example.com/mcp" },
      era: "legacy",
      maxServerRequests: 1000,
      inputRateLimit: BUDGET,
    });
    const handler = {
      sampling: () => new Promise<typeof REPLY>((resolve) => waiting.push(() => resolve(REPLY))),
    };
    const chain = createChain({ policy, handler, client: "bench", store: createMemoryStore() });
    const wire: { events?: ConnectionEvents; callId?: string | number } = {};
    const connection: LegacyConnection = {
      request: (message) => {
        if (message.method === "initialize") {
          return Promise.resolve({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              serverInfo: { name: "m", version: "1" },
            },
          });
        }
        wire.callId = message.id;
        return new Promise(() => {}); // the call stays in flight
      },
      notify: () => Promise.resolve(),
      respond: () => Promise.resolve(),
      negotiated: () => {},
      close: () => Promise.resolve(),
    };
    const session = new LegacySession({
      serverId: policy.server,
      policy,
      chain,
      clientInfo: { name: "bench", version: "1" },
      factory: (events) => (wire.events = events, connection),
      singleChannel: false,
      timers: systemTimers,
      assigns: {},
      notify: () => {},
    });
    const call = new AbortController();
    void session.request("tools/call", { name: "t" }, { signal: call.signal, call: { assigns: {} } })
      .catch(() => {});
    await until(() => wire.callId !== undefined);
    sessions.push({ session, wire, call });
  }
  let pending = 0;
  return {
    name: "pending legacy server request",
    async add(count) {
      for (let i = 0; i < count; i++) {
        const s = sessions[i % sessions.length] as LegacyServer;
        s.wire.events?.onServerMessage({
          message: samplingRequest(i, i % sessions.length),
          related: s.wire.callId,
        });
      }
      pending += count;
      await until(() => waiting.length >= pending);
    },
    async release() {
      for (const answer of waiting.splice(0)) answer();
      pending = 0;
      // Each answer goes through the post-checks, then out; give them a few turns.
      for (let i = 0; i < 5; i++) await tick();
    },
    message: (i) => samplingRequest(i, 0),
    async close() {
      for (const s of sessions) {
        s.call.abort();
        await s.session.close();
      }
    },
  };
}

function resourceUpdated(i: number): unknown {
  return JSON.parse(JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: `file:///workspace/reports/report-${i}.txt` },
  }));
}

/** Notifications waiting behind a handler callback that has not returned. */
export function queuedNotifications(maxWaiting: number): MemorySubject {
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  const block = () => {
    let open = () => {};
    const promise = new Promise<void>((resolve) => (open = resolve));
    gate = { promise, open };
  };
  const queue = createNotificationQueue({
    client: "bench",
    maxWaiting,
    handler: { notification: () => gate?.promise },
  });
  return {
    name: "queued notification",
    async add(count) {
      block();
      for (let i = 0; i < count; i++) queue.push("server", "modern", resourceUpdated(i) as never);
      await tick();
    },
    async release() {
      const open = gate?.open;
      gate = undefined;
      open?.();
      await until(() => queue.waiting === 0);
      await tick();
    },
    message: resourceUpdated,
    close: () => Promise.resolve(queue.close()),
  };
}
