// What the hostile-server tests share: a tool result's structured content, the check that the
// client still works, a failure's kind, code and message; and for the legacy client over either
// transport, the client under a policy, a handler whose elicitations wait until released, and
// the input-budget case.
import assert from "node:assert/strict";
import {
  type Client,
  ClientError,
  type ClientOptions,
  createClient,
  type Handler,
  type Policy,
} from "../../src/legacy.ts";

export const BUSY = "-32000 Busy: 8 server requests are already being answered";
export const ACCEPT = { action: "accept", content: { ok: true } } as const;

/** The clients {@linkcode legacyClient} made that {@linkcode closeClients} has not closed yet. */
const open = new Set<Client>();

/**
 * A legacy client of the one server "hostile" over `transport`, closed by {@linkcode closeClients}.
 *
 * @param transport The server's transport.
 * @param handler The client's callbacks.
 * @param options The rest of the server's policy, and the client's timers and clock (a fake time).
 * @returns The client.
 */
export function legacyClient(
  transport: Policy["transport"],
  handler: Handler,
  options: { readonly policy?: Partial<Policy> } & Pick<ClientOptions, "timers" | "clock"> = {},
): Client {
  const { policy = {}, ...time } = options;
  const client = createClient({
    name: "hostile-test",
    handler,
    policies: [{ server: "hostile", transport, era: "legacy", ...policy }],
    ...time,
  });
  open.add(client);
  return client;
}

/**
 * Closes every client {@linkcode legacyClient} made (an `afterEach`): a test that fails before its
 * own `close()` would otherwise leave its server's process or connection holding the test file open.
 */
export async function closeClients(): Promise<void> {
  const clients = [...open];
  open.clear();
  await Promise.all(clients.map((client) => client.close()));
}

/** A tool result's structured content. */
export const data = (result: unknown): Record<string, unknown> =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

/** One `echo` call round trip, exactly. */
export async function stillWorks(c: Client): Promise<void> {
  assert.deepEqual(data(await c.callTool("hostile", "echo", { after: "hostile" })), { after: "hostile" });
}

/** Rejects unless `work` fails with a ClientError; returns its kind, code and message. */
export async function failure(
  work: Promise<unknown>,
): Promise<{ kind: string; code: number | undefined; message: string }> {
  const error = await work.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ClientError, `expected a ClientError, received ${String(error)}`);
  return { kind: error.kind, code: error.code, message: error.message };
}

/** A handler whose elicitations wait until `release()`, counting them. */
export function heldElicitation(): { calls: number; release: () => void; handler: Handler } {
  const waiting: Array<() => void> = [];
  const held = {
    calls: 0,
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
    handler: {
      elicitation: () => {
        held.calls++;
        return new Promise<typeof ACCEPT>((resolve) => waiting.push(() => resolve(ACCEPT)));
      },
    } satisfies Handler,
  };
  return held;
}

/** A handler that answers elicitations after 100 ms (recording their signals) and roots at once. */
export function slowElicitationAndRoots(signals: AbortSignal[]): Handler {
  return {
    elicitation: (_p, ctx) => {
      signals.push(ctx.signal);
      return new Promise((resolve) => setTimeout(() => resolve(ACCEPT), 100));
    },
    roots: () => ({ roots: [{ uri: "file:///srv/project" }] }),
  };
}

/** Of 30 requests one at a time under burst 20, exactly 20 are answered and 10 refused -32000. */
export async function budgetHolds(
  client: (handler: Handler, policy: Partial<Policy>) => Client,
): Promise<void> {
  let calls = 0;
  const c = client({ elicitation: () => (calls++, ACCEPT) }, {
    inputRateLimit: { rate: 1, per: "1h", burst: 20 },
  });
  const result = data(await c.callTool("hostile", "flood", { count: 30, sequential: true }));
  assert.deepEqual([result.tally, calls], [{
    "result:accept": 20,
    "-32000 Input request refused: over the policy's inputRateLimit of 1 per 3600000 ms (burst 20); retry in N ms":
      10,
  }, 20]);
  await stillWorks(c);
  await c.close();
}
