import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createNotificationQueue } from "../../src/notify/notification-queue.ts";
import type { LogEntry, NotificationContext } from "../../src/handler/handler.ts";
import { FakeTime, settle } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";
import { errorLog, logMessage, notification, progress } from "./_queue-fixtures.ts";

const ctx = (serverId = "github", era: "modern" | "legacy" = "modern"): NotificationContext => ({
  client: "agent",
  serverId,
  era,
});

describe("createNotificationQueue() delivery to the handler", () => {
  test("push() delivers a log entry to log(level, entry, ctx), sanitized, after push returns", async () => {
    const calls: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: (...args) => calls.push(args) },
    });
    queue.push(
      "github",
      "modern",
      notification("notifications/message", {
        level: "warning",
        logger: "db\u202E",
        data: { msg: "disk\r\nfull" },
        extra: true,
      }),
    );
    assert.deepEqual(calls, []);
    await settle();
    same(calls, [["warning", { level: "warning", logger: "db", data: np({ msg: "diskfull" }) }, ctx()]]);
  });

  test("push() delivers other notifications to notification(method, params, ctx), params cleaned and prototype-free", async () => {
    const calls: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { notification: (...args) => calls.push(args) },
    });
    queue.push(
      "github",
      "legacy",
      notification("notifications/progress", {
        progressToken: "t",
        progress: 1,
        message: "step\u2028two\u200B",
      }),
    );
    queue.push("github", "legacy", notification("notifications/tools/list_changed"));
    await settle();
    same(calls, [
      [
        "notifications/progress",
        np({ progressToken: "t", progress: 1, message: "steptwo" }),
        ctx("github", "legacy"),
      ],
      ["notifications/tools/list_changed", np({}), ctx("github", "legacy")],
    ]);
  });

  test("push() ignores what the handler has no callback for, and counts nothing", async () => {
    const levels: string[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: (level) => levels.push(level) },
    });
    queue.push("github", "modern", progress(1));
    queue.push("github", "modern", logMessage("x", "nonsense"));
    await settle();
    assert.deepEqual(levels, ["info"]);
    same(queue.stats(), np({ github: { delivered: 1, dropped: 0, rateLimited: 0 } }));
    const silent = createNotificationQueue({ client: "agent" });
    silent.push("github", "modern", logMessage("x"));
    same(silent.stats(), np({}));
  });
});

describe("createNotificationQueue() order, bound and errors", () => {
  test("5000 notifications behind a slow handler leave exactly 1000 queued and 4000 dropped, order kept", async () => {
    const time = new FakeTime();
    const seen: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      clock: time,
      handler: {
        notification: (_method, params) => {
          seen.push(params.progress);
          return new Promise<void>((resolve) => time.setTimeout(resolve, 10));
        },
      },
    });
    queue.push("github", "modern", progress(0));
    await settle();
    assert.deepEqual([seen, queue.waiting], [[0], 0]);
    for (let i = 1; i <= 5000; i++) queue.push("github", "modern", progress(i));
    assert.equal(queue.waiting, 1000);
    same(queue.stats(), np({ github: { delivered: 1, dropped: 4000, rateLimited: 0 } }));
    await time.advance(10 * 1001);
    assert.deepEqual(seen, Array.from({ length: 1001 }, (_, i) => i));
    assert.equal(queue.waiting, 0);
    same(queue.stats(), np({ github: { delivered: 1001, dropped: 4000, rateLimited: 0 } }));
  });

  test("maxWaiting sets the bound: 3 waiting, the rest dropped", async () => {
    const seen: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      maxWaiting: 3,
      handler: { notification: (_m, params) => void seen.push(params.progress) },
    });
    for (let i = 0; i < 10; i++) queue.push("github", "modern", progress(i));
    await settle();
    assert.deepEqual(seen, [0, 1, 2]);
    same(queue.stats(), np({ github: { delivered: 3, dropped: 7, rateLimited: 0 } }));
  });

  test("a callback that throws or rejects is reported with a sanitized message and skipped", async () => {
    const errors = errorLog();
    const seen: unknown[] = [];
    const thrown = new Error("bad\u202E\nFAKE LINE");
    const queue = createNotificationQueue({
      client: "agent",
      onError: errors.onError,
      handler: {
        notification: (_m, params) => {
          seen.push(params.progress);
          if (params.progress === 1) throw thrown;
          if (params.progress === 2) return Promise.reject("no\u2028way");
        },
        log: () => {
          throw { weird: "obj\u200Bect" };
        },
      },
    });
    for (let i = 0; i < 4; i++) queue.push("github", "modern", progress(i));
    queue.push("github", "modern", logMessage("x"));
    await settle();
    assert.deepEqual(seen, [0, 1, 2, 3]);
    assert.deepEqual(errors.messages, [
      'Handler "notification" threw on "notifications/progress" from server "github": "badFAKE LINE"',
      'Handler "notification" threw on "notifications/progress" from server "github": "noway"',
      'Handler "log" threw on "notifications/message" from server "github": "{"weird":"object"}"',
    ]);
    assert.equal(errors.causes[0], thrown);
    same(queue.stats(), np({ github: { delivered: 5, dropped: 0, rateLimited: 0 } }));
  });

  test("an onError that throws is ignored, and delivery goes on", async () => {
    const seen: unknown[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      onError: () => {
        throw new Error("listener broke");
      },
      handler: {
        notification: (_m, params) => {
          seen.push(params.progress);
          throw new Error("x");
        },
      },
    });
    queue.push("github", "modern", progress(0));
    queue.push("github", "modern", progress(1));
    await settle();
    assert.deepEqual(seen, [0, 1]);
  });

  test("the default onError logs the sanitized message with console.error", async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const queue = createNotificationQueue({
        client: "agent",
        handler: {
          log: () => {
            throw new Error("a\nb");
          },
        },
      });
      queue.push("s1", "modern", logMessage("x"));
      await settle();
    } finally {
      console.error = original;
    }
    assert.deepEqual(logged, [['Handler "log" threw on "notifications/message" from server "s1": "ab"']]);
  });

  test("createNotificationQueue() refuses a maxWaiting that is not a positive safe integer", () => {
    for (const maxWaiting of [0, -1, 1.5, NaN, Infinity]) {
      assert.throws(() => createNotificationQueue({ client: "agent", maxWaiting }), {
        name: "RangeError",
        message:
          `createNotificationQueue(): "maxWaiting" must be a positive safe integer, received "${maxWaiting}"`,
      });
    }
  });

  test("log entries handed to the handler are frozen, their data too", async () => {
    const entries: LogEntry[] = [];
    const queue = createNotificationQueue({
      client: "agent",
      handler: { log: (_l, entry) => void entries.push(entry) },
    });
    queue.push("github", "modern", logMessage({ list: [1] }));
    await settle();
    const data = entries[0]?.data as { list: number[] };
    assert.deepEqual([Object.isFrozen(entries[0]), Object.isFrozen(data), Object.isFrozen(data.list)], [
      true,
      true,
      true,
    ]);
  });
});
