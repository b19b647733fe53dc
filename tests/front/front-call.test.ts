// A modern caller's call through the front (frontCall) against a scripted modern upstream, on
// every runtime: the upstream's own input requests go down and back whatever their keys.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { result, toolsList } from "../_support/scripted-server.ts";
import { askScriptedFront, scriptedFront } from "../_support/gateway-caller.ts";

/** An upstream form elicitation, under the key the gateway uses for its own sign-in question. */
const NAME = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
};

describe("frontCall()", () => {
  test('frontCall() passes down an upstream input request keyed "sluice/sign-in" like any other: the caller\'s answer is post-checked and sent upstream', async () => {
    const front = scriptedFront((req) => {
      if (req.body.method === "tools/list") {
        return toolsList(req.body.id, [{ name: "ask", inputSchema: { type: "object" } }]);
      }
      const answers = req.body.params?.inputResponses;
      return result(
        req.body.id,
        answers === undefined
          ? { resultType: "input_required", inputRequests: { "sluice/sign-in": NAME }, requestState: "up-1" }
          : { resultType: "complete", content: [{ type: "text", text: JSON.stringify(answers) }] },
      );
    }, { policy: { passDown: ["elicitation"] } });
    const capabilities = { elicitation: { form: {} } };
    const ask = async (extra: Record<string, unknown> = {}) =>
      (await askScriptedFront(front, "tools/call", { name: "ask", arguments: {}, ...extra }, {
        capabilities,
      }))
        .body as { result: Record<string, unknown>; error?: unknown };
    const first = (await ask()).result;
    assert.deepEqual([first.resultType, first.inputRequests], ["input_required", { "sluice/sign-in": NAME }]);
    const given = { "sluice/sign-in": { action: "accept", content: { name: "Ada" } } };
    const done = await ask({ requestState: first.requestState, inputResponses: given });
    assert.deepEqual(done.result?.content, [{ type: "text", text: JSON.stringify(given) }]);
    // An answer that breaks the upstream's form is refused, as for any other key.
    const second = (await ask()).result;
    const refused = await ask({
      requestState: second.requestState,
      inputResponses: { "sluice/sign-in": { action: "accept", content: { name: 7 } } },
    });
    assert.deepEqual(refused.error, {
      code: -32602,
      message:
        'Answer to input request "sluice/sign-in" refused: Elicitation answer refused: field "name" expected a string, received a number',
    });
    await front.client.close();
  });
});
