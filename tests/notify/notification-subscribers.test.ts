import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createNotificationQueue } from "../../src/notify/notification-queue.ts";
import type { NotificationEntry } from "../../src/notify/notification-entry.ts";
import { settle } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";
import { errorLog, logMessage, ManualClock, progress } from "./_queue-fixtures.ts";

const logEntry = (data: unknown, level = "info"): NotificationEntry => ({
  kind: "log",
  serverId: "github",
  era: "modern",
  method: "notifications/message",
  log: { level: level as "info", data },
});

const progressEntry = (value: number): NotificationEntry => ({
  kind: "notification",
  serverId: "github",
  era: "modern",
  method: "notifications/progress",
  params: np({ progressToken: "t", progress: value }),
});

describe("NotificationQueue.subscribe()", () => {
  test("subscribe() hears the same sanitized entries as the handler, the very same objects, in order", async () => {
    const handled: unknown[] = [];
    const heard: NotificationEntry[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: (_l, entry) => handled.push(entry) },
    });
    queue.subscribe((entry) => heard.push(entry));
    queue.push("github", "modern", logMessage("a\u202Eb", "error"));
    queue.push("github", "modern", progress(7));
    await settle();
    same(heard, [logEntry("ab", "error"), progressEntry(7)]);
    assert.equal(handled[0], heard[0]?.kind === "log" ? heard[0].log : undefined);
    assert.deepEqual(heard.map((entry) => Object.isFrozen(entry)), [true, true]);
    same(queue.stats(), np({ github: { delivered: 3, dropped: 0, rateLimited: 0 } }));
  });

  test("subscribe() hears log entries within the same log budget, without any handler", async () => {
    const heard: unknown[] = [];
    const queue = createNotificationQueue({ client: "agent", clock: new ManualClock() });
    queue.subscribe((entry) => heard.push(entry.kind === "log" ? entry.log.data : undefined));
    for (let i = 0; i < 120; i++) queue.push("github", "modern", logMessage(i));
    await settle();
    assert.deepEqual(heard, Array.from({ length: 100 }, (_, i) => i));
    same(queue.stats(), np({ github: { delivered: 100, dropped: 0, rateLimited: 20 } }));
  });

  test("a slow subscriber holds at most maxWaiting entries, counts its drops and never slows the handler", async () => {
    const handled: unknown[] = [];
    const heard: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      maxWaiting: 10,
      handler: { notification: (_m, params) => void handled.push(params.progress) },
    });
    queue.subscribe((entry) => {
      heard.push(entry.kind === "notification" ? entry.params.progress : undefined);
      return new Promise(() => {}); // never done
    });
    for (let i = 0; i < 25; i++) {
      queue.push("github", "modern", progress(i));
      if (i % 5 === 4) await settle();
    }
    assert.deepEqual([handled.length, heard], [25, [0]]);
    // The handler took 25; the subscriber 1, with 10 waiting and 14 dropped.
    same(queue.stats(), np({ github: { delivered: 26, dropped: 14, rateLimited: 0 } }));
  });

  test("unsubscribing lets waiting entries go and makes no further call", async () => {
    const heard: unknown[] = [];
    let release = () => {};
    const queue = createNotificationQueue({ client: "agent" });
    const unsubscribe = queue.subscribe((entry) => {
      heard.push(entry.kind === "notification" ? entry.params.progress : undefined);
      return new Promise<void>((resolve) => (release = resolve));
    });
    for (let i = 0; i < 4; i++) queue.push("github", "modern", progress(i));
    await settle();
    unsubscribe();
    unsubscribe();
    release();
    queue.push("github", "modern", progress(9));
    await settle();
    assert.deepEqual(heard, [0]);
    same(queue.stats(), np({ github: { delivered: 1, dropped: 0, rateLimited: 0 } }));
  });

  test("a subscriber that throws is reported and skipped", async () => {
    const errors = errorLog();
    const queue = createNotificationQueue({ client: "agent", onError: errors.onError });
    queue.subscribe(() => {
      throw new Error("sub\u2029broke");
    });
    queue.push("github", "modern", progress(1));
    queue.push("github", "modern", progress(2));
    await settle();
    assert.deepEqual(errors.messages, [
      'A notification subscriber threw on "notifications/progress" from server "github": "subbroke"',
      'A notification subscriber threw on "notifications/progress" from server "github": "subbroke"',
    ]);
  });
});

describe("NotificationQueue.entries()", () => {
  test("entries() yields the entries in order, and leaving the loop unsubscribes", async () => {
    const queue = createNotificationQueue({ client: "agent" });
    const entries = queue.entries();
    for (let i = 0; i < 3; i++) queue.push("github", "modern", progress(i));
    const seen: NotificationEntry[] = [];
    for await (const entry of entries) {
      seen.push(entry);
      if (seen.length === 1) queue.push("github", "modern", logMessage("late\n"));
      if (seen.length === 2) break;
    }
    queue.push("github", "modern", progress(99));
    same(seen, [progressEntry(0), progressEntry(1)]);
    same(queue.stats(), np({ github: { delivered: 2, dropped: 0, rateLimited: 0 } }));
  });

  test("entries() sees only what is pushed after it is made; pending reads resolve in order on push", async () => {
    const queue = createNotificationQueue({ client: "agent" });
    queue.push("github", "modern", progress(0));
    const entries = queue.entries();
    const pending = [entries.next(), entries.next()];
    queue.push("github", "modern", progress(1));
    queue.push("github", "modern", progress(2));
    same(await Promise.all(pending), [
      { value: progressEntry(1), done: false },
      { value: progressEntry(2), done: false },
    ]);
    await entries.return?.();
    same(await entries.next(), { value: undefined, done: true });
  });

  test("entries() keeps at most maxWaiting entries for a reader that does not read, and counts the drops", async () => {
    const queue = createNotificationQueue({ client: "agent", maxWaiting: 5 });
    const entries = queue.entries();
    for (let i = 0; i < 8; i++) queue.push("github", "modern", progress(i));
    same(queue.stats(), np({ github: { delivered: 0, dropped: 3, rateLimited: 0 } }));
    const read: unknown[] = [];
    for (let i = 0; i < 5; i++) read.push((await entries.next()).value);
    same(read, [0, 1, 2, 3, 4].map(progressEntry));
    same(queue.stats(), np({ github: { delivered: 5, dropped: 3, rateLimited: 0 } }));
  });

  test("return() ends pending reads and lets waiting entries go", async () => {
    const queue = createNotificationQueue({ client: "agent" });
    const entries = queue.entries();
    const pending = [entries.next(), entries.next()];
    queue.push("github", "modern", progress(1));
    queue.push("github", "modern", progress(2));
    queue.push("github", "modern", progress(3));
    await entries.return?.();
    await settle();
    same(await Promise.all([...pending, entries.next()]), [
      { value: undefined, done: true },
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    same(queue.stats(), np({ github: { delivered: 0, dropped: 0, rateLimited: 0 } }));
  });
});

describe("NotificationQueue.close() and stats()", () => {
  test("close() ignores later pushes, delivers what waits, then ends iterators", async () => {
    const handled: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { notification: (_m, params) => void handled.push(params.progress) },
    });
    const entries = queue.entries();
    queue.push("github", "modern", progress(1));
    queue.close();
    queue.close();
    queue.push("github", "modern", progress(2));
    const seen: NotificationEntry[] = [];
    for await (const entry of entries) seen.push(entry);
    same(seen, [progressEntry(1)]);
    assert.deepEqual(handled, [1]);
    same(await queue.entries().next(), { value: undefined, done: true });
    const unsubscribe = queue.subscribe(() => assert.fail("closed"));
    unsubscribe();
  });

  test("stats() is a prototype-free, frozen snapshot per server", async () => {
    const queue = createNotificationQueue({ client: "agent", handler: { notification: () => {} } });
    queue.push("b", "modern", progress(1));
    queue.push("a", "legacy", progress(1));
    const before = queue.stats();
    await settle();
    same(
      before,
      np({
        b: { delivered: 0, dropped: 0, rateLimited: 0 },
        a: { delivered: 0, dropped: 0, rateLimited: 0 },
      }),
    );
    same(
      queue.stats(),
      np({
        b: { delivered: 1, dropped: 0, rateLimited: 0 },
        a: { delivered: 1, dropped: 0, rateLimited: 0 },
      }),
    );
    assert.deepEqual([Object.isFrozen(before), Object.isFrozen(before.a)], [true, true]);
  });
});
