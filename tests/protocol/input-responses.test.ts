import { describe, test } from "node:test";
import { decodeInputRequests } from "../../src/protocol/input-request.ts";
import { decodeInputResponse, decodeInputResponses } from "../../src/protocol/input-responses.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const requests = decodeInputRequests({
  login: {
    method: "elicitation/create",
    params: { message: "m", requestedSchema: { type: "object", properties: {} } },
  },
  "the roots": { method: "roots/list" },
});
if (!requests.ok) throw new Error(requests.message);

describe("decodeInputResponse()", () => {
  test("decodes by the method answered, dropping unknown keys", () => {
    same(decodeInputResponse("roots/list", { roots: [], _meta: {}, resultType: "complete" }), {
      ok: true,
      value: { roots: [] },
    });
    const bad = decodeInputResponse("sampling/createMessage", {
      role: "assistant",
      content: { type: "text", text: "x" },
    });
    same(bad, failureAt("$.model", '"model"', "undefined"));
  });
});

describe("decodeInputResponses()", () => {
  test("decodes answers against their requests and leaves out keys that answer nothing", () => {
    same(
      decodeInputResponses(requests.value, {
        login: { action: "accept", content: { name: "ada" } },
        "the roots": { roots: [{ uri: "file:///w" }] },
        stray: { anything: true },
      }),
      {
        ok: true,
        value: np({
          login: { action: "accept", content: np({ name: "ada" }) },
          "the roots": { roots: [{ uri: "file:///w" }] },
        }),
      },
    );
  });

  test('locates a bad answer at $.login.action and at $["the roots"].roots', () => {
    const login = decodeInputResponses(requests.value, { login: { action: "ok" } });
    same(login, failureAt("$.login.action", '("accept" | "decline" | "cancel")', '"ok"'));
    same(decodeInputResponses(requests.value, { "the roots": { roots: {} } }), {
      ok: false,
      path: '$["the roots"].roots',
      expected: "Array",
      received: "Object",
      message: '$["the roots"].roots: expected Array, received Object',
    });
  });

  test("refuses an array as the map", () => {
    const result = decodeInputResponses(requests.value, []);
    same(result, failureAt("$", "Object", "Array"));
  });
});
