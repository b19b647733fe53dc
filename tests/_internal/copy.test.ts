import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyOwn } from "../../src/_internal/copy.ts";

describe("copyOwn()", () => {
  test("copies own enumerable string keys, in order, into a plain object", () => {
    const source = Object.assign(Object.create(null), { b: 1, a: { deep: true } }) as Record<string, unknown>;
    Object.defineProperty(source, "hidden", { value: 1, enumerable: false });
    source[Symbol.for("s") as unknown as string] = 2;
    const copy = copyOwn(source);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ["b", "a"]);
    assert.equal(copy.a, source.a); // shallow
    assert.equal(Object.getOwnPropertySymbols(copy).length, 0);
  });

  test("keeps a key named __proto__ as an own property, as spread does", () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    const copy = copyOwn(source);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ["__proto__", "x"]);
    assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":true},"x":1}');
    assert.deepEqual(copy, { ...source });
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  test("a copy can be written to without touching the source", () => {
    const source = { a: 1 };
    const copy = copyOwn(source);
    copy.b = 2;
    assert.deepEqual(source, { a: 1 });
    assert.deepEqual(copy, { a: 1, b: 2 });
  });
});
