// A stdio server's request names no call: with several calls in flight the legacy client cannot
// tell whose it is. Against the real server-everything over stdio, such a request still keeps
// every one of those calls from timing out while a person answers it, and its handler is
// signalled once all of them have ended.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type Handler } from "../../../src/legacy.ts";
import { everythingStdioCommand } from "../../_support/everything.ts";
import { FakeTime } from "../../_support/fake-time.ts";

function client(handler: Handler, time?: FakeTime) {
  return createClient({
    name: "several-calls",
    handler,
    ...(time === undefined ? {} : { timers: time, clock: time }),
    policies: [{
      server: "everything",
      transport: everythingStdioCommand(),
      era: "legacy",
      callTimeout: "2s",
      handlerTimeout: { elicitation: "30s" },
    }],
  });
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe("a stdio server's request while several calls are in flight", () => {
  test("a form answered past callTimeout times out none of the calls in flight when it came", async () => {
    const answered: number[] = [];
    // The client's timers and clock are fake, so only the person's 3 s pass for it: a busy
    // machine cannot make the server's real work or messages look like time past callTimeout.
    const time = new FakeTime();
    const c = client({
      elicitation: async () => {
        // The person takes longer than callTimeout (2 s).
        await time.advance(3000);
        answered.push(1);
        return { action: "decline" };
      },
    }, time);
    try {
      await c.listTools("everything");
      const [work, form] = await Promise.allSettled([
        c.callTool("everything", "trigger-long-running-operation", { duration: 1, steps: 1 }),
        c.callTool("everything", "trigger-elicitation-request"),
      ]);
      assert.deepEqual(
        [
          work.status,
          form.status === "fulfilled" ? text(form.value).split(" to provide")[0] : String(form.reason),
          answered,
        ],
        ["fulfilled", "❌ User declined", [1]],
      );
    } finally {
      await c.close();
    }
  });

  test("a form whose call was cancelled is signalled once the other call in flight has ended too", async () => {
    let signalled: boolean | undefined;
    let markShown = () => {};
    const shown = new Promise<void>((resolve) => (markShown = resolve));
    const c = client({
      elicitation: async (_params, ctx) => {
        markShown();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 15_000);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
        signalled = ctx.signal.aborted;
        return { action: "decline" };
      },
    });
    try {
      await c.listTools("everything");
      const controller = new AbortController();
      const work = c.callTool("everything", "trigger-long-running-operation", { duration: 1, steps: 1 });
      const form = c.callTool("everything", "trigger-elicitation-request", {}, { signal: controller.signal });
      await shown;
      controller.abort(new Error("the person closed the form"));
      const [worked, cancelled] = await Promise.allSettled([work, form]);
      const kind = cancelled.status === "rejected"
        ? (cancelled.reason as { kind?: string }).kind
        : "answered";
      // The handler hears it within a moment of the other call's end (1 s of work), not at 15 s.
      const started = Date.now();
      while (signalled === undefined && Date.now() - started < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual([worked.status, kind, signalled], ["fulfilled", "cancelled", true]);
    } finally {
      await c.close();
    }
  });
});
