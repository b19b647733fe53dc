import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sanitizeData } from "../../src/notify/sanitize-data.ts";
import { DATA_LIMITS } from "../../src/notify/data-limits.ts";
import { np, same } from "../_support/exact.ts";

function nest(levels: number, bottom: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = bottom;
  for (let i = 0; i < levels; i++) value = wrap(value);
  return value;
}

describe("sanitizeData()", () => {
  test("sanitizeData() keeps the bounds of the issue: 4096, 16, 1000, 10 000 values, 256 Ki text", () => {
    assert.deepEqual({ ...DATA_LIMITS }, {
      maxStringLength: 4096,
      maxDepth: 16,
      maxEntries: 1000,
      maxValues: 10_000,
      maxTextUnits: 262_144,
    });
  });

  test("sanitizeData() cuts 100-deep arrays to 16 levels, the 17th replaced by the marker", () => {
    same(
      sanitizeData(nest(100, "bottom", (inner) => [inner])),
      nest(16, "[depth limit]", (inner) => [inner]),
    );
  });

  test("sanitizeData() cuts 100-deep objects to 16 levels, each a prototype-free object", () => {
    same(
      sanitizeData(nest(100, 1, (inner) => ({ k: inner }))),
      nest(16, "[depth limit]", (inner) => np({ k: inner })),
    );
  });

  test("sanitizeData() keeps 16 levels exactly, scalars at the bottom included", () => {
    same(sanitizeData(nest(16, 7, (inner) => [inner])), nest(16, 7, (inner) => [inner]));
  });

  test("sanitizeData() cleans keys and values, keeps numbers, booleans and null, and drops prototypes", () => {
    const input = JSON.parse(
      '{"msg\\u200b": "done\\u2028INFO fake", "n": -1.5, "ok": true, "none": null, ' +
        '"__proto__": {"admin": true}, "list": ["a\\u202eb", 2]}',
    );
    same(
      sanitizeData(input),
      np({
        msg: "doneINFO fake",
        n: -1.5,
        ok: true,
        none: null,
        ["__proto__"]: np({ admin: true }),
        list: ["ab", 2],
      }),
    );
  });

  test("sanitizeData() keeps the later value when two keys clean to the same text", () => {
    same(sanitizeData({ "a\u200Bb": 1, ab: 2 }), np({ ab: 2 }));
  });

  test("sanitizeData() renders non-JSON values as sanitizeText() does", () => {
    same(sanitizeData([10n, undefined, () => 1, NaN]), ["10", "", "", NaN]);
  });

  test("sanitizeData() of a scalar or string is that value, cleaned", () => {
    assert.deepEqual([sanitizeData(3), sanitizeData("x\ny"), sanitizeData(null), sanitizeData(false)], [
      3,
      "xy",
      null,
      false,
    ]);
  });

  test("sanitizeData() clamps each string and each key to 4096 code units", () => {
    const long = "é".repeat(5000);
    same(sanitizeData({ [long]: long }), np({ ["é".repeat(4096)]: "é".repeat(4096) }));
  });

  test("sanitizeData() keeps the first 1000 elements of a 1 000 000-element array, then the marker", () => {
    const out = sanitizeData(Array.from({ length: 1_000_000 }, (_, i) => i)) as unknown[];
    assert.equal(out.length, 1001);
    assert.deepEqual([out[0], out[999], out[1000]], [0, 999, "[size limit]"]);
  });

  test("sanitizeData() keeps the first 1000 keys of a 2000-key object, then the marker key", () => {
    const input = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    const out = sanitizeData(input) as Record<string, unknown>;
    const keys = Object.keys(out);
    assert.deepEqual([keys.length, keys[0], keys[999], keys[1000]], [1001, "k0", "k999", "[size limit]"]);
    assert.equal(out["[size limit]"], "[size limit]");
  });

  test("sanitizeData() stops at 10 000 values: every open container ends with the marker", () => {
    const input = Array.from({ length: 20 }, () => Array.from({ length: 1000 }, () => 0));
    const out = sanitizeData(input) as unknown[];
    // 10 000 values: the outer array, 9 inner arrays of 1 + 1000, then 1 + 989.
    assert.equal(out.length, 11);
    assert.deepEqual(out.slice(0, 9).map((inner) => (inner as unknown[]).length), Array(9).fill(1000));
    const tenth = out[9] as unknown[];
    assert.deepEqual([tenth.length, tenth[988], tenth[989], out[10]], [
      990,
      0,
      "[size limit]",
      "[size limit]",
    ]);
  });

  test("sanitizeData() stops after 262 144 code units of text: the crossing string is cut short", () => {
    const input = Array.from({ length: 100 }, () => "x".repeat(4000));
    const out = sanitizeData(input) as string[];
    // Each string examines its 4000 code units: 65 fit, the 66th keeps the 2144 left.
    assert.deepEqual(
      [out.length, out[64]?.length, out[65]?.length, out[66]],
      [67, 4000, 262_144 - 65 * 4000, "[size limit]"],
    );
  });

  test("sanitizeData() freezes what it returns", () => {
    const out = sanitizeData({ a: [{ b: 1 }] }) as { a: [{ b: number }] };
    assert.deepEqual([Object.isFrozen(out), Object.isFrozen(out.a), Object.isFrozen(out.a[0])], [
      true,
      true,
      true,
    ]);
  });

  test("sanitizeData() replaces values that throw while being read, and never mutates its input", () => {
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const input = {
      get bad(): never {
        throw new Error("boom");
      },
      proxy: revocable.proxy,
      fine: "a\u200Bb",
    };
    same(sanitizeData(input), np({ bad: "[unreadable]", proxy: "[unreadable]", fine: "ab" }));
    assert.equal(input.fine, "a\u200Bb");
  });
});
