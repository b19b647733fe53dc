import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createNotificationQueue } from "../../src/notify/notification-queue.ts";
import { settle } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";
import { errorLog, logMessage, ManualClock, progress } from "./_queue-fixtures.ts";

describe("createNotificationQueue() log budget", () => {
  test("a flood of 100 000 log entries in one second of fake time lets exactly 100 + 50 × 1 through", async () => {
    const clock = new ManualClock();
    const seen: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      clock,
      handler: { log: (_l, entry) => seen.push(entry.data) },
    });
    for (let i = 0; i < 100_000; i++) {
      clock.at = Math.floor((i * 1000) / 99_999);
      queue.push("github", "modern", logMessage(i));
    }
    await settle();
    assert.equal(seen.length, 150);
    assert.deepEqual(seen.slice(0, 100), Array.from({ length: 100 }, (_, i) => i));
    assert.ok(seen.every((value, i) => i === 0 || (value as number) > (seen[i - 1] as number)));
    same(queue.stats(), np({ github: { delivered: 150, dropped: 0, rateLimited: 99_850 } }));
  });

  test("an entry below the server's logLevel, sent though the server was asked not to, reaches no one and spends no budget", async () => {
    const clock = new ManualClock();
    const seen: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      clock,
      handler: { log: (level, entry) => seen.push([level, entry.data]) },
      logRateLimit: () => ({ rate: 1, perMs: 60_000, burst: 3 }),
      logLevel: (serverId) => serverId === "quiet" ? "warning" : undefined,
    });
    // An unknown level counts as info, as the entry would read.
    for (const level of ["debug", "info", "loud", "notice", "warning", "error", "emergency"]) {
      queue.push("quiet", "modern", logMessage(level, level));
    }
    queue.push("other", "modern", logMessage("debug", "debug"));
    await settle();
    assert.deepEqual(seen, [["warning", "warning"], ["error", "error"], ["emergency", "emergency"], [
      "debug",
      "debug",
    ]]);
    same(
      queue.stats(),
      np({
        quiet: { delivered: 3, dropped: 0, rateLimited: 0 },
        other: { delivered: 1, dropped: 0, rateLimited: 0 },
      }),
    );
  });

  test("the log budget comes from logRateLimit per server: 5 + 10/s over 2 s lets 25 through", async () => {
    const clock = new ManualClock();
    const queue = createNotificationQueue({
      client: "agent",
      clock,
      handler: { log: () => {} },
      logRateLimit: (serverId) =>
        serverId === "slow" ? { rate: 10, perMs: 1000, burst: 5 } : { rate: 1, perMs: 1000, burst: 1 },
    });
    for (let i = 0; i <= 2000; i++) {
      clock.at = i;
      queue.push("slow", "modern", logMessage(i));
      queue.push("tiny", "modern", logMessage(i));
    }
    await settle();
    same(
      queue.stats(),
      np({
        slow: { delivered: 25, dropped: 0, rateLimited: 1976 },
        tiny: { delivered: 3, dropped: 0, rateLimited: 1998 },
      }),
    );
  });

  test("each server has its own budget, and each legacy connection its own", async () => {
    const queue = createNotificationQueue({
      client: "agent",
      clock: new ManualClock(),
      handler: { log: () => {} },
    });
    for (let i = 0; i < 300; i++) {
      queue.push("a", "modern", logMessage(i));
      queue.push("b", "legacy", logMessage(i), 1);
      queue.push("b", "legacy", logMessage(i), 2);
    }
    await settle();
    same(
      queue.stats(),
      np({
        a: { delivered: 100, dropped: 0, rateLimited: 200 },
        b: { delivered: 200, dropped: 0, rateLimited: 400 },
      }),
    );
  });

  test("other notifications are not limited by the log budget", async () => {
    let count = 0;
    const queue = createNotificationQueue({
      client: "agent",
      clock: new ManualClock(),
      handler: { notification: () => count++ },
    });
    for (let i = 0; i < 500; i++) queue.push("github", "modern", progress(i));
    await settle();
    assert.equal(count, 500);
  });

  test("a server with no log budget (undefined: a server the client does not know) has its entries refused, silently", async () => {
    const errors = errorLog();
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: () => assert.fail("must not be called") },
      logRateLimit: () => undefined,
      onError: errors.onError,
    });
    queue.push("github", "modern", logMessage("x"));
    queue.push("github", "legacy", logMessage("y"), 1);
    await settle();
    same(queue.stats(), np({ github: { delivered: 0, dropped: 0, rateLimited: 2 } }));
    assert.deepEqual(errors.messages, []);
  });

  test("a log budget that is not a valid rate refuses the entries and reports why once", async () => {
    const errors = errorLog();
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: () => assert.fail("must not be called") },
      logRateLimit: () => ({ rate: 0, perMs: 1000, burst: 1 }),
      onError: errors.onError,
    });
    queue.push("github", "modern", logMessage("x"));
    queue.push("github", "modern", logMessage("y"));
    await settle();
    same(queue.stats(), np({ github: { delivered: 0, dropped: 0, rateLimited: 2 } }));
    assert.deepEqual(errors.messages, [
      'The log budget of server "github" failed: "Rate limit "rate" must be a positive safe integer, received "0""',
    ]);
  });
});
