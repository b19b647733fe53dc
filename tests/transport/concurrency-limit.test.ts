import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ConcurrencyLimit } from "../../src/transport/_concurrency-limit.ts";

/** A task that runs until `finish()`, recording when it starts. */
function gate(started: number[], n: number) {
  let finish!: (value: number) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<number>((resolve, reject) => (finish = resolve, fail = reject));
  return {
    task: () => (started.push(n), done),
    finish: () => finish(n),
    fail: (error: Error) => fail(error),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ConcurrencyLimit", () => {
  test("ConcurrencyLimit runs 2 of 5 tasks at once, the rest in arrival order as slots free", async () => {
    const limit = new ConcurrencyLimit(2);
    const started: number[] = [];
    const gates = [0, 1, 2, 3, 4].map((n) => gate(started, n));
    const results = Promise.allSettled(gates.map((g) => limit.run(g.task)));
    await settle();
    assert.deepEqual(started, [0, 1]);
    gates[1]!.finish();
    await settle();
    assert.deepEqual(started, [0, 1, 2]);
    gates[0]!.fail(new Error("task 0 failed"));
    await settle();
    assert.deepEqual(started, [0, 1, 2, 3]);
    for (const g of gates.slice(2)) g.finish();
    const settled = await results;
    assert.deepEqual(settled.map((s) => s.status === "fulfilled" ? s.value : (s.reason as Error).message), [
      "task 0 failed",
      1,
      2,
      3,
      4,
    ]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    // Every slot is free again.
    const again = [5, 6].map((n) => gate(started, n));
    const both = again.map((g) => limit.run(g.task));
    await settle();
    assert.deepEqual(started.slice(5), [5, 6]);
    again.forEach((g) => g.finish());
    assert.deepEqual(await Promise.all(both), [5, 6]);
  });

  test("ConcurrencyLimit refuses a limit that is not a positive integer", () => {
    for (const max of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new ConcurrencyLimit(max), {
        name: "RangeError",
        message: `ConcurrencyLimit: "max" must be a positive integer, received "${max}"`,
      });
    }
  });
});
