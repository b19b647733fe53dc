/**
 * base64, base64url and hex for byte arrays, on every runtime.
 *
 * It replaces JSR's `@std/encoding`, which cannot be installed here. The runtime's own
 * `toBase64` / `fromBase64` / `toHex` are used where they exist (Deno, Bun, workerd), else (Node
 * 20 and 22) `btoa` / `atob` and a table; both are exported so tests hold them to the same answers.
 *
 * Decoders never throw: a malformed or non-canonical input gives `undefined`.
 *
 * @module
 */

/** One implementation of the codecs, native or portable. */
export interface ByteCodecs {
  /** Standard alphabet with `=` padding. */
  readonly toBase64: (bytes: Uint8Array) => string;
  /** Standard alphabet, padding required; `undefined` when malformed. */
  readonly fromBase64: (text: string) => Uint8Array | undefined;
  /** URL-safe alphabet (`-`, `_`), no padding. */
  readonly toBase64Url: (bytes: Uint8Array) => string;
  /** URL-safe alphabet, no padding; `undefined` when malformed. */
  readonly fromBase64Url: (text: string) => Uint8Array | undefined;
  /** Lower-case hexadecimal. */
  readonly toHex: (bytes: Uint8Array) => string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function portableToBase64(bytes: Uint8Array): string {
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

function portableFromBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return portableToBase64(bytes) === text ? bytes : undefined;
}

/** The portable codecs, built on `btoa` and `atob`. */
export const portableCodecs: ByteCodecs = Object.freeze({
  toBase64: portableToBase64,
  fromBase64: portableFromBase64,
  toBase64Url: (bytes: Uint8Array): string =>
    portableToBase64(bytes).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"),
  fromBase64Url: (text: string): Uint8Array | undefined => {
    if (!BASE64URL.test(text)) return undefined;
    const padding = "==".slice(0, (4 - (text.length % 4)) % 4);
    return portableFromBase64(text.replace(/-/g, "+").replace(/_/g, "/") + padding);
  },
  toHex: (bytes: Uint8Array): string => {
    let out = "";
    for (const byte of bytes) out += HEX[byte];
    return out;
  },
});

interface NativeUint8Array extends Uint8Array {
  toBase64(options?: { alphabet?: "base64" | "base64url"; omitPadding?: boolean }): string;
  toHex(): string;
}

interface NativeUint8ArrayConstructor {
  fromBase64(text: string, options?: { alphabet?: "base64" | "base64url" }): Uint8Array;
}

function nativeFrom(text: string, alphabet: "base64" | "base64url"): Uint8Array | undefined {
  if (!(alphabet === "base64" ? BASE64 : BASE64URL).test(text)) return undefined;
  try {
    const bytes = (Uint8Array as unknown as NativeUint8ArrayConstructor).fromBase64(text, { alphabet });
    const again = (bytes as NativeUint8Array).toBase64({ alphabet, omitPadding: alphabet === "base64url" });
    return again === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The runtime's own codecs, or `undefined` where it has none (Node 20 and 22). */
export const nativeCodecs: ByteCodecs | undefined =
  typeof (Uint8Array.prototype as Partial<NativeUint8Array>).toBase64 === "function"
    ? Object.freeze({
      toBase64: (bytes: Uint8Array): string => (bytes as NativeUint8Array).toBase64(),
      fromBase64: (text: string): Uint8Array | undefined => nativeFrom(text, "base64"),
      toBase64Url: (bytes: Uint8Array): string =>
        (bytes as NativeUint8Array).toBase64({ alphabet: "base64url", omitPadding: true }),
      fromBase64Url: (text: string): Uint8Array | undefined => nativeFrom(text, "base64url"),
      toHex: (bytes: Uint8Array): string => (bytes as NativeUint8Array).toHex(),
    })
    : undefined;

/** The codecs in use: native where the runtime has them, portable otherwise. */
export const codecs: ByteCodecs = nativeCodecs ?? portableCodecs;
