import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LogBudgets, MAX_LOG_BUCKETS } from "../../src/notify/log-budget.ts";
import { FakeTime } from "../_support/fake-time.ts";

describe("LogBudgets", () => {
  test("past MAX_LOG_BUCKETS the least recently used bucket is dropped, not a spent one still in use", () => {
    const time = new FakeTime();
    const budgets = new LogBudgets(time, () => ({ rate: 1, perMs: 60_000, burst: 2 }));
    // Connection 0 spends its burst, then MAX_LOG_BUCKETS - 1 other connections log once each.
    assert.deepEqual([budgets.take("s", 0), budgets.take("s", 0), budgets.take("s", 0)], [true, true, false]);
    for (let connection = 1; connection < MAX_LOG_BUCKETS; connection++) budgets.take("s", connection);
    // Connection 0 logs again (refused: still spent), so connection 1 is now the least recent.
    assert.equal(budgets.take("s", 0), false);
    // One more connection drops connection 1's bucket: connection 0 stays spent, 1 starts full.
    assert.equal(budgets.take("s", MAX_LOG_BUCKETS), true);
    assert.deepEqual([budgets.take("s", 0), budgets.take("s", 1), budgets.take("s", 1)], [false, true, true]);
    assert.equal(budgets.take("s", 1), false);
  });

  test("a server the rule does not know gets no bucket and no entry through", () => {
    const budgets = new LogBudgets(
      new FakeTime(),
      (server) => server === "known" ? { rate: 1, perMs: 1000, burst: 1 } : undefined,
    );
    assert.deepEqual([budgets.take("unknown"), budgets.take("known"), budgets.take("known")], [
      false,
      true,
      false,
    ]);
  });
});
