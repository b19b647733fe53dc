// A 2026 caller's retry whose resumed call the upstream did not run (it answered 503 or 429)
// keeps the caller's answers: the front gives its spent state back, and the same retry goes
// through once the server is back. A failure after which the call may have run (a 500, a 503 on a
// later round once the resume went through, or on a re-send after the resume's stream broke)
// leaves the state spent: the same retry is a replay. Against a scripted upstream, on every
// runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { askScriptedFront, scriptedFront } from "../_support/gateway-caller.ts";
import { result, type SeenRequest, sse, toolsList } from "../_support/scripted-server.ts";

/** An `input_required` asking one form, `key`, with `message`, under the upstream's `state`. */
function asking(id: unknown, key: string, message: string, state: string): Response {
  return result(id, {
    resultType: "input_required",
    inputRequests: {
      [key]: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message,
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    },
    requestState: state,
  });
}

/** What the upstream answers the first time it gets the caller's answers: a refusal by status. */
function refusedBy(status: number): Response {
  return new Response("try again later", {
    status,
    headers: { "content-type": "text/plain", "retry-after": "1" },
  });
}

/**
 * A front over an upstream whose `ask` asks the caller's person a form ("who"), then answers
 * with the answers it got. The first resumed request (the one carrying the caller's answers) is
 * refused with `status`. With `then: "asks again"`, the resume is taken and the upstream asks a
 * second form ("again", which the gateway's handler answers), and it is that request that is
 * refused; with `then: "breaks"`, the resume runs and its response stream breaks, and it is the
 * session's own re-send that is refused.
 */
function front(status: number, then?: "asks again" | "breaks") {
  let refused = false;
  let broken = false;
  const reply = (request: SeenRequest): Response => {
    const { id, method, params = {} } = request.body;
    if (method === "tools/list") return toolsList(id, [{ name: "ask", inputSchema: { type: "object" } }]);
    const answers = params.inputResponses as Record<string, unknown> | undefined;
    if (answers === undefined) return asking(id, "who", "Your name?", "upstream-1");
    if (then === "asks again" && answers.again === undefined) {
      return asking(id, "again", "Once more?", "upstream-2");
    }
    if (then === "breaks" && !broken) {
      broken = true;
      return sse([], { close: false });
    }
    if (!refused) {
      refused = true;
      return refusedBy(status);
    }
    return result(id, { resultType: "complete", content: [{ type: "text", text: JSON.stringify(answers) }] });
  };
  return scriptedFront(reply, {
    policy: { passDown: ["elicitation"] },
    handler: {
      elicitation: (params, context) =>
        params.message === "Once more?"
          ? { action: "accept", content: { name: "handler" } }
          : context.defer(),
    },
  });
}

const CAPABILITIES = { elicitation: { form: {} } };
const ANSWERS = { who: { action: "accept", content: { name: "Ada" } } };

/** The call, its retry with the person's answers, and the same retry sent again. */
async function callRetryAndResend(gateway: ReturnType<typeof front>) {
  const first = await askScriptedFront(gateway, "tools/call", { name: "ask", arguments: {} }, {
    capabilities: CAPABILITIES,
  });
  const { requestState } = (first.body as { result: { requestState: string } }).result;
  const retry = { name: "ask", arguments: {}, inputResponses: ANSWERS, requestState };
  const failed = await askScriptedFront(gateway, "tools/call", retry, { capabilities: CAPABILITIES });
  const resent = await askScriptedFront(gateway, "tools/call", retry, { capabilities: CAPABILITIES });
  const resumed = gateway.upstream.requests.filter((r) =>
    (r.body.params?.inputResponses as Record<string, unknown> | undefined)?.who !== undefined
  );
  await gateway.client.close();
  return { failed, resent, resumed: resumed.length };
}

/** The error the caller gets for an upstream that answered `status`. */
function unavailable(status: number) {
  return {
    status: 200,
    body: {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: `Upstream server "up" is unavailable: HTTP error ${status}`,
        data: { serverId: "up", cause: "http_error", status },
      },
    },
  };
}

const REPLAYED = {
  status: 200,
  body: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid or expired requestState" } },
};

describe("a retry whose resumed call the upstream did not run", () => {
  for (const status of [503, 429]) {
    test(`a ${status} on the resumed request gives the state back: the same retry, answers and all, goes through`, async () => {
      const { failed, resent, resumed } = await callRetryAndResend(front(status));
      assert.deepEqual(failed, unavailable(status));
      assert.deepEqual(resent, {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 1,
          result: { resultType: "complete", content: [{ type: "text", text: JSON.stringify(ANSWERS) }] },
        },
      });
      assert.equal(resumed, 2);
    });
  }

  test("a 500 on the resumed request leaves the state spent: the upstream may have run the call", async () => {
    const { failed, resent, resumed } = await callRetryAndResend(front(500));
    assert.deepEqual([failed, resent, resumed], [unavailable(500), REPLAYED, 1]);
  });

  test("a 503 on a later round leaves the state spent: the resumed request had run", async () => {
    const { failed, resent, resumed } = await callRetryAndResend(front(503, "asks again"));
    assert.deepEqual([failed, resent, resumed], [unavailable(503), REPLAYED, 1]);
  });

  test("a 503 on the session's own re-send, after the resumed request's stream broke, leaves the state spent: that request may have run", async () => {
    const { failed, resent, resumed } = await callRetryAndResend(front(503, "breaks"));
    assert.deepEqual([failed, resent, resumed], [unavailable(503), REPLAYED, 2]);
  });
});
