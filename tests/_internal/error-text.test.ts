// errorText(): what a failed fetch says in sluice's messages, its cause included, on every runtime.
import { test } from "node:test";
import assert from "node:assert/strict";
import { errorText } from "../../src/_internal/error-text.ts";

test("errorText() gives the message and the cause's, whatever the cause says it with", () => {
  const failed = (cause: unknown) => new TypeError("fetch failed", { cause });
  const reset = Object.assign(new Error(""), { code: "ECONNRESET" });
  const everyAddress = new AggregateError([
    new Error("connect ETIMEDOUT ::1:80"),
    new Error("connect ETIMEDOUT 127.0.0.1:80"),
  ]);
  assert.deepEqual(
    [
      errorText(failed(new Error("other side closed"))),
      errorText(failed(everyAddress)),
      errorText(failed(reset)),
      errorText(failed(new RangeError(""))),
      errorText(failed("not an Error")),
      errorText(new Error("plain")),
      errorText(42),
    ],
    [
      "fetch failed (other side closed)",
      "fetch failed (connect ETIMEDOUT ::1:80; connect ETIMEDOUT 127.0.0.1:80)",
      "fetch failed (ECONNRESET)",
      "fetch failed (RangeError)",
      "fetch failed",
      "plain",
      "42",
    ],
  );
});
