// createMemoryTokenStore() on every runtime: the token store contract on a fake clock, the bound
// on values and claims (a claim that holds is never dropped), and the refusal of a bad bound.
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

  test("createMemoryTokenStore() keeps values that expire apart from lasting ones: sign-ins never finished never push out a grant or a registration", async () => {
    const store = createMemoryTokenStore({ clock: contractClock(), maxKeys: 2 });
    await store.set("grant", "g");
    await store.set("registration", "r");
    for (let flow = 1; flow <= 5; flow++) await store.set(`flow|${flow}`, String(flow), 600_000);
    const read = (keys: readonly string[]) => Promise.all(keys.map((key) => store.get(key)));
    assert.deepEqual(
      await read(["grant", "registration", "flow|1", "flow|3", "flow|4", "flow|5"]),
      ["g", "r", undefined, undefined, "4", "5"],
    );
    // Set again without an expiry, a value is a lasting one: the oldest of those is dropped.
    await store.set("flow|5", "kept");
    assert.deepEqual(await read(["grant", "registration", "flow|4", "flow|5"]), [
      undefined,
      "r",
      "4",
      "kept",
    ]);
  });

  test("createMemoryTokenStore() keeps at most maxKeys claims, apart from the values, and never forgets one that holds: a new claim rejects while all hold", async () => {
    const clock = contractClock();
    const store = createMemoryTokenStore({ clock, maxKeys: 2 });
    await store.set("v", "kept");
    const outcomes = [await store.claim("a", 60_000), await store.claim("b", 60_000)];
    await assert.rejects(store.claim("c", 60_000), {
      name: "Error",
      message:
        'createMemoryTokenStore().claim(): a new claim was refused: all "2" claims ("maxKeys") still hold, expected one to expire first (a claim that holds is never dropped, or its key could be claimed twice)',
    });
    outcomes.push(await store.claim("a", 60_000), await store.claim("b", 60_000));
    // Once they expire, new claims take their room.
    clock.advance(60_000);
    outcomes.push(
      await store.claim("c", 60_000),
      await store.claim("a", 60_000),
      await store.claim("c", 60_000),
    );
    assert.deepEqual([outcomes, await store.get("v")], [
      [true, true, false, false, true, true, false],
      "kept",
    ]);
  });

  test("createMemoryTokenStore() refuses a maxKeys of 0 with a RangeError naming it", () => {
    assert.throws(() => createMemoryTokenStore({ maxKeys: 0 }), {
      name: "RangeError",
      message: 'createMemoryTokenStore(): "maxKeys" must be a positive integer, received "0"',
    });
    assert.throws(() => createMemoryTokenStore({ maxkeys: 5 } as never), {
      name: "TypeError",
      message:
        'createMemoryTokenStore(): "maxkeys" is not an option (did you mean "maxKeys"?); expected "clock", "maxKeys"',
    });
  });
});
