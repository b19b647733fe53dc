// Supervision of a legacy server's requests, against the scripted stdio server (a real process):
// what the official servers cannot provoke.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, createClient, type Handler, type Policy } from "../../src/legacy.ts";
import { eventually } from "../_support/eventually.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { gate } from "../_support/gate.ts";
import { refusedEvent } from "../_support/refused-event.ts";
import { nodeBinary, REPO_ROOT } from "../_support/modern-peer.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import type { RateLimitStore } from "../../src/limits/rate-limit-store.ts";

const transport = {
  command: nodeBinary(),
  args: ["--import", "tsx", "tests/peers/legacy-stdio-server.ts"],
  cwd: REPO_ROOT,
};

function client(
  handler: Handler,
  options: { policy?: Partial<Policy>; time?: FakeTime; store?: RateLimitStore } = {},
): Client {
  return createClient({
    name: "supervision-test",
    handler,
    policies: [{ server: "scripted", transport, era: "legacy", ...options.policy }],
    ...(options.time === undefined ? {} : { timers: options.time, clock: options.time }),
    ...(options.store === undefined ? {} : { store: options.store }),
  });
}

const data = (result: unknown) =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;
const form = {
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

/** What every call event of these tests' calls holds. */
const CALL = { type: "call", client: "supervision-test", server: "scripted", method: "tools/call" } as const;

/** The form elicitation refused in these tests, its decision event's time left out. */
const REFUSED = {
  time: "",
  client: "supervision-test",
  server: "scripted",
  method: "elicitation/create",
  mode: "form",
};

describe("legacy supervision against a scripted stdio server", () => {
  test("answers the ninth of nine concurrent requests -32000 busy while eight run", async () => {
    const waiting: Array<() => void> = [];
    const eight = gate();
    const c = client({
      elicitation: () =>
        new Promise((resolve) => {
          waiting.push(() => resolve({ action: "accept", content: { name: "Ada" } }));
          if (waiting.length === 8) eight.open();
        }),
    }, { policy: { inputRateLimit: { rate: 100, per: "1s", burst: 100 } } });
    const refused: unknown[] = [];
    c.onDecision((decision) =>
      decision.type === "input" && decision.outcome !== "answered" && refused.push({ ...decision, time: "" })
    );
    const asking = c.callTool("scripted", "ask", { count: 9, method: "elicitation/create", params: form });
    // The eight stay held until the server has read the answer to the ninth.
    await eight.opened;
    await eventually("the server reading the answer to the ninth", async () => {
      const { responses } = data(await c.callTool("scripted", "received")) as { responses: { id: number }[] };
      return responses.some((response) => response.id === 8) ? true : undefined;
    });
    waiting.forEach((release) => release());
    const result = data(await asking);
    assert.deepEqual(result.answers, [
      ...Array.from(
        { length: 8 },
        (_, id) => ({ id, result: { action: "accept", content: { name: "Ada" } } }),
      ),
      { id: 8, error: { code: -32000, message: "Busy: 8 server requests are already being answered" } },
    ]);
    assert.deepEqual(refused, [
      refusedEvent({ code: -32000, message: "Busy: 8 server requests are already being answered" }, REFUSED),
    ]);
    await c.close();
  });

  test("answers params that fail to decode -32602 and gives the request's input decision event, outcome policy", async () => {
    const c = client({ elicitation: () => ({ action: "decline" }) });
    const decisions: unknown[] = [];
    c.onDecision((decision) => decision.type === "input" && decisions.push({ ...decision, time: "" }));
    const result = data(
      await c.callTool("scripted", "ask", { method: "elicitation/create", params: { ...form, message: 5 } }),
    );
    const refusal = {
      code: -32602,
      message: "Invalid params: $.params.message: expected string, received 5",
    };
    assert.deepEqual(result.answers, [{ id: 0, error: refusal }]);
    assert.deepEqual(decisions, [refusedEvent(refusal, REFUSED)]);
    await c.close();
  });

  test("answers a hung handler -32603 at its timeout, the call's own shorter deadline paused meanwhile", async () => {
    // The call's callTimeout (1 s) is shorter than the handler's timeout (2 s), so the call
    // survives only because its deadline is paused while the request tied to it is being
    // answered. The deadlines run on a fake clock that moves only once the handler runs: starting
    // the server (slow on a busy machine) spends none of them.
    const time = new FakeTime();
    let signal: AbortSignal | undefined;
    const running = gate();
    const c = client({
      sampling: (_p, ctx) => (signal = ctx.signal, running.open(), new Promise(() => {})),
    }, { policy: { callTimeout: "1s", handlerTimeout: { default: "2s" } }, time });
    const call = c.callTool("scripted", "ask", { count: 1, method: "sampling/createMessage" });
    await running.opened;
    await time.advance(1999);
    assert.equal(signal?.aborted, false);
    await time.advance(1);
    assert.deepEqual(data(await call).answers, [{
      id: 0,
      error: { code: -32603, message: "Handler timed out after 2s (handlerTimeout.default)" },
    }]);
    assert.equal(signal?.aborted, true);
    await c.close();
  });

  test("a request whose call maxTotalTimeout ends gives outcome timeout with the -32603 the server is answered; one whose caller cancels the call, cancelled", async () => {
    const ended = async (end: "maxTotalTimeout" | "signal") => {
      const time = new FakeTime(Date.UTC(2026, 11, 1, 12, 0, 0));
      const running = gate();
      const c = client(
        { elicitation: () => (running.open(), new Promise(() => {})) },
        { policy: { maxTotalTimeout: "1s" }, time },
      );
      const heard: unknown[] = [];
      c.onDecision((decision) => void heard.push(decision));
      const caller = new AbortController();
      try {
        const call = c.callTool("scripted", "ask", { method: "elicitation/create", params: form }, {
          signal: caller.signal,
        }).catch((error: ClientError) => [error.kind, error.message]);
        await running.opened;
        await time.advance(500);
        if (end === "signal") caller.abort("the user left");
        else await time.advance(500);
        const failed = await call;
        const responses = await eventually("the server reading its answer", async () => {
          const { responses } = data(await c.callTool("scripted", "received")) as { responses: unknown[] };
          return responses.length > 0 ? responses : undefined;
        });
        return { failed, responses, events: heard };
      } finally {
        await c.close();
      }
    };
    const told = { code: -32603, message: "The request was not answered: the call it belongs to has ended" };
    const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + ms).toISOString();
    const events = (
      outcome: string,
      refusal: { code: number; message: string },
      ms: number,
      error: { kind: string; message: string },
    ) => [
      {
        type: "input",
        time: at(ms),
        client: "supervision-test",
        server: "scripted",
        era: "legacy",
        method: "elicitation/create",
        mode: "form",
        outcome,
        changes: [],
        refusal,
        handlerMs: ms,
        durationMs: ms,
      },
      { ...CALL, time: at(ms), name: "ask", outcome: "failed", error, durationMs: ms },
      { ...CALL, time: at(ms), name: "received", outcome: "completed", durationMs: 0 },
    ];
    const timedOut = {
      kind: "timeout",
      message: 'Server "scripted": the call did not finish within 1000 ms (maxTotalTimeout)',
    };
    assert.deepEqual(await ended("maxTotalTimeout"), {
      failed: [timedOut.kind, timedOut.message],
      responses: [{ jsonrpc: "2.0", id: 0, error: told }],
      events: events("timeout", told, 1000, timedOut),
    });
    const cancelled = { kind: "cancelled", message: 'Call of tools/call to server "scripted" was cancelled' };
    assert.deepEqual(await ended("signal"), {
      failed: [cancelled.kind, cancelled.message],
      responses: [{ jsonrpc: "2.0", id: 0, error: told }],
      // The chain's words: it ends as any other abort does (the answer is the supervisor's).
      events: events("cancelled", { code: -32603, message: "Request cancelled" }, 500, cancelled),
    });
  });

  test("a request the server cancels after its call's maxTotalTimeout, before the chain is done with it, is answered nothing", async () => {
    // A store that answers late (a remote one): the call ends while the budget check waits, then
    // the server cancels its request, then the store answers. The server cancels once it has
    // read the client's cancellation of the call, not on a timer: a client that read its request
    // late would read the cancellation with it, before the call's deadline.
    const time = new FakeTime(Date.UTC(2026, 11, 1, 12, 0, 0));
    const taking = gate();
    const answer = gate();
    const memory = createMemoryStore();
    const store: RateLimitStore = {
      take: async (key, rate) => (taking.open(), await answer.opened, memory.take(key, rate)),
    };
    const c = client({ elicitation: () => ({ action: "decline" }) }, {
      policy: { maxTotalTimeout: "1s" },
      time,
      store,
    });
    const cancelled = gate();
    c.onNotification((entry) => {
      if (entry.method === "notifications/message") cancelled.open();
    });
    const events: unknown[] = [];
    c.onDecision((decision) => void events.push(decision));
    try {
      const call = c.callTool("scripted", "cancel_after", { ms: "call cancelled", log: true, params: form })
        .catch((error: ClientError) => error.kind);
      await taking.opened;
      await time.advance(1000);
      assert.equal(await call, "timeout");
      // The server's log entry comes after its cancellation, which the client has read by then.
      await cancelled.opened;
      answer.open();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const { responses } = data(await c.callTool("scripted", "received")) as { responses: unknown[] };
      // Before: [{ id: 0, error: -32603 "…the call it belongs to has ended" }].
      assert.deepEqual(responses, []);
      // The call's deadline came first: the request timed out with it (its handler never ran).
      assert.deepEqual(events.filter((event) => (event as { type: string }).type === "input"), [{
        type: "input",
        ...REFUSED,
        time: "2026-12-01T12:00:01.000Z",
        era: "legacy",
        outcome: "timeout",
        changes: [],
        refusal: { code: -32603, message: "The request was not answered: the call it belongs to has ended" },
        handlerMs: 0,
        durationMs: 1000,
      }]);
    } finally {
      await c.close();
    }
  });

  test("aborts a request the server cancels, and sends no answer for it: its event says cancelled", async () => {
    let signal: AbortSignal | undefined;
    const c = client({ elicitation: (_p, ctx) => (signal = ctx.signal, new Promise(() => {})) });
    const inputs: unknown[] = [];
    c.onDecision((decision) =>
      decision.type === "input" && inputs.push({ ...decision, time: "", handlerMs: 0, durationMs: 0 })
    );
    const result = data(
      await c.callTool("scripted", "cancel_after", { ms: 30, method: "elicitation/create", params: form }),
    );
    assert.deepEqual([result.requestId, result.answer, signal?.aborted, signal?.reason], [
      0,
      null,
      true,
      "no longer needed",
    ]);
    // Its time and durations left out (real time); nothing was sent, so it carries the chain's own words.
    assert.deepEqual(inputs, [{
      type: "input",
      ...REFUSED,
      era: "legacy",
      outcome: "cancelled",
      changes: [],
      refusal: { code: -32603, message: "Request cancelled" },
      handlerMs: 0,
      durationMs: 0,
    }]);
    await c.close();
  });

  test("fails a call with a transport error when the server dies, and restarts it for the next call", async () => {
    const c = client({});
    const error = await c.callTool("scripted", "crash", { code: 7 }).catch((e) => e);
    assert.ok(error instanceof ClientError);
    assert.equal(error.kind, "transport");
    assert.match(error.message, /process exited with code 7/);
    assert.deepEqual(data(await c.callTool("scripted", "echo", { text: "again" })), { text: "again" });
    await c.close();
  });

  test("close() fails a call in flight as cancelled, not as the process it stops", async () => {
    const c = client({});
    const call = c.callTool("scripted", "sleep", { ms: 60_000 }).catch((e) => e);
    await c.callTool("scripted", "echo", { text: "started" });
    await c.close();
    const error = await call;
    assert.ok(error instanceof ClientError);
    assert.deepEqual([error.kind, error.message], [
      "cancelled",
      'Call of tools/call to server "scripted" was cancelled',
    ]);
  });

  test("refuses sampling that arrives when no call is in flight with the rejection code", async () => {
    const c = client({
      sampling: () => ({ role: "assistant", content: { type: "text", text: "x" }, model: "m" }),
    }, {
      policy: { sampling: { rejectionCode: -7 } },
    });
    const refusals: unknown[] = [];
    c.onDecision((decision) => decision.type === "input" && refusals.push(decision.refusal));
    assert.deepEqual(data(await c.callTool("scripted", "idle_sampling", { delayMs: 100 })), {
      scheduled: true,
    });
    // The server sends its request 100 ms after answering, while no call is in flight: wait for
    // the refusal (no call may start before it), then for the server to have read the answer.
    const refusal = { code: -7, message: "Sampling request refused: no call to this server is in flight" };
    assert.deepEqual(await eventually("the refusal", () => refusals[0]), refusal);
    const responses = await eventually("the server reading the refusal", async () => {
      const { responses } = data(await c.callTool("scripted", "received")) as { responses: unknown[] };
      return responses.length > 0 ? responses : undefined;
    });
    assert.deepEqual(responses, [{ jsonrpc: "2.0", id: 0, error: refusal }]);
    assert.deepEqual(refusals, [refusal]);
    await c.close();
  });

  test("ties a request to the one call in flight: relatedRequestId and that call's assigns", async () => {
    const seen: unknown[] = [];
    const c = client({
      roots: (ctx) => (seen.push([ctx.relatedRequestId, ctx.assigns]), { roots: [{ uri: "file:///srv/x" }] }),
    });
    const result = data(
      await c.callTool("scripted", "ask", { count: 1, method: "roots/list" }, { assigns: { user: "ada" } }),
    );
    assert.deepEqual(result.answers, [{ id: 0, result: { roots: [{ uri: "file:///srv/x" }] } }]);
    assert.equal(seen.length, 1);
    const [related, assigns] = seen[0] as [unknown, unknown];
    assert.deepEqual([typeof related, assigns], ["number", { user: "ada" }]);
    await c.close();
  });
});
