// What a request passed down needs its caller to have declared (neededBy), and what a caller that
// did not declare it is told: a sampling request's toolChoice needs sampling.tools as its tools
// do; an includeContext needs nothing more (a client may ignore it, and 2025-06-18 cannot declare
// sampling.context).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { neededBy } from "../../src/front/_caller-needs.ts";
import { missingCapability, undeclaredAnswer } from "../../src/front/front-call.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";

const sampling = (params: Record<string, unknown>): InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 10, ...params },
} as InputRequest);

describe("neededBy()", () => {
  test("a sampling request needs sampling.tools for tools or toolChoice, and nothing more for includeContext", () => {
    assert.deepEqual(
      [
        sampling({}),
        sampling({ includeContext: "allServers" }),
        sampling({ toolChoice: { mode: "none" } }),
        sampling({ tools: [], includeContext: "allServers" }),
      ].map(neededBy),
      [["sampling"], ["sampling"], ["sampling", "tools"], ["sampling", "tools"]],
    );
  });

  test("a caller that declared sampling alone is told what a toolChoice needs", () => {
    const toolChoice = sampling({ toolChoice: { mode: "auto" } });
    assert.deepEqual(undeclaredAnswer({ sampling: {} }, toolChoice), {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32602,
        message:
          'Invalid params: the caller did not declare sampling.tools, which this "sampling/createMessage" needs',
      },
    });
    assert.deepEqual(missingCapability(toolChoice), {
      kind: "error",
      status: 400,
      error: {
        code: -32021,
        message:
          "The upstream server needs input that only the caller can give, and the caller did not declare it",
        data: { requiredCapabilities: { sampling: { tools: {} } } },
      },
    });
  });
});
