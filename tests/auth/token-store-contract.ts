// The behaviour every TokenStore must have, registered as tests for any store factory: absent
// keys, set and get, overwrite, delete, expiry, claims (once while held, per key, apart from
// values), and the refusal of a ttlMs that is not a finite number. Expiry runs on a fake clock when the store takes one; a store that expires by real
// time (Redis) gets short real ttls and a bounded poll, never a fixed sleep.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { TokenStore } from "../../src/auth/token-store.ts";
import { eventually } from "../_support/eventually.ts";

/** A clock the test moves by hand. */
export interface ContractClock {
  now(): number;
  advance(ms: number): void;
}

/** What a factory gives the contract: a fresh store, and its clock when it takes one. */
export interface ContractStore {
  readonly store: TokenStore;
  /** The store's clock; without it, expiry is checked by real time. */
  readonly clock?: ContractClock;
}

/**
 * A clock the test moves by hand.
 *
 * @param start Its first reading.
 */
export function contractClock(start = 1_000_000): ContractClock {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/**
 * Registers the token store contract for the stores made by `makeStore` (called once per test,
 * so each test gets a fresh store or a fresh key space).
 */
export function describeTokenStoreContract(
  name: string,
  makeStore: () => ContractStore | Promise<ContractStore>,
): void {
  describe(`${name}: token store contract`, () => {
    test(`${name}: get() of a key never set is undefined`, async () => {
      const { store } = await makeStore();
      assert.deepEqual([await store.get("absent"), await store.get("")], [undefined, undefined]);
    });

    test(`${name}: set() then get() gives the value back, byte for byte`, async () => {
      const { store } = await makeStore();
      const json = JSON.stringify({ access_token: "at-1", refresh_token: "rt-1", ünï: "😀\u0000\n" });
      await store.set("token:github:alice", json);
      await store.set("registration:github", "");
      assert.deepEqual(
        [
          await store.get("token:github:alice"),
          await store.get("registration:github"),
          await store.get("other"),
        ],
        [json, "", undefined],
      );
    });

    test(`${name}: set() replaces the value of a key, leaving other keys alone`, async () => {
      const { store } = await makeStore();
      await store.set("a", "1");
      await store.set("b", "2");
      await store.set("a", "3");
      assert.deepEqual([await store.get("a"), await store.get("b")], ["3", "2"]);
    });

    test(`${name}: delete() removes a key, and does nothing for an absent one`, async () => {
      const { store } = await makeStore();
      await store.set("a", "1");
      await store.set("b", "2");
      await store.delete("a");
      await store.delete("never");
      assert.deepEqual([await store.get("a"), await store.get("b"), await store.get("never")], [
        undefined,
        "2",
        undefined,
      ]);
    });

    test(`${name}: set() with ttlMs expires the value, without ttlMs keeps it; set() again renews it`, async () => {
      const { store, clock } = await makeStore();
      if (clock !== undefined) {
        await store.set("short", "s", 1000);
        await store.set("kept", "k");
        await store.set("renewed", "r1", 1000);
        clock.advance(999);
        const before = [await store.get("short"), await store.get("kept"), await store.get("renewed")];
        await store.set("renewed", "r2", 1000);
        clock.advance(1);
        assert.deepEqual(
          [before, await store.get("short"), await store.get("kept"), await store.get("renewed")],
          [["s", "k", "r1"], undefined, "k", "r2"],
        );
      } else {
        await store.set("short", "s", 50);
        await store.set("kept", "k");
        await store.set("long", "l", 60_000);
        assert.equal(
          await eventually("the 50 ms value to expire", async () => {
            return (await store.get("short")) === undefined ? true : undefined;
          }),
          true,
        );
        assert.deepEqual([await store.get("kept"), await store.get("long")], ["k", "l"]);
      }
    });

    test(`${name}: claim() is true the first time and false while held, per key`, async () => {
      const { store } = await makeStore();
      assert.deepEqual(
        [
          await store.claim("state:n1", 60_000),
          await store.claim("state:n1", 60_000),
          await store.claim("state:n2", 60_000),
          await store.claim("state:n1", 60_000),
          await store.claim("state:n2", 60_000),
        ],
        [true, false, true, false, false],
      );
    });

    test(`${name}: claim() can be claimed again once its ttlMs has passed`, async () => {
      const { store, clock } = await makeStore();
      if (clock !== undefined) {
        const first = [await store.claim("k", 1000), await store.claim("other", 60_000)];
        clock.advance(999);
        const held = await store.claim("k", 1000);
        clock.advance(1);
        assert.deepEqual(
          [
            first,
            held,
            await store.claim("k", 1000),
            await store.claim("k", 1000),
            await store.claim("other", 1),
          ],
          [[true, true], false, true, false, false],
        );
      } else {
        // 2 s: the second claim must come while the first holds, however busy the machine.
        assert.deepEqual([await store.claim("k", 2000), await store.claim("k", 2000)], [true, false]);
        assert.equal(
          await eventually(
            "the 2 s claim to expire",
            async () => (await store.claim("k", 2000)) || undefined,
          ),
          true,
        );
      }
    });

    test(`${name}: claims live apart from values: claim() never touches get(), set() or delete() of the key`, async () => {
      const { store } = await makeStore();
      const claimed = await store.claim("k", 60_000);
      const afterClaim = await store.get("k");
      await store.set("k", "v");
      const again = await store.claim("k", 60_000);
      await store.delete("k");
      const afterDelete = await store.claim("k", 60_000);
      await store.set("v-first", "x");
      assert.deepEqual(
        [
          claimed,
          afterClaim,
          again,
          afterDelete,
          await store.claim("v-first", 60_000),
          await store.get("v-first"),
        ],
        [true, undefined, false, false, true, "x"],
      );
    });

    test(`${name}: a ttlMs that is not a finite number is refused with a RangeError, and nothing is kept`, async () => {
      const { store } = await makeStore();
      await assert.rejects(store.set("k", "v", Number.NaN), {
        name: "RangeError",
        message: `${name}.set(): "ttlMs" must be a finite number of milliseconds, received "NaN"`,
      });
      await assert.rejects(store.claim("k", Infinity), {
        name: "RangeError",
        message: `${name}.claim(): "ttlMs" must be a finite number of milliseconds, received "Infinity"`,
      });
      assert.deepEqual([await store.get("k"), await store.claim("k", 60_000)], [undefined, true]);
    });
  });
}
