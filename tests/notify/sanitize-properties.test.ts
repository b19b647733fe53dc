import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { sanitizePrefixBound, sanitizeText } from "../../src/notify/sanitize-text.ts";
import { sanitizeData } from "../../src/notify/sanitize-data.ts";
import { same } from "../_support/exact.ts";
import { PROPERTY_SETTINGS as settings, propertyName } from "../_support/property-runs.ts";

const REMOVED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const REMOVED_OR_LONE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/gu;
const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

/** Clean text: no character of the removed categories and no lone surrogate. */
function isClean(text: string): boolean {
  return !REMOVED.test(text) && !/\p{Cs}/u.test(text);
}

/** The specification, slowly: strip everything, then keep whole graphemes up to `max`. */
function reference(text: string, max: number): string {
  const clean = text.replace(REMOVED_OR_LONE, "");
  if (clean.length <= max) return clean;
  let end = 0;
  for (const { index, segment } of segmenter.segment(clean)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return clean.slice(0, end);
}

const tricky = fc.constantFrom(
  "\u202E",
  "\u2066",
  "\u2069",
  "\u200B",
  "\u200D",
  "\u2028",
  "\u2029",
  "\r",
  "\n",
  "\t",
  "\u0085",
  "\u00AD",
  "\uFEFF",
  "\uFFF9",
  "\u{E0041}",
  "\u{E007F}",
  "\uD800",
  "\uDBFF",
  "\uDC00",
  "😀",
  "👍🏽",
  "\u{1F3FD}",
  "🇺",
  "🇸",
  "e\u0301",
  "\u0301",
  "\u1100",
  "\u1161",
  "\u11A8",
  "\uAC00",
  "क",
  "्",
  "ष",
  "\u0D4E",
  "\u0E33",
  "a",
  " ",
  "é",
  "你",
  "~",
);
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));
const text = fc.string({ unit: fc.oneof(tricky, tricky, codeUnit, codePoint), maxLength: 200 });
const max = fc.integer({ min: 0, max: 64 });

describe("sanitizeText() properties", () => {
  test(
    propertyName("sanitizeText() output has no Cc, Cf, Zl, Zp or lone surrogate, fits max, and is stable"),
    () => {
      fc.assert(
        fc.property(text, max, (value, limit) => {
          const out = sanitizeText(value, limit);
          return isClean(out) && out.length <= limit && sanitizeText(out, limit) === out;
        }),
        settings,
      );
    },
  );

  test(
    propertyName("sanitizeText() equals the reference: strip all, then the longest whole-grapheme prefix"),
    () => {
      fc.assert(
        fc.property(text, max, (value, limit) => {
          assert.equal(sanitizeText(value, limit), reference(value, limit));
        }),
        settings,
      );
    },
  );

  test(propertyName("sanitizeText() of any value (JSON or not) is clean, fits and is stable"), () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.anything()),
        fc.integer({ min: 0, max: 300 }),
        (value, limit) => {
          const out = sanitizeText(value, limit);
          return isClean(out) && out.length <= limit && sanitizeText(out, limit) === out;
        },
      ),
      settings,
    );
  });

  test(propertyName("sanitizeText() of a long input equals sanitizeText() of its bounded prefix"), () => {
    const invisible = fc.constantFrom("\u200B", "\u202E", "\u{E0041}", "\r\n");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1200 }),
        invisible,
        text,
        fc.integer({ min: 0, max: 8 }),
        (n, pad, rest, limit) => {
          const value = pad.repeat(n) + rest;
          const bound = sanitizePrefixBound(limit);
          const straddles = /^[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(value.slice(bound - 1, bound + 1));
          const out = sanitizeText(value, limit);
          assert.equal(out, sanitizeText(value.slice(0, bound + (straddles ? 1 : 0)), limit));
          assert.ok(isClean(out) && out.length <= limit);
        },
      ),
      settings,
    );
  });
});

describe("sanitizeData() properties", () => {
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      text,
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 5 }),
      fc.dictionary(text, tie("value"), { maxKeys: 5 }),
    ),
  }));

  function strings(data: unknown, found: string[] = []): string[] {
    if (typeof data === "string") found.push(data);
    else if (Array.isArray(data)) { for (const item of data) strings(item, found); }
    else if (typeof data === "object" && data !== null) {
      for (const [key, item] of Object.entries(data)) strings(item, strings(key, found));
    }
    return found;
  }

  test(
    propertyName("sanitizeData() output has only clean strings of at most 4096 code units and is stable"),
    () => {
      fc.assert(
        fc.property(value, (data) => {
          const out = sanitizeData(data);
          assert.ok(strings(out).every((s) => isClean(s) && s.length <= 4096));
          same(sanitizeData(out), out);
        }),
        settings,
      );
    },
  );
});
