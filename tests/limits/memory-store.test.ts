import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore, DEFAULT_MAX_KEYS } from "../../src/limits/memory-store.ts";
import type { TakeResult } from "../../src/limits/token-bucket.ts";
import { storeContract } from "./store-contract.ts";

const allowed = (remaining: number): TakeResult => ({ allowed: true, remaining, retryAfterMs: 0 });
const refused = (retryAfterMs: number): TakeResult => ({ allowed: false, remaining: 0, retryAfterMs });

/** A clock the test moves by hand. */
function fakeClock(start = 0): { now: () => number; set: (ms: number) => void } {
  let time = start;
  return { now: () => time, set: (ms) => (time = ms) };
}

const BUDGET = { rate: 10, perMs: 1000, burst: 20 };
const ONE = { rate: 1, perMs: 1000, burst: 1 };

storeContract("createMemoryStore()", () => createMemoryStore());

describe("createMemoryStore()", () => {
  test("createMemoryStore() allows 20 at 10/s burst 20, remaining 19 down to 0, then retryAfterMs 100", () => {
    const store = createMemoryStore({ clock: fakeClock() });
    const results = Array.from({ length: 21 }, () => store.take("github", BUDGET));
    assert.deepEqual(results, [...Array.from({ length: 20 }, (_, i) => allowed(19 - i)), refused(100)]);
  });

  test("createMemoryStore() refills by the injected clock: 1 token per 100 ms at 10/s", () => {
    const clock = fakeClock();
    const store = createMemoryStore({ clock });
    for (let i = 0; i < 20; i++) store.take("github", BUDGET);
    clock.set(99);
    const early = store.take("github", BUDGET);
    clock.set(100);
    const onTime = store.take("github", BUDGET);
    const after = store.take("github", BUDGET);
    assert.deepEqual([early, onTime, after], [refused(1), allowed(0), refused(100)]);
  });

  test("createMemoryStore() refills to exactly burst 20 and no further", () => {
    const clock = fakeClock();
    const store = createMemoryStore({ clock });
    for (let i = 0; i < 20; i++) store.take("github", BUDGET);
    clock.set(86_400_000);
    const results = Array.from({ length: 21 }, () => store.take("github", BUDGET));
    assert.deepEqual(results, [...Array.from({ length: 20 }, (_, i) => allowed(19 - i)), refused(100)]);
  });

  test("createMemoryStore() keeps separate keys independent under a fake clock", () => {
    const store = createMemoryStore({ clock: fakeClock() });
    assert.deepEqual(
      [store.take("a", ONE), store.take("a", ONE), store.take("b", ONE), store.take("b", ONE)],
      [
        allowed(0),
        refused(1000),
        allowed(0),
        refused(1000),
      ],
    );
  });

  for (const [rate, perMs, burst, expected] of [[50, 1000, 100, 150], [10, 1000, 20, 30]] as const) {
    test(`createMemoryStore(): 100 000 takes over exactly 1000 ms at ${rate}/s, burst ${burst}, allow exactly ${expected}`, () => {
      const clock = fakeClock();
      const store = createMemoryStore({ clock });
      const rule = { rate, perMs, burst };
      let count = 0;
      for (let i = 0; i < 100_000; i++) {
        clock.set((i * 1000) / 99_999);
        if (store.take("flood", rule).allowed) count++;
      }
      assert.deepEqual([count, clock.now()], [expected, 1000]);
    });
  }

  test("createMemoryStore() evicts the least recently used bucket at maxKeys, which starts full again", () => {
    const store = createMemoryStore({ clock: fakeClock(), maxKeys: 3 });
    for (const key of ["a", "b", "c"]) store.take(key, ONE);
    assert.deepEqual(store.take("a", ONE), refused(1000)); // "a" is now the most recent
    assert.deepEqual([store.take("d", ONE), store.size], [allowed(0), 3]); // evicts "b"
    assert.deepEqual([store.take("b", ONE), store.size], [allowed(0), 3]); // "b" is back full; evicts "c"
    assert.deepEqual(
      [store.take("a", ONE), store.take("d", ONE), store.take("b", ONE), store.take("c", ONE)],
      [refused(1000), refused(1000), refused(1000), allowed(0)],
    );
  });

  test("createMemoryStore() counts one bucket per key and rule toward maxKeys", () => {
    const store = createMemoryStore({ clock: fakeClock(), maxKeys: 2 });
    store.take("k", ONE);
    store.take("k", BUDGET);
    store.take("k", { rate: 1, perMs: 1000, burst: 2 });
    assert.deepEqual([store.size, store.take("k", ONE)], [2, allowed(0)]);
  });

  test("createMemoryStore() holds at most 10 000 buckets by default", () => {
    const store = createMemoryStore({ clock: fakeClock() });
    for (let i = 0; i <= 10_000; i++) store.take(`server-${i}`, ONE);
    assert.deepEqual([DEFAULT_MAX_KEYS, store.size, store.take("server-0", ONE)], [
      10_000,
      10_000,
      allowed(0),
    ]);
  });

  test("createMemoryStore() answers synchronously, not with a promise", () => {
    const result: unknown = createMemoryStore({ clock: fakeClock() }).take("k", ONE);
    assert.equal(result instanceof Promise, false);
  });

  test("createMemoryStore() refuses maxKeys 0 and 1.5", () => {
    assert.throws(() => createMemoryStore({ maxKeys: 0 }), {
      name: "RangeError",
      message: 'createMemoryStore(): "maxKeys" must be a positive safe integer, received "0"',
    });
    assert.throws(() => createMemoryStore({ maxKeys: 1.5 }), {
      message: 'createMemoryStore(): "maxKeys" must be a positive safe integer, received "1.5"',
    });
  });

  test("createMemoryStore() refuses a misspelt option, naming the one it means, rather than keep its default", () => {
    assert.throws(() => createMemoryStore({ maxKey: 5 } as never), {
      name: "TypeError",
      message:
        'createMemoryStore(): "maxKey" is not an option (did you mean "maxKeys"?); expected "clock", "maxKeys"',
    });
  });
});
