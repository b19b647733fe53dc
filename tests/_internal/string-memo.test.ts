import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { memoByString } from "../../src/_internal/string-memo.ts";

describe("memoByString()", () => {
  test("computes each string's answer once while it is remembered", () => {
    const computed: string[] = [];
    const lengthOf = memoByString((text) => {
      computed.push(text);
      return text.length;
    }, 2);
    assert.deepEqual([lengthOf("ab"), lengthOf("abc"), lengthOf("ab"), lengthOf("abc")], [2, 3, 2, 3]);
    assert.deepEqual(computed, ["ab", "abc"]);
  });

  test("remembers an answer that is undefined or false", () => {
    let calls = 0;
    const nothing = memoByString(() => {
      calls++;
      return undefined;
    }, 4);
    assert.deepEqual([nothing("a"), nothing("a")], [undefined, undefined]);
    assert.equal(calls, 1);
  });

  test("forgets every string once a new one would pass max, then learns again", () => {
    const computed: string[] = [];
    const upper = memoByString((text) => {
      computed.push(text);
      return text.toUpperCase();
    }, 2);
    assert.deepEqual([upper("a"), upper("b"), upper("c"), upper("a"), upper("c")], ["A", "B", "C", "A", "C"]);
    assert.deepEqual(computed, ["a", "b", "c", "a"]);
  });

  test("does not remember what the function throws", () => {
    let calls = 0;
    const originOf = memoByString((url) => {
      calls++;
      return new URL(url).origin;
    }, 4);
    assert.throws(() => originOf("not a url"), TypeError);
    assert.throws(() => originOf("not a url"), TypeError);
    assert.equal(calls, 2);
    assert.equal(originOf("http://127.0.0.1:8787/mcp/github"), "http://127.0.0.1:8787");
  });
});
