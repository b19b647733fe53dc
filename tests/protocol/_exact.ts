// The exact failure a decoder returns, built independently of src/protocol/decode.ts so the
// tests are an oracle for its message format.

/** The whole failure a decoder returns for `path`, `expected` and `received`. */
export function failureAt(path: string, expected: string, received: string): {
  ok: false;
  path: string;
  expected: string;
  received: string;
  message: string;
} {
  return {
    ok: false,
    path,
    expected,
    received,
    message: `${path}: expected ${expected}, received ${received}`,
  };
}
