import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deliverProgress, risingOnly, risingProgress } from "../../src/notify/progress-delivery.ts";
import type { JsonObject } from "../../src/protocol/jsonrpc.ts";
import { np, same } from "../_support/exact.ts";
import { recordingConsoleErrors } from "../_support/console-errors.ts";
import { CLEAN_PROGRESS, HOSTILE_PROGRESS } from "../_support/throwing-progress.ts";

describe("deliverProgress()", () => {
  test("calls the listener off the caller's turn, in arrival order, with the params sanitized, prototype-free and frozen", async () => {
    const seen: JsonObject[] = [];
    const listener = (params: JsonObject) => void seen.push(params);
    deliverProgress("github", listener, {
      progressToken: "sluice-1",
      progress: 1,
      message: HOSTILE_PROGRESS,
    });
    deliverProgress("github", listener, {
      progressToken: "sluice-1",
      progress: 2,
      extra: { deep: "a\u2028b" },
    });
    deliverProgress("github", listener, "not an object");
    assert.deepEqual(seen, []);
    const { logged } = await recordingConsoleErrors(() => Promise.resolve());
    same(seen, [
      np({ progressToken: "sluice-1", progress: 1, message: CLEAN_PROGRESS }),
      np({ progressToken: "sluice-1", progress: 2, extra: np({ deep: "ab" }) }),
      np({}),
    ]);
    assert.deepEqual(seen.map((params) => Object.isFrozen(params)), [true, true, true]);
    assert.deepEqual(logged, []);
  });

  test("reports a throw and a rejection with their sanitized messages, and goes on to the next", async () => {
    const seen: unknown[] = [];
    const { logged } = await recordingConsoleErrors(() => {
      deliverProgress("github", () => {
        throw new Error("ui\u001b[31m gone\nFAKE");
      }, { progress: 1 });
      deliverProgress("github", () => Promise.reject("late\u202E"), { progress: 2 });
      deliverProgress("github", (params) => void seen.push(params.progress), { progress: 3 });
      return Promise.resolve();
    });
    assert.deepEqual(seen, [3]);
    assert.deepEqual(logged, [
      [`A call's onProgress threw on "notifications/progress" from server "github": "ui[31m goneFAKE"`],
      [`A call's onProgress threw on "notifications/progress" from server "github": "late"`],
    ]);
  });
});

describe("risingProgress()", () => {
  test("risingProgress() takes a progress value only above the last one it took, and nothing that is not a number", () => {
    const rising = risingProgress();
    assert.deepEqual([0, 1, 0.5, 1, "2", null, 2, 2.5].map(rising), [
      true,
      true,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    // Each request has its own.
    assert.equal(risingProgress()(0), true);
  });

  test("risingOnly() passes a listener only params whose progress rises, as a server MUST send them", () => {
    const heard: unknown[] = [];
    const listener = risingOnly((params) => heard.push(params["progress"]));
    for (const progress of [10, 2, "abc", null, undefined, 10, 11, Infinity, 12]) {
      listener(progress === undefined ? { progressToken: "t" } : { progressToken: "t", progress });
    }
    assert.deepEqual(heard, [10, 11, Infinity]);
  });
});
