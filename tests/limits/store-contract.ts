// The behaviour every RateLimitStore must have, registered as tests for any store factory. Real
// time may pass between takes, so every rule refills once a minute and each assertion holds
// whatever the timing.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RateLimitStore } from "../../src/limits/rate-limit-store.ts";
import type { Rate, TakeResult } from "../../src/limits/token-bucket.ts";

const MINUTE = 60_000;
const allowed = (remaining: number): TakeResult => ({ allowed: true, remaining, retryAfterMs: 0 });

async function takeAll(store: RateLimitStore, key: string, rate: Rate, count: number): Promise<TakeResult[]> {
  const results: TakeResult[] = [];
  for (let i = 0; i < count; i++) results.push(await store.take(key, rate));
  return results;
}

/** Asserts a refusal: nothing remaining, and a retry due within (0, perMs]. */
function assertRefused(result: TakeResult | undefined, perMs: number): void {
  assert.deepEqual(result === undefined ? undefined : { ...result, retryAfterMs: 0 }, {
    allowed: false,
    remaining: 0,
    retryAfterMs: 0,
  });
  const retry = result?.retryAfterMs ?? 0;
  assert.ok(retry > 0 && retry <= perMs, `retryAfterMs "${retry}" must be within (0, ${perMs}]`);
}

/**
 * Registers the store contract for a store made by `makeStore` (called once per test, so each
 * test may get a fresh store or a fresh key space).
 */
export function storeContract(
  name: string,
  makeStore: () => RateLimitStore | Promise<RateLimitStore>,
): void {
  describe(`${name}: store contract`, () => {
    test(`${name}: take() allows the burst of 3 with remaining 2, 1, 0, then refuses`, async () => {
      const store = await makeStore();
      const rate = { rate: 1, perMs: MINUTE, burst: 3 };
      const results = await takeAll(store, "github", rate, 5);
      assert.deepEqual(results.slice(0, 3), [allowed(2), allowed(1), allowed(0)]);
      assertRefused(results[3], MINUTE);
      assertRefused(results[4], MINUTE);
    });

    test(`${name}: take() keeps keys independent`, async () => {
      const store = await makeStore();
      const rate = { rate: 1, perMs: MINUTE, burst: 2 };
      await takeAll(store, "a", rate, 2);
      assertRefused(await store.take("a", rate), MINUTE);
      assert.deepEqual(await takeAll(store, "b", rate, 2), [allowed(1), allowed(0)]);
      assert.deepEqual(await takeAll(store, "a:b", rate, 1), [allowed(1)]);
      assertRefused(await store.take("a", rate), MINUTE);
    });

    test(`${name}: take() keeps distinct rules on one key apart`, async () => {
      const store = await makeStore();
      const short = { rate: 1, perMs: MINUTE, burst: 2 };
      await takeAll(store, "k", short, 2);
      assertRefused(await store.take("k", short), MINUTE);
      assert.deepEqual(await store.take("k", { rate: 1, perMs: MINUTE, burst: 5 }), allowed(4));
      assert.deepEqual(await store.take("k", { rate: 1, perMs: 2 * MINUTE, burst: 2 }), allowed(1));
      assert.deepEqual(await store.take("k", { rate: 2, perMs: MINUTE, burst: 2 }), allowed(1));
      assertRefused(await store.take("k", short), MINUTE);
    });

    test(`${name}: take() with burst 1 refuses the second take with retryAfterMs within (0, perMs]`, async () => {
      const store = await makeStore();
      const rate = { rate: 1, perMs: 5 * MINUTE, burst: 1 };
      assert.deepEqual(await store.take("single", rate), allowed(0));
      assertRefused(await store.take("single", rate), 5 * MINUTE);
    });

    test(`${name}: take() accepts any string as a key, including the empty string`, async () => {
      const store = await makeStore();
      const rate = { rate: 1, perMs: MINUTE, burst: 2 };
      assert.deepEqual(await store.take("", rate), allowed(1));
      assert.deepEqual(await store.take("1/60000/2:", rate), allowed(1));
      assert.deepEqual(await store.take("ünï 😀", rate), allowed(1));
    });

    test(`${name}: take() refuses a rate of 0 with a RangeError naming the field`, async () => {
      const store = await makeStore();
      await assert.rejects(async () => await store.take("k", { rate: 0, perMs: MINUTE, burst: 2 }), {
        name: "RangeError",
        message: 'Rate limit "rate" must be a positive safe integer, received "0"',
      });
    });
  });
}
