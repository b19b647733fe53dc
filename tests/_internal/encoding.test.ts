import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ByteCodecs, codecs, nativeCodecs, portableCodecs } from "../../src/_internal/encoding.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...values: number[]) => new Uint8Array(values);

function behavesAsSpecified(name: string, impl: ByteCodecs): void {
  describe(`${name} codecs`, () => {
    test("encode RFC 4648 test vectors in base64, base64url and hex", () => {
      const vectors: Array<[string, string, string, string]> = [
        ["", "", "", ""],
        ["f", "Zg==", "Zg", "66"],
        ["fo", "Zm8=", "Zm8", "666f"],
        ["foo", "Zm9v", "Zm9v", "666f6f"],
        ["foob", "Zm9vYg==", "Zm9vYg", "666f6f62"],
        ["fooba", "Zm9vYmE=", "Zm9vYmE", "666f6f6261"],
        ["foobar", "Zm9vYmFy", "Zm9vYmFy", "666f6f626172"],
      ];
      for (const [text, b64, b64url, hex] of vectors) {
        assert.deepEqual([impl.toBase64(utf8(text)), impl.toBase64Url(utf8(text)), impl.toHex(utf8(text))], [
          b64,
          b64url,
          hex,
        ]);
        assert.deepEqual(impl.fromBase64(b64), utf8(text));
        assert.deepEqual(impl.fromBase64Url(b64url), utf8(text));
      }
    });

    test("use - and _ in base64url where base64 has + and /", () => {
      assert.deepEqual([impl.toBase64(bytes(0xfb, 0xff)), impl.toBase64Url(bytes(0xfb, 0xff))], [
        "+/8=",
        "-_8",
      ]);
      assert.deepEqual(impl.fromBase64Url("-_8"), bytes(0xfb, 0xff));
    });

    test("round-trip every byte value and a 100 000-byte array", () => {
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      assert.deepEqual(impl.fromBase64Url(impl.toBase64Url(all)), all);
      const large = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff);
      assert.deepEqual(impl.fromBase64(impl.toBase64(large)), large);
    });

    test("reject malformed and non-canonical input with undefined", () => {
      const bad64 = ["Zg", "Zg=", "Zm9v!", "Zm9v\n", "Zh==", "-_8=", "Z"];
      assert.deepEqual(bad64.map((s) => impl.fromBase64(s)), bad64.map(() => undefined));
      const bad64url = ["Zg==", "+/8", "Zh", "Z", "Zm9v Yg"];
      assert.deepEqual(bad64url.map((s) => impl.fromBase64Url(s)), bad64url.map(() => undefined));
    });
  });
}

behavesAsSpecified("portable", portableCodecs);
if (nativeCodecs !== undefined) behavesAsSpecified("native", nativeCodecs);

describe("codecs", () => {
  test("is the native implementation exactly when the runtime has Uint8Array.prototype.toBase64", () => {
    const hasNative = typeof (Uint8Array.prototype as { toBase64?: unknown }).toBase64 === "function";
    assert.equal(codecs, hasNative ? nativeCodecs : portableCodecs);
  });
});
