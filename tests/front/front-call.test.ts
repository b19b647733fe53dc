// A modern caller's call through the front (frontCall) against a scripted modern upstream, on
// every runtime: the upstream's own input requests go down and back whatever their keys.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { result, type SeenRequest, toolsList } from "../_support/scripted-server.ts";
import { askScriptedFront, scriptedFront } from "../_support/gateway-caller.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { eventually, within } from "../_support/eventually.ts";

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

describe("a 2026 caller's call over several of its requests", () => {
  /** An upstream that asks for roots in every round, counting its rounds in its requestState. */
  const asksForever = (request: SeenRequest) => {
    const { id, method, params } = request.body;
    if (method === "tools/list") return toolsList(id, [{ name: "loop", inputSchema: { type: "object" } }]);
    const round = Number(params?.requestState ?? 0);
    return result(id, {
      resultType: "input_required",
      inputRequests: { [`r${round}`]: { method: "roots/list", params: {} } },
      requestState: String(round + 1),
    });
  };

  /** Answers each round's roots request and retries, up to `rounds` times; the caller's answers. */
  async function play(front: ReturnType<typeof scriptedFront>, rounds: number, between = () => {}) {
    const answers: unknown[] = [];
    let params: Record<string, unknown> = { name: "loop", arguments: {} };
    for (let i = 0; i < rounds; i++) {
      const answer = await askScriptedFront(front, "tools/call", params, { capabilities: { roots: {} } });
      answers.push(answer);
      const asked = (answer.body as { result?: { inputRequests?: object; requestState?: string } }).result;
      if (asked?.inputRequests === undefined) break;
      const [key] = Object.keys(asked.inputRequests);
      params = {
        name: "loop",
        arguments: {},
        inputResponses: { [key as string]: { roots: [] } },
        requestState: asked.requestState,
      };
      between();
    }
    const calls = front.upstream.requests.filter((request) => request.body.method === "tools/call").length;
    await front.client.close();
    return { answers, calls };
  }

  const asked = (round: number) => ({
    status: 200,
    body: {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "input_required",
        inputRequests: { [`r${round}`]: { method: "roots/list", params: {} } },
        requestState: "(sealed)",
      },
    },
  });
  /** The caller's answer when the call fails as its upstream's -32010, for `cause`. */
  const unavailable = (words: string, cause: string) => ({
    status: 200,
    body: {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: `Upstream server "up" is unavailable: ${words}`,
        data: { serverId: "up", cause },
      },
    },
  });
  const sealedAway = (answers: unknown[]) =>
    answers.map((answer) => {
      const result = (answer as { body: { result?: { requestState?: string } } }).body.result;
      if (result?.requestState !== undefined) result.requestState = "(sealed)";
      return answer;
    });

  test("maxRounds counts the rounds of every request of the call: the server asking again after the last fails it", async () => {
    const front = scriptedFront(asksForever, { policy: { passDown: ["roots"], maxRounds: 2 } });
    const { answers, calls } = await play(front, 5);
    // The policy's limit, not the server being unavailable: a server may keep asking.
    assert.deepEqual([sealedAway(answers), calls], [[
      asked(0),
      asked(1),
      {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 1,
          error: {
            code: -32603,
            message: 'Server "up" still asked for input after 2 rounds of tools/call (maxRounds 2)',
          },
        },
      },
    ], 3]);
  });

  test("maxTotalTimeout runs from the call's first request: a retry once it has passed is refused, and nothing goes upstream", async () => {
    let now = Date.UTC(2026, 11, 1);
    const front = scriptedFront(asksForever, {
      policy: { passDown: ["roots"], maxTotalTimeout: "2s" },
      clock: { now: () => now },
    });
    const { answers, calls } = await play(front, 5, () => void (now += 1000));
    assert.deepEqual([sealedAway(answers), calls], [[
      asked(0),
      asked(1),
      unavailable("timed out", "timed_out"),
    ], 2]);
  });

  test("a retry that waits upstream ends when the call's time runs out, not maxTotalTimeout after the retry", async () => {
    const time = new FakeTime(Date.UTC(2026, 11, 1));
    let hung = false;
    const front = scriptedFront((request) => {
      if (request.body.params?.requestState !== undefined) {
        hung = true;
        return new Promise<Response>(() => {});
      }
      return asksForever(request);
    }, { policy: { passDown: ["roots"], maxTotalTimeout: "2s" }, clock: time, timers: time });
    const first = await askScriptedFront(front, "tools/call", { name: "loop", arguments: {} }, {
      capabilities: { roots: {} },
    });
    const { requestState } = (first.body as { result: { requestState: string } }).result;
    await time.advance(1500);
    const retry = askScriptedFront(front, "tools/call", {
      name: "loop",
      arguments: {},
      inputResponses: { r0: { roots: [] } },
      requestState,
    }, { capabilities: { roots: {} } });
    // The retry's state opens with real crypto: wait until the retry is upstream.
    await eventually("the retry upstream", () => hung || undefined);
    await time.advance(600);
    // Without the call's deadline the retry would wait for fake time that never comes: a real-time
    // bound only so that the test fails rather than hangs.
    const answer = await within("the retry's answer", retry);
    await front.client.close();
    assert.deepEqual([hung, answer], [true, unavailable("timed out", "timed_out")]);
  });
});
