import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeHeaderValue, encodeHeaderValue } from "../../src/protocol/header-value.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";

describe("encodeHeaderValue()", () => {
  // The "Encoding examples" table of the 2026-07-28 Streamable HTTP page, and the value
  // encoding cases of SEP-2243 "Conformance Test Cases", which http-custom-headers replays.
  const vectors: Array<[string, string]> = [
    ["us-west1", "us-west1"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
    [" us-west1", "=?base64?IHVzLXdlc3Qx?="],
    ["us-west1 ", "=?base64?dXMtd2VzdDEg?="],
    [" us-west1 ", "=?base64?IHVzLXdlc3QxIA==?="],
    ["us west 1", "us west 1"],
    ["日本語", "=?base64?5pel5pys6Kqe?="],
    ["line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="],
    ["\tindented", "=?base64?CWluZGVudGVk?="],
    ["", ""],
    ["true", "true"],
    ["42", "42"],
    ["-7", "-7"],
    ["test-method", "test-method"],
  ];
  for (const [value, header] of vectors) {
    test(`encodes ${JSON.stringify(value)} as ${JSON.stringify(header)}`, () => {
      assert.equal(encodeHeaderValue(value), header);
    });
  }

  test("sends the Mcp-Name vectors of http-standard-headers", () => {
    assert.deepEqual(
      [
        "test_headers",
        "my-hyphenated-tool",
        "file:///path/to/file%20name.txt",
        "https://example.com/resource?id=123",
        "tööl_unicode",
      ].map(encodeHeaderValue),
      [
        "test_headers",
        "my-hyphenated-tool",
        "file:///path/to/file%20name.txt",
        "https://example.com/resource?id=123",
        "=?base64?dMO2w7ZsX3VuaWNvZGU=?=",
      ],
    );
  });

  test("encodes a tab inside a value, DEL and every other control character", () => {
    assert.deepEqual(["a\tb", "\x7f", "a\x00b"].map(encodeHeaderValue), [
      "=?base64?YQli?=",
      "=?base64?fw==?=",
      "=?base64?YQBi?=",
    ]);
  });

  test("encodes sentinel look-alikes in any letter case and with overlapping markers", () => {
    assert.deepEqual(["=?BASE64?x?=", "=?base64?=", "=?base64?YWJj?="].map(encodeHeaderValue), [
      "=?base64?PT9CQVNFNjQ/eD89?=",
      "=?base64?PT9iYXNlNjQ/PQ==?=",
      "=?base64?PT9iYXNlNjQ/WVdKaj89?=",
    ]);
  });

  test("sends plain a value that has only one of the two markers", () => {
    assert.deepEqual(["=?base64?SGVsbG8=", "SGVsbG8=?=", "=?base64", "?="].map(encodeHeaderValue), [
      "=?base64?SGVsbG8=",
      "SGVsbG8=?=",
      "=?base64",
      "?=",
    ]);
  });

  test("replaces a lone surrogate with U+FFFD, as TextEncoder does", () => {
    assert.equal(encodeHeaderValue("a\ud800"), "=?base64?Ye+/vQ==?=");
    assert.equal(decodeHeaderValue(encodeHeaderValue("a\ud800")), "a\ufffd");
  });
});

describe("decodeHeaderValue()", () => {
  // SEP-2243 "Server Validation Edge Cases: Base64 Decoding", read with the 2026-07-28 rule
  // that the markers are case-sensitive.
  test("decodes a valid sentinel", () => {
    assert.equal(decodeHeaderValue("=?base64?SGVsbG8=?="), "Hello");
  });

  test("refuses missing padding, stray characters and non-canonical trailing bits", () => {
    assert.deepEqual(
      ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64? SGVsbG8=?=", "=?base64?SGVsbG9=?="].map(
        decodeHeaderValue,
      ),
      [undefined, undefined, undefined, undefined],
    );
  });

  test("refuses bytes that are not UTF-8", () => {
    assert.deepEqual(["=?base64?/w==?=", "=?base64?wK8=?=", "=?base64?7aCA?="].map(decodeHeaderValue), [
      undefined,
      undefined,
      undefined,
    ]);
  });

  test("keeps a leading byte order mark", () => {
    assert.equal(decodeHeaderValue("=?base64?77u/Ym9t?="), "\ufeffbom");
  });

  test("reads a value without both markers, or with upper-case ones, as a literal", () => {
    assert.deepEqual(
      ["SGVsbG8=", "=?base64?SGVsbG8=", "=?BASE64?SGVsbG8=?=", "=?base64?=", ""].map(decodeHeaderValue),
      ["SGVsbG8=", "=?base64?SGVsbG8=", "=?BASE64?SGVsbG8=?=", "=?base64?=", ""],
    );
  });

  test("decodes an empty payload and a needlessly encoded plain value", () => {
    assert.deepEqual(["=?base64??=", "=?base64?YWJj?="].map(decodeHeaderValue), ["", "abc"]);
  });

  test("refuses a literal holding a control character other than tab, or non-ASCII", () => {
    assert.deepEqual(["a\nb", "a\rb", "a\x00b", "a\x7fb", "é"].map(decodeHeaderValue), [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    assert.equal(decodeHeaderValue("a\tb"), "a\tb");
  });
});

describe("header value round trip", () => {
  const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
  const tricky = fc.constantFrom(" ", "\t", "=?base64?", "?=", "=", "?", "\ufeff", "é", "😀", "\r\n");
  const wellFormed = fc.string({
    unit: fc.oneof(fc.constantFrom("a", "Z", "0", "-"), tricky, fc.string({ unit: "binary" })),
  });
  const anyString = fc.string({ unit: fc.oneof(anyCodeUnit, tricky) });

  test(propertyName("decode(encode(s)) === s for generated well-formed strings"), () => {
    fc.assert(
      fc.property(wellFormed, (value) => decodeHeaderValue(encodeHeaderValue(value)) === value),
      PROPERTY_SETTINGS,
    );
  });

  test(
    propertyName("decode(encode(s)) is s with lone surrogates replaced, for strings of any code units"),
    () => {
      const toWellFormed = (value: string) =>
        new TextDecoder("utf-8", { ignoreBOM: true }).decode(new TextEncoder().encode(value));
      fc.assert(
        fc.property(
          anyString,
          (value) => decodeHeaderValue(encodeHeaderValue(value)) === toWellFormed(value),
        ),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(propertyName("encode(s) is always a header value fetch keeps byte for byte"), () => {
    fc.assert(
      fc.property(anyString, (value) => {
        const encoded = encodeHeaderValue(value);
        const kept = new Headers({ "Mcp-Param-X": encoded }).get("Mcp-Param-X");
        return /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(encoded) && kept === encoded;
      }),
      PROPERTY_SETTINGS,
    );
  });

  test(propertyName("encode(s) is s exactly when s is plain visible ASCII and no sentinel"), () => {
    const ascii = fc.string({
      unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), tricky),
    });
    fc.assert(
      fc.property(ascii, (value) => {
        const plain = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(value) &&
          !/^=\?base64\?.*\?=$/is.test(value) && value.toLowerCase() !== "=?base64?=";
        return (encodeHeaderValue(value) === value) === plain;
      }),
      PROPERTY_SETTINGS,
    );
  });

  test(
    propertyName(
      "decodeHeaderValue() of any text is stable, never throws, and what it decodes encodes back to it",
    ),
    () => {
      const sentinel = fc.tuple(
        fc.constantFrom("=?base64?", "=?BASE64?", "=?base64"),
        fc.base64String(),
        fc.constantFrom("?=", "", "=?="),
      )
        .map((parts) => parts.join(""));
      fc.assert(
        fc.property(fc.oneof(anyString, sentinel), (text) => {
          const decoded = decodeHeaderValue(text);
          assert.equal(decodeHeaderValue(text), decoded);
          if (decoded !== undefined) assert.equal(decodeHeaderValue(encodeHeaderValue(decoded)), decoded);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );
});
