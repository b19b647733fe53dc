// The Accept header as the front reads it: RFC 9110's most specific range decides, and q=0 refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { accepts } from "../../src/front/_accept.ts";

test("accepts(): the most specific range naming the type decides, q=0 is not acceptable, a missing header admits nothing", () => {
  const sse = "text/event-stream";
  const cases: [string | null, boolean, boolean][] = [
    ["application/json, text/event-stream", true, true],
    ["Application/JSON, Text/Event-Stream", true, true],
    ["application/json, text/event-stream;q=0", false, false],
    ["application/json, text/event-stream ; Q=0.0", false, false],
    ["text/event-stream;q=0.001", true, true],
    ["text/event-stream;charset=utf-8;q=0.5", true, true],
    ["*/*", true, false],
    ["text/*", true, false],
    ["text/event-stream;q=0, */*", false, false],
    ["text/*;q=0, */*", false, false],
    ["text/*, */*;q=0", true, false],
    ["application/json", false, false],
    ["", false, false],
    [null, false, false],
  ];
  assert.deepEqual(
    cases.map(([header]) => [header, accepts(header, sse, true), accepts(header, sse, false)]),
    cases,
  );
});
