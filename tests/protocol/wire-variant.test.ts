import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import { decode, refuseArrays, wireObject, wireVariant } from "../../src/protocol/decode.ts";

const options = [
  wireObject({ kind: v.literal("a"), n: v.number() }),
  wireObject({ kind: v.exactOptional(v.literal("b")), s: v.string() }),
  wireObject({ kind: v.literal("c") }),
] as const;
const fast = wireVariant("kind", options);
const plain = refuseArrays(v.variant("kind", options));

const INPUTS: readonly unknown[] = [
  { kind: "a", n: 1, extra: true },
  { kind: "a", n: "1" },
  { kind: "b", s: "x" },
  { s: "x" },
  { kind: "c" },
  { kind: "d" },
  { kind: 1 },
  {},
  [],
  [{ kind: "a", n: 1 }],
  null,
  "a",
  Object.create({ kind: "a", n: 1 }),
];

describe("wireVariant()", () => {
  test("decodes every input exactly as v.variant does: same value, same failure", () => {
    for (const input of INPUTS) {
      assert.deepEqual(decode(fast, input), decode(plain, input), JSON.stringify(input));
    }
    assert.deepEqual(decode(fast, { kind: "a", n: 1, extra: true }), {
      ok: true,
      value: { kind: "a", n: 1 },
    });
    assert.deepEqual(decode(fast, { kind: "d" }), {
      ok: false,
      path: "$.kind",
      expected: '("a" | "b" | "c")',
      received: '"d"',
      message: '$.kind: expected ("a" | "b" | "c"), received "d"',
    });
  });

  test("runs only the option its discriminator names", () => {
    // A literal's message function runs when the literal fails: v.variant fails every option it
    // passes over; wireVariant goes straight to the one named.
    const failed: string[] = [];
    const literal = (value: string) => v.literal(value, () => (failed.push(value), `not ${value}`));
    const spied = [wireObject({ kind: literal("a") }), wireObject({ kind: literal("b") })] as const;
    assert.equal(decode(refuseArrays(v.variant("kind", spied)), { kind: "b" }).ok, true);
    assert.deepEqual(failed.splice(0), ["a"]);
    assert.equal(decode(wireVariant("kind", spied), { kind: "b" }).ok, true);
    assert.deepEqual(failed, []);
  });

  test("is v.variant itself when a discriminator is not a literal, or two options share one", () => {
    const picklist = wireVariant("kind", [
      wireObject({ kind: v.picklist(["a", "b"]) }),
      wireObject({ kind: v.literal("c") }),
    ]);
    assert.deepEqual(decode(picklist, { kind: "b" }), { ok: true, value: { kind: "b" } });
    const shared = wireVariant("kind", [
      wireObject({ kind: v.literal("a"), n: v.number() }),
      wireObject({ kind: v.literal("a"), s: v.string() }),
    ]);
    assert.deepEqual(decode(shared, { kind: "a", s: "x" }), { ok: true, value: { kind: "a", s: "x" } });
  });
});
