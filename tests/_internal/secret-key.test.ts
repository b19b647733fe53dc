// secretKeyProblem() (src/_internal/secret-key.ts) on every runtime: the exact problem of a short
// key, a patterned one and one of few distinct bytes; random keys from crypto pass; and the two
// rules as properties (a repeated pattern is always refused, a key with neither flaw passes).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { MAKE_A_KEY, secretKeyProblem } from "../../src/_internal/secret-key.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";

const PATTERN = `repeats a pattern: expected random bytes, ${MAKE_A_KEY}`;
const FEW = `has fewer than "8" distinct bytes: expected random bytes, ${MAKE_A_KEY}`;

/** Whether `bytes` is a pattern of at most half its length, repeated (the rule, restated). */
function periodic(bytes: Uint8Array): boolean {
  for (let period = 1; period <= bytes.length / 2; period++) {
    if (bytes.every((byte, i) => i < period || byte === bytes[i - period])) return true;
  }
  return false;
}

describe("secretKeyProblem()", () => {
  test("secretKeyProblem() names a key shorter than 32 bytes, counting UTF-8 bytes", () => {
    assert.deepEqual(
      [
        secretKeyProblem(""),
        secretKeyProblem("a-31-byte-key-that-is-too-short"),
        secretKeyProblem(crypto.getRandomValues(new Uint8Array(16))),
        secretKeyProblem("é".repeat(15) + "x"),
      ],
      [
        `must be at least 32 bytes of random data, received 0: ${MAKE_A_KEY}`,
        `must be at least 32 bytes of random data, received 31: ${MAKE_A_KEY}`,
        `must be at least 32 bytes of random data, received 16: ${MAKE_A_KEY}`,
        `must be at least 32 bytes of random data, received 31: ${MAKE_A_KEY}`,
      ],
    );
  });

  test("secretKeyProblem() refuses patterned keys: the old docs' example, 32 zero bytes, a repeated word", () => {
    assert.equal(MAKE_A_KEY, "make one with `openssl rand -base64 32`");
    assert.deepEqual(
      [
        secretKeyProblem("0123456789abcdef0123456789abcdef"),
        secretKeyProblem(new Uint8Array(32)),
        secretKeyProblem("x".repeat(32)),
        secretKeyProblem("password".repeat(4)),
        secretKeyProblem(Uint8Array.from({ length: 64 }, (_, i) => i % 32)),
      ],
      [PATTERN, PATTERN, PATTERN, PATTERN, PATTERN],
    );
  });

  test("secretKeyProblem() refuses keys of fewer than 8 distinct bytes that repeat no pattern", () => {
    assert.deepEqual(
      [
        secretKeyProblem("a".repeat(31) + "b"),
        secretKeyProblem("abcdefg".repeat(5)),
        secretKeyProblem(Uint8Array.from({ length: 40 }, (_, i) => i < 39 ? i % 3 : 9)),
      ],
      [FEW, PATTERN, FEW],
    );
    assert.equal(secretKeyProblem("abcdefgh".repeat(4) + "i"), undefined, "9 distinct bytes, no period");
  });

  test("secretKeyProblem() accepts 1000 keys of 32 random bytes from crypto, and their base64", () => {
    const refused: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const key = crypto.getRandomValues(new Uint8Array(32));
      const text = btoa(String.fromCharCode(...key));
      for (const candidate of [key, text]) {
        const problem = secretKeyProblem(candidate);
        if (problem !== undefined) refused.push(`${text}: ${problem}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  test(
    propertyName("secretKeyProblem() refuses every pattern of at most half the key's length, repeated"),
    () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 1, maxLength: 24 }),
          fc.integer({ min: 32, max: 96 }),
          (pattern, length) => {
            fc.pre(pattern.length <= length / 2);
            const key = Uint8Array.from({ length }, (_, i) => pattern[i % pattern.length] as number);
            assert.equal(secretKeyProblem(key), PATTERN);
          },
        ),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "secretKeyProblem() accepts every key of 32 to 64 bytes with 8 distinct bytes and no period",
    ),
    () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 32, maxLength: 64 }).filter((bytes) =>
            new Set(bytes).size >= 8 && !periodic(bytes)
          ),
          (key) => assert.equal(secretKeyProblem(key), undefined),
        ),
        PROPERTY_SETTINGS,
      );
    },
  );
});
