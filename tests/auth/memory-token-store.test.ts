// createMemoryTokenStore() on every runtime: the token store contract on a fake clock, the bound
// on values and claims, and the refusal of a bad bound.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryTokenStore } from "../../src/auth/token-store.ts";
import { contractClock, describeTokenStoreContract } from "./token-store-contract.ts";

describeTokenStoreContract("createMemoryTokenStore()", () => {
  const clock = contractClock();
  return { store: createMemoryTokenStore({ clock }), clock };
});

describe("createMemoryTokenStore()", () => {
  test("createMemoryTokenStore() keeps at most maxKeys values: past it the oldest is dropped", async () => {
    const store = createMemoryTokenStore({ clock: contractClock(), maxKeys: 2 });
    await store.set("a", "1");
    await store.set("b", "2");
    await store.set("a", "3"); // a is now the newest
    await store.set("c", "4"); // drops b
    assert.deepEqual([await store.get("a"), await store.get("b"), await store.get("c")], [
      "3",
      undefined,
      "4",
    ]);
  });

  test("createMemoryTokenStore() keeps at most maxKeys claims, apart from the values", async () => {
    const store = createMemoryTokenStore({ clock: contractClock(), maxKeys: 2 });
    await store.set("v", "kept");
    assert.deepEqual(
      [
        await store.claim("a", 60_000),
        await store.claim("b", 60_000),
        await store.claim("c", 60_000), // forgets a
        await store.claim("a", 60_000),
        await store.claim("c", 60_000),
        await store.get("v"),
      ],
      [true, true, true, true, false, "kept"],
    );
  });

  test("createMemoryTokenStore() refuses a maxKeys of 0 with a RangeError naming it", () => {
    assert.throws(() => createMemoryTokenStore({ maxKeys: 0 }), {
      name: "RangeError",
      message: 'createMemoryTokenStore(): "maxKeys" must be a positive integer, received "0"',
    });
  });
});
