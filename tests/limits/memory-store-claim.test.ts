// createMemoryStore().claim() on every runtime: a key is claimed once while its claim holds, again
// once it has expired (by an injected clock) or been given back (release()), and at most maxKeys
// claims are held, expired ones dropped first, then the oldest.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/limits/memory-store.ts";

/** A clock the test moves by hand. */
function fakeClock(start = 0): { now: () => number; set: (ms: number) => void } {
  let time = start;
  return { now: () => time, set: (ms) => (time = ms) };
}

describe("createMemoryStore().claim()", () => {
  test("claim() is true the first time, false while the claim holds, and true for another key", () => {
    const store = createMemoryStore({ clock: fakeClock(1000) });
    assert.deepEqual(
      [
        store.claim("state:a", 600_000),
        store.claim("state:a", 600_000),
        store.claim("state:a", 1),
        store.claim("state:b", 600_000),
      ],
      [true, false, false, true],
    );
  });

  test("claim() holds for exactly ttlMs by the injected clock, then claims again for a new ttl", () => {
    const clock = fakeClock(1000);
    const store = createMemoryStore({ clock });
    const outcomes: Array<[number, boolean]> = [];
    const at = (ms: number, ttlMs = 500) => {
      clock.set(ms);
      outcomes.push([ms, store.claim("k", ttlMs)]);
    };
    at(1000);
    at(1499);
    at(1500);
    at(1999, 10);
    at(2000, 10);
    at(2010, 10);
    assert.deepEqual(outcomes, [[1000, true], [1499, false], [1500, true], [1999, false], [2000, true], [
      2010,
      true,
    ]]);
  });

  test("release() gives a claim back: the key is claimed again at once, and other claims still hold", () => {
    const store = createMemoryStore({ clock: fakeClock(1000) });
    const claimed = [store.claim("state:a", 600_000), store.claim("state:b", 600_000)];
    store.release("state:a");
    store.release("state:never-claimed");
    assert.deepEqual([claimed, store.claim("state:a", 600_000), store.claim("state:b", 600_000)], [
      [true, true],
      true,
      false,
    ]);
  });

  test("claim() holds a ttl of 0 or less for 1 ms", () => {
    const clock = fakeClock(5);
    const store = createMemoryStore({ clock });
    const first = [
      store.claim("zero", 0),
      store.claim("zero", 0),
      store.claim("minus", -100),
      store.claim("minus", 5),
    ];
    clock.set(6);
    assert.deepEqual([first, store.claim("zero", 0), store.claim("minus", 0)], [
      [true, false, true, false],
      true,
      true,
    ]);
  });

  test("claim() holds at most maxKeys claims: past it the oldest is forgotten, the newer ones still hold", () => {
    const store = createMemoryStore({ clock: fakeClock(), maxKeys: 2 });
    assert.deepEqual(
      [
        store.claim("a", 60_000),
        store.claim("b", 60_000),
        store.claim("c", 60_000), // forgets a
        store.claim("b", 60_000),
        store.claim("c", 60_000),
        store.claim("a", 60_000), // forgets b
        store.claim("c", 60_000),
      ],
      [true, true, true, false, false, true, false],
    );
  });

  test("claim() at maxKeys drops expired claims before forgetting one that still holds", () => {
    const clock = fakeClock();
    const store = createMemoryStore({ clock, maxKeys: 2 });
    store.claim("short", 10);
    store.claim("long", 60_000);
    clock.set(10);
    assert.deepEqual([store.claim("new", 60_000), store.claim("long", 60_000), store.claim("new", 60_000)], [
      true,
      false,
      false,
    ]);
  });

  test("claim() keeps its claims apart from the token buckets: size counts buckets only, and the two never collide", () => {
    const store = createMemoryStore({ clock: fakeClock() });
    const rule = { rate: 1, perMs: 1000, burst: 1 };
    assert.deepEqual(
      [
        store.claim("github", 1000),
        store.take("github", rule).allowed,
        store.claim("github", 1000),
        store.size,
      ],
      [true, true, false, 1],
    );
  });
});
