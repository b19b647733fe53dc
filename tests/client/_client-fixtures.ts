// Shared pieces of the client tests: a client over a scripted server, and the exact `_meta`
// sluice sends.
import { createClient } from "../../src/client/create-client.ts";
import type { Client } from "../../src/client/client-types.ts";
import type { Handler } from "../../src/handler/handler.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { ClientError } from "../../src/errors.ts";
import { type Reply, type ScriptedServer, scriptedServer } from "../_support/scripted-server.ts";
import { eventually } from "../_support/eventually.ts";
import type { gate } from "../_support/gate.ts";
import type { Timers } from "../../src/_internal/timers.ts";
import type { Clock } from "../../src/_internal/clock.ts";

export const URL_ = "https://mcp.example.com/mcp";

export function setup(
  reply: Reply,
  options: { handler?: Handler; policy?: Partial<Policy>; tasks?: boolean; timers?: Timers; clock?: Clock } =
    {},
): { client: Client; server: ScriptedServer } {
  const server = scriptedServer(reply);
  const client = createClient({
    name: "agent",
    version: "1.2.3",
    handler: options.handler,
    policies: [{ server: "demo", transport: { url: URL_ }, era: "modern", ...options.policy }],
    fetch: server.fetch,
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return { client, server };
}

/** The `_meta` sluice sends with the given client capabilities, asking logs at the default `logLevel`. */
export function meta(capabilities: Record<string, unknown>): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "agent", version: "1.2.3" },
    "io.modelcontextprotocol/logLevel": "info",
  };
}

/** Awaits a rejection and returns `[kind, code, message]` of its ClientError. */
export async function failure(promise: Promise<unknown>): Promise<[string, number | undefined, string]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ClientError) return [error.kind, error.code, error.message];
    throw error;
  }
  throw new Error("expected a rejection");
}

/** A JSON round trip: compares prototype-free maps as plain data. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/**
 * Makes `call` twice at once while the server holds, behind `held`, the work both wait for;
 * cancels the first call once `sent` finds that work on the wire, then opens the gate.
 *
 * @returns The first call's failure as `[kind, code, message]`, and what the second returned.
 */
export async function cancelFirstOfTwo<T>(
  call: (signal: AbortSignal) => Promise<T>,
  held: { readonly gate: ReturnType<typeof gate>; readonly sent: () => unknown },
): Promise<[[string, number | undefined, string], T]> {
  const controller = new AbortController();
  const first = failure(call(controller.signal));
  const second = call(new AbortController().signal);
  await eventually("the shared work sent", held.sent);
  controller.abort();
  const cancelled = await first;
  held.gate.open();
  return [cancelled, await second];
}
