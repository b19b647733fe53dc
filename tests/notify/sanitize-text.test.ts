import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sanitizePrefixBound, sanitizeText } from "../../src/notify/sanitize-text.ts";
import { lastExamined } from "../../src/notify/_clamp-text.ts";

const TEN_MB = 10 * 1024 * 1024;

describe("sanitizeText() on Trojan Source strings (CVE-2021-42574)", () => {
  // The paper's three attack patterns: what a reviewer sees differs from what a compiler reads.
  const cases: Array<[string, string, string]> = [
    [
      "commenting-out (RLO, LRI, PDI)",
      "/*\u202E } \u2066if (isAdmin)\u2069 \u2066 begin admins only */",
      "/* } if (isAdmin)  begin admins only */",
    ],
    [
      "stretched string (RLO, LRI, PDI)",
      'if (accessLevel != "user\u202E \u2066// Check if admin\u2069 \u2066") {',
      'if (accessLevel != "user // Check if admin ") {',
    ],
    [
      "early return (RLI, LRI, PDI)",
      '#!/usr/bin/env python3\nbank = { "alice": 100 }\n"""\u2067 """ ; return\u2069\u2066 """',
      '#!/usr/bin/env python3bank = { "alice": 100 }""" """ ; return """',
    ],
    [
      "embeddings and marks (LRE, RLE, PDF, LRM, RLM, ALM, FSI)",
      "\u202Aa\u202Bb\u202Cc\u200Ed\u200Fe\u061Cf\u2068g",
      "abcdefg",
    ],
  ];
  for (const [name, input, expected] of cases) {
    test(`sanitizeText() removes every bidi control of the ${name} pattern`, () => {
      assert.equal(sanitizeText(input, 4096), expected);
    });
  }
});

describe("sanitizeText() on invisible and separator characters", () => {
  const cases: Array<[string, string, string]> = [
    ["zero-width joiners in an emoji family", "👨\u200D👩\u200D👧", "👨👩👧"],
    ["zero width space, non-joiner, word joiner, BOM", "a\u200Bb\u200Cc\u2060d\uFEFFe", "abcde"],
    [
      "line and paragraph separators, NEL, CR LF",
      "one\u2028two\u2029three\u0085four\r\nfive",
      "onetwothreefourfive",
    ],
    ["a forged log line", 'ok\n2026-01-01 ERROR {"admin": true}', 'ok2026-01-01 ERROR {"admin": true}'],
    ["C0 and C1 controls, DEL, escape sequences", "\u0000a\u0007\u001B[31mb\u007F\u0080\u009Fc\t", "a[31mbc"],
    [
      "tag characters (ASCII smuggling)",
      "Hi\u{E0001}\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}",
      "Hi",
    ],
    [
      "a subdivision flag's tags",
      "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}!",
      "\u{1F3F4}!",
    ],
    ["the soft hyphen", "co\u00ADoperate", "cooperate"],
    ["interlinear annotations", "a\uFFF9b\uFFFAc\uFFFBd", "abcd"],
    ["Arabic, Syriac and Mongolian format characters", "\u0600x\u06DDy\u070Fz\u180E!", "xyz!"],
    ["invisible operators and deprecated format characters", "f\u2061(x)\u2062y\u206Az\u206F", "f(x)yz"],
    ["astral format controls", "\u{13430}a\u{1BCA0}b\u{1D173}c\u{110BD}d", "abcd"],
  ];
  for (const [name, input, expected] of cases) {
    test(`sanitizeText() removes ${name}`, () => {
      assert.equal(sanitizeText(input, 4096), expected);
    });
  }

  test("sanitizeText() keeps spaces, marks, variation selectors, emoji modifiers and CJK", () => {
    const text = "a b\u00A0c e\u0301 \u2764\uFE0F 👍🏽 🇫🇷 你好 한국어 नमस्ते";
    assert.equal(sanitizeText(text, 4096), text);
  });

  test("sanitizeText() returns clean text that fits as the very same string", () => {
    const text = "plain text, nothing to remove";
    assert.equal(sanitizeText(text, 100), text);
  });
});

describe("sanitizeText() on lone surrogates", () => {
  const cases: Array<[string, string]> = [
    ["a\uD800b", "ab"],
    ["\uDC00x", "x"],
    ["x\uD83D", "x"],
    ["\uDE00\uD83D", ""],
    ["\uD83D\uD83D\uDE00", "😀"],
    ["\uD83D\u200B\uDE00", ""],
    ["😀\uDE00😀", "😀😀"],
  ];
  for (const [input, expected] of cases) {
    test(`sanitizeText() turns ${JSON.stringify(input)} into ${JSON.stringify(expected)}`, () => {
      assert.equal(sanitizeText(input, 100), expected);
    });
  }
});

describe("sanitizeText() clamps", () => {
  const cases: Array<[string, string, number, string]> = [
    ["ASCII at the limit", "abcdef", 4, "abcd"],
    ["after removing, not before", "\u200B\u200B\u200Babcdef", 4, "abcd"],
    ["never inside a surrogate pair", "ab😀", 3, "ab"],
    ["never inside an emoji with a skin tone", "👍🏽👍🏽", 6, "👍🏽"],
    ["never inside a flag", "abc🇺🇸🇬🇧", 9, "abc🇺🇸"],
    ["never between a letter and its accent", "e\u0301e\u0301", 3, "e\u0301"],
    ["never inside a Hangul syllable of jamo", "\u1100\u1161\u11A8x", 2, ""],
    ["never inside a Devanagari conjunct", "क्षa", 2, ""],
    ["between a mark and ASCII", "e\u0301xy", 3, "e\u0301x"],
    ["to nothing when one grapheme is longer than max", "a" + "\u0301".repeat(50), 10, ""],
  ];
  for (const [name, input, max, expected] of cases) {
    test(`sanitizeText() clamps ${name}: ${JSON.stringify(input)} to ${max} gives ${JSON.stringify(expected)}`, () => {
      assert.equal(sanitizeText(input, max), expected);
    });
  }

  test("sanitizeText() treats max 0, negative, NaN as 0, floors fractions, and Infinity as no clamp", () => {
    assert.deepEqual(
      [0, -1, NaN, 2.9, Infinity].map((max) => sanitizeText("abc\u200Bdef", max)),
      ["", "", "", "ab", "abcdef"],
    );
  });
});

describe("sanitizeText() renders non-string values", () => {
  const cases: Array<[string, unknown, string]> = [
    ["a number", 42.5, "42.5"],
    ["a non-finite number", -Infinity, "null"],
    ["a boolean", true, "true"],
    ["null", null, "null"],
    ["a bigint", 12345678901234567890n, "12345678901234567890"],
    ["undefined", undefined, ""],
    ["a function", () => 1, ""],
    ["a symbol", Symbol("s"), ""],
    ["an array with escapes", [1, "a\nb", null, undefined], '[1,"a\\nb",null,null]'],
    [
      "an object, dropping undefined",
      { a: "x\u202Ey", b: undefined, c: { d: [] } },
      '{"a":"xy","c":{"d":[]}}',
    ],
    ["a prototype-free object with __proto__", JSON.parse('{"__proto__": 1}'), '{"__proto__":1}'],
    ["a Date (no toJSON call)", new Date(0), "{}"],
  ];
  for (const [name, value, expected] of cases) {
    test(`sanitizeText() renders ${name} as ${JSON.stringify(expected)}`, () => {
      assert.equal(sanitizeText(value, 200), expected);
    });
  }

  test("sanitizeText() renders a cyclic object 16 levels deep, then the depth marker", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.s = cyclic;
    assert.equal(sanitizeText(cyclic, 1000), '{"s":'.repeat(16) + '"[depth limit]"' + "}".repeat(16));
  });

  test("sanitizeText() keeps what was rendered before a getter threw", () => {
    const hostile = {
      a: 1,
      get b(): number {
        throw new Error("boom");
      },
    };
    assert.equal(sanitizeText(hostile, 100), '{"a":1');
  });

  test("sanitizeText() renders a huge array only up to the prefix bound", () => {
    const huge = new Array<number>(1_000_000).fill(7);
    assert.equal(sanitizeText(huge, 9), "[7,7,7,7,");
    assert.equal(lastExamined(), 10);
  });
});

describe("sanitizeText() on 10 MB strings", () => {
  test("sanitizeText() bounds the input it examines: 8 × max + 1024 code units", () => {
    assert.deepEqual([0, 1, 4096, Infinity].map(sanitizePrefixBound), [1024, 1032, 33_792, Infinity]);
  });

  test("sanitizeText() keeps 4096 of 10 MB of ASCII and examines 4097 code units", () => {
    const text = "A".repeat(TEN_MB);
    assert.equal(sanitizeText(text, 4096), "A".repeat(4096));
    assert.equal(lastExamined(), 4097);
  });

  test("sanitizeText() returns nothing for 10 MB of zero-width spaces, examining 33 792 code units", () => {
    const text = "\u200B".repeat(TEN_MB) + "visible";
    assert.equal(sanitizeText(text, 4096), "");
    assert.equal(lastExamined(), 33_792);
  });

  test("sanitizeText() keeps the full 4096 when 7 of every 8 code units are invisible", () => {
    const text = "\u202E\u2066\u200B\u200C\u200D\u2060\uFEFFx".repeat(TEN_MB / 8);
    assert.equal(sanitizeText(text, 4096), "x".repeat(4096));
    assert.equal(lastExamined(), 4097 * 8);
  });

  test("sanitizeText() keeps what the bound lets through when 8 of every 9 are invisible", () => {
    const text = "\u202E\u2066\u200B\u200C\u200D\u2060\uFEFF\u00ADx".repeat(Math.ceil(TEN_MB / 9));
    assert.equal(sanitizeText(text, 4096), "x".repeat(Math.floor(33_792 / 9)));
    assert.equal(lastExamined(), 33_792);
  });

  test("sanitizeText() of 10 MB equals sanitizeText() of its first 8 × max + 1024 code units", () => {
    const text = "\u200Bab\u202E😀\u2028".repeat(TEN_MB / 8);
    for (const max of [0, 1, 7, 100, 4096]) {
      const bound = sanitizePrefixBound(max);
      assert.equal(sanitizeText(text, max), sanitizeText(text.slice(0, bound), max), `max ${max}`);
      assert.ok(lastExamined() <= bound + 1, `max ${max}: examined ${lastExamined()}`);
    }
  });

  test("sanitizeText() reads a surrogate pair that straddles the bound whole, and none past it", () => {
    // max 2: the bound is 1040 code units.
    assert.equal(sanitizeText("\u200B".repeat(1039) + "😀" + "z".repeat(TEN_MB), 2), "😀");
    assert.equal(lastExamined(), 1041);
    assert.equal(sanitizeText("\u200B".repeat(1040) + "😀" + "z".repeat(TEN_MB), 2), "");
    assert.equal(lastExamined(), 1040);
  });
});
