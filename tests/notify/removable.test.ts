import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sanitizeText } from "../../src/notify/sanitize-text.ts";

// The removal table is fixed (Unicode 17.0) so results are the same on every runtime; this
// checks it against this runtime's own Unicode data, every code point, so a runtime with a newer
// Unicode (or a mistake in the table) fails here and names the code points.
describe("the removal table", () => {
  test("sanitizeText() removes exactly Cc, Cf, Zl and Zp of this runtime's Unicode, all 1 112 064 code points", () => {
    const parts: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp < 0xd800 || cp > 0xdfff) parts.push(String.fromCodePoint(cp));
    }
    const all = parts.join("");
    const expected = all.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "");
    const actual = sanitizeText(all, Infinity);
    if (actual !== expected) {
      const kept = new Set(Array.from(actual, (c) => c.codePointAt(0)));
      const wrong = parts.filter((c) =>
        kept.has(c.codePointAt(0)) !== /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u.test(c)
      )
        .map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}`);
      assert.deepEqual(wrong.slice(0, 50), []);
    }
    assert.equal(actual.length, expected.length);
  });
});
