import { describe, test } from "node:test";
import { decodeListRootsParams } from "../../src/protocol/roots.ts";
import { np, same } from "../_support/exact.ts";

describe("decodeListRootsParams()", () => {
  test("decodes absent params as {} and keeps _meta", () => {
    same(decodeListRootsParams(undefined), { ok: true, value: {} });
    same(decodeListRootsParams({ _meta: { progressToken: 1 }, x: 1 }), {
      ok: true,
      value: { _meta: np({ progressToken: 1 }) },
    });
  });

  test("refuses an array as params at $", () => {
    same(decodeListRootsParams([]), {
      ok: false,
      path: "$",
      expected: "Object",
      received: "Array",
      message: "$: expected Object, received Array",
    });
  });
});
