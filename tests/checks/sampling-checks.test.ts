import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createSamplingMaxTokensCheck } from "../../src/checks/sampling-max-tokens.ts";
import { createSamplingContextCheck } from "../../src/checks/sampling-context.ts";
import { createSamplingIdleCheck } from "../../src/checks/sampling-idle.ts";
import { createSamplingToolLoopCheck, type ToolLoopMessage } from "../../src/checks/sampling-tool-loop.ts";
import { answerToolProblem, createSamplingToolsCheck } from "../../src/checks/sampling-tools.ts";
import { checkSamplingToolResults } from "../../src/checks/sampling-tool-results.ts";
import { createChain } from "../../src/chain/chain.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";
import { FakeTime } from "../_support/fake-time.ts";

const request = { messages: [], maxTokens: 999_999, systemPrompt: "s" } as const;

describe("createSamplingMaxTokensCheck()", () => {
  const { check } = createSamplingMaxTokensCheck({ maxTokens: 4096 });

  test("clamps 999999 to the policy maximum 4096 on a copy", () => {
    const input = { ...request };
    assert.deepEqual(check(input), { ok: true, value: { messages: [], maxTokens: 4096, systemPrompt: "s" } });
    assert.equal(input.maxTokens, 999_999);
  });

  test("passes 4096 and 1 through unchanged, as the same object", () => {
    for (const maxTokens of [4096, 1]) {
      const input = { ...request, maxTokens };
      const verdict = check(input);
      assert.equal(verdict.ok && verdict.value, input);
    }
  });

  test("refuses 0, negatives, fractions and non-finite numbers with -32602", () => {
    const received = [0, -5, 1.5, Infinity, Number.MAX_SAFE_INTEGER + 2].map((maxTokens) =>
      check({ ...request, maxTokens })
    );
    assert.deepEqual(
      received,
      [
        "0",
        "-5",
        "1.5",
        "a non-finite number",
        "9007199254740992",
      ].map((shown) => ({
        ok: false,
        refusal: {
          code: -32602,
          message: `Sampling request refused: "maxTokens" must be a positive integer, received ${shown}`,
        },
      })),
    );
  });

  test("refuses to build with a policy maximum that is not a positive integer", () => {
    assert.throws(() => createSamplingMaxTokensCheck({ maxTokens: 0 }), {
      name: "TypeError",
      message: '"sampling.maxTokens" must be a positive integer, received 0',
    });
  });
});

describe("createSamplingContextCheck()", () => {
  test('coerces "thisServer" and "allServers" to "none" on a copy unless context is allowed', () => {
    const { check } = createSamplingContextCheck({ allow: false });
    const input = { includeContext: "allServers", maxTokens: 5 };
    assert.deepEqual(check(input), { ok: true, value: { includeContext: "none", maxTokens: 5 } });
    assert.deepEqual(check({ includeContext: "thisServer" }), {
      ok: true,
      value: { includeContext: "none" },
    });
    assert.equal(input.includeContext, "allServers");
    assert.deepEqual(check({ maxTokens: 5 } as { maxTokens: number; includeContext?: string }), {
      ok: true,
      value: { maxTokens: 5 },
    });
  });

  test("keeps includeContext when sampling.context is true", () => {
    const { check } = createSamplingContextCheck({ allow: true });
    assert.deepEqual(check({ includeContext: "allServers" }), {
      ok: true,
      value: { includeContext: "allServers" },
    });
  });
});

describe("createSamplingIdleCheck()", () => {
  test("refuses a request with no call in flight with the rejection code", () => {
    const { check } = createSamplingIdleCheck({ allowIdle: false, rejectionCode: -1 });
    assert.deepEqual(check(false), {
      ok: false,
      refusal: { code: -1, message: "Sampling request refused: no call to this server is in flight" },
    });
    assert.deepEqual(check(true), { ok: true, value: undefined });
  });

  test("uses the policy's rejection code and lets idle requests through with allowIdle", () => {
    assert.equal(createSamplingIdleCheck({ allowIdle: false, rejectionCode: -32001 }).check(false).ok, false);
    assert.deepEqual(createSamplingIdleCheck({ allowIdle: true, rejectionCode: -1 }).check(false), {
      ok: true,
      value: undefined,
    });
  });
});

describe("createSamplingToolLoopCheck()", () => {
  const { check } = createSamplingToolLoopCheck({ maxToolIterations: 5, rejectionCode: -1 });
  const turn = (withToolUse: boolean, asArray: boolean): ToolLoopMessage[] => {
    const use = { type: withToolUse ? "tool_use" : "text" };
    return [
      { role: "assistant", content: asArray ? [{ type: "text" }, use] : use },
      { role: "user", content: [{ type: "tool_result" }] },
    ];
  };
  const conversation = (
    turns: number,
    asArray = false,
  ) => [
    { role: "user", content: { type: "text" } },
    ...Array.from({ length: turns }, () => turn(true, asArray)).flat(),
  ];

  test("passes up to and including 5 assistant tool_use turns", () => {
    for (const turns of [0, 1, 4, 5]) {
      assert.deepEqual(check(conversation(turns)), { ok: true, value: undefined });
    }
  });

  test("refuses 6 and 50 turns, counting tool_use inside content arrays", () => {
    assert.deepEqual(check(conversation(6, true)), {
      ok: false,
      refusal: {
        code: -1,
        message: "Sampling request refused: 6 assistant tool_use turns exceed the limit of 5",
      },
    });
    assert.deepEqual(check(conversation(50)), {
      ok: false,
      refusal: {
        code: -1,
        message: "Sampling request refused: 50 assistant tool_use turns exceed the limit of 5",
      },
    });
  });

  test("does not count assistant turns without tool_use, nor user turns with tool_result", () => {
    const messages = Array.from({ length: 10 }, () => turn(false, true)).flat();
    assert.deepEqual(check(messages), { ok: true, value: undefined });
  });

  test("refuses any tool_use turn with maxToolIterations 0", () => {
    const strict = createSamplingToolLoopCheck({ maxToolIterations: 0, rejectionCode: -7 });
    assert.deepEqual(strict.check(conversation(1)), {
      ok: false,
      refusal: {
        code: -7,
        message: "Sampling request refused: 1 assistant tool_use turns exceed the limit of 0",
      },
    });
  });
});

describe("createSamplingToolsCheck()", () => {
  test("refuses tools or toolChoice with -32602 when sampling.tools is not declared", () => {
    const { check } = createSamplingToolsCheck({ declared: false });
    assert.deepEqual(check({ tools: [] }), {
      ok: false,
      refusal: {
        code: -32602,
        message:
          'Sampling request refused: "tools" requires the sampling.tools capability, which this client did not declare',
      },
    });
    assert.deepEqual(check({ toolChoice: { mode: "auto" } }), {
      ok: false,
      refusal: {
        code: -32602,
        message:
          'Sampling request refused: "toolChoice" requires the sampling.tools capability, which this client did not declare',
      },
    });
    assert.deepEqual(check({ maxTokens: 1 } as { maxTokens: number; tools?: unknown[] }), {
      ok: true,
      value: { maxTokens: 1 },
    });
  });

  test("lets tools through when sampling.tools is declared", () => {
    assert.deepEqual(createSamplingToolsCheck({ declared: true }).check({ tools: [] }), {
      ok: true,
      value: { tools: [] },
    });
  });
});

describe("answerToolProblem()", () => {
  const search = { name: "search", inputSchema: { type: "object" } } as const;
  const fetchTool = { name: "fetch", inputSchema: { type: "object" } } as const;
  const call = (name: string) => ({ type: "tool_use", id: `c-${name}`, name, input: {} }) as const;
  const text = { type: "text", text: "done" } as const;
  const answer = (...content: { readonly type: string }[]) => ({ content: content as never });

  test("passes an answer whose tool calls are all of offered tools, and one calling none", () => {
    assert.deepEqual([
      answerToolProblem({ tools: [search, fetchTool] }, answer(call("fetch"), call("search"))),
      answerToolProblem({ tools: [search], toolChoice: { mode: "required" } }, answer(call("search"))),
      answerToolProblem({}, answer(text)),
      answerToolProblem({ tools: [search], toolChoice: { mode: "none" } }, { content: text }),
    ], [undefined, undefined, undefined, undefined]);
  });

  test("names the call that the request did not allow: no tools offered, toolChoice none, or a tool not offered", () => {
    assert.deepEqual([
      answerToolProblem({}, { content: call("rm") }),
      answerToolProblem({ tools: [] }, answer(text, call("rm"))),
      answerToolProblem({ tools: [search], toolChoice: { mode: "none" } }, answer(call("search"))),
      answerToolProblem({ tools: [search, fetchTool] }, answer(call("search"), call("rm\u001b[2J"))),
    ], [
      'expected no "tool_use" block (the request offered no tools), received one calling "rm"',
      'expected no "tool_use" block (the request offered no tools), received one calling "rm"',
      'expected no "tool_use" block (the request\'s toolChoice is "none"), received one calling "search"',
      'expected "tool_use" blocks for the offered tools ("search", "fetch") only, received one calling "rm\\u001B[2J"',
    ]);
  });

  test("the chain refuses such an answer -32603 after the handler, in 2025-11-25 and 2026-07-28", async () => {
    const time = new FakeTime();
    const chain = createChain({
      policy: compilePolicy({
        server: "demo",
        transport: { url: "https://mcp.example.com/mcp" },
        sampling: { tools: true },
      }),
      handler: {
        sampling: () => ({ role: "assistant", content: [call("rm")], model: "m", stopReason: "toolUse" }),
      },
      client: "agent",
      store: createMemoryStore({ clock: time }),
      timers: time,
    });
    const request = {
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: text }], maxTokens: 10, tools: [search] },
    } as InputRequest;
    const refused = {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32603,
        message:
          'Sampling answer refused: expected "tool_use" blocks for the offered tools ("search") only, received one calling "rm"',
      },
    };
    assert.deepEqual([
      await chain.run(request, { version: "2026-07-28" }),
      await chain.run(request, { version: "2025-11-25", callInFlight: true }),
    ], [refused, refused]);
  });
});

describe("checkSamplingToolResults()", () => {
  const check = checkSamplingToolResults;
  const toolUse = { role: "assistant", content: { type: "tool_use", id: "c1", name: "search", input: {} } };
  const result = { type: "tool_result", toolUseId: "c1", content: [] };

  test("passes a user message holding only tool results, one or several", () => {
    assert.deepEqual(check([toolUse, { role: "user", content: result }]), { ok: true, value: undefined });
    assert.deepEqual(check([toolUse, { role: "user", content: [result, result] }]), {
      ok: true,
      value: undefined,
    });
  });

  test("refuses a user message mixing tool results and text with -32602, naming the message", () => {
    const mixed = [toolUse, { role: "user", content: [{ type: "text", text: "Here:" }, result] }];
    assert.deepEqual(check(mixed as ToolLoopMessage[]), {
      ok: false,
      refusal: {
        code: -32602,
        message: 'Sampling request refused: tool results mixed with other content in "messages[1]": ' +
          'expected only tool_result blocks, received "text" at index 0',
      },
    });
  });

  test("refuses a tool_use followed by a text message, an assistant message or a text-only user message", () => {
    const ask = { role: "user", content: { type: "text", text: "q" } };
    const use = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "search", input: {} }] };
    const answering = 'answering the tool_use blocks of "messages[1]"';
    assert.deepEqual(
      [
        [ask, use, ask],
        [ask, use, { role: "assistant", content: { type: "text", text: "done" } }],
        [ask, use, { role: "user", content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }],
      ].map((messages) => check(messages as ToolLoopMessage[])),
      [
        `expected only tool_result blocks ${answering}, received "text" at index 0`,
        `expected a user message ${answering}, received role "assistant"`,
        `expected only tool_result blocks ${answering}, received "image" at index 0`,
      ].map((reason) => ({
        ok: false,
        refusal: {
          code: -32602,
          message: `Sampling request refused: tool results missing in "messages[2]": ${reason}`,
        },
      })),
    );
  });

  test("refuses a tool_use left without its result, naming the first unanswered id", () => {
    const uses = {
      role: "assistant",
      content: [
        { type: "tool_use", id: "t1", name: "search", input: {} },
        { type: "tool_use", id: "t2", name: "search", input: {} },
      ],
    };
    const first = { type: "tool_result", toolUseId: "t1", content: [] };
    const expected = (id: string) => ({
      ok: false,
      refusal: {
        code: -32602,
        message: 'Sampling request refused: tool results missing in "messages[1]": expected a tool_result ' +
          `answering the tool_use blocks of "messages[0]", received none for the tool_use "${id}"`,
      },
    });
    assert.deepEqual(check([uses, { role: "user", content: first }]), expected("t2"));
    assert.deepEqual(check([uses, { role: "user", content: [] }]), expected("t1"));
  });

  test("refuses a tool_result matching no tool_use of the assistant message just before it", () => {
    const ask = { role: "user", content: { type: "text", text: "q" } };
    const stray = { role: "user", content: [result, { type: "tool_result", toolUseId: "c9", content: [] }] };
    const expected = (index: number, id: string, at: number) => ({
      ok: false,
      refusal: {
        code: -32602,
        message: `Sampling request refused: tool results not matching a tool_use in "messages[${index}]": ` +
          "expected a toolUseId naming a tool_use of the assistant message just before, " +
          `received "${id}" at index ${at}`,
      },
    });
    assert.deepEqual(check([toolUse, stray]), expected(1, "c9", 1));
    assert.deepEqual(check([{ role: "user", content: result }]), expected(0, "c1", 0));
    assert.deepEqual(
      check([toolUse, { role: "user", content: result }, ask, { role: "user", content: result }]),
      expected(3, "c1", 0),
    );
    assert.deepEqual(
      check([ask, { role: "assistant", content: { type: "text", text: "a" } }, stray]),
      expected(2, "c1", 0),
    );
  });

  test("passes a request ending on an assistant tool_use, which the spec leaves open", () => {
    const ask = { role: "user", content: { type: "text", text: "q" } };
    assert.deepEqual(check([ask, toolUse]), { ok: true, value: undefined });
    assert.deepEqual(check([ask, toolUse, { role: "user", content: result }, toolUse]), {
      ok: true,
      value: undefined,
    });
  });

  test("the chain refuses a mixed or missing tool result before the handler runs, whatever the rejection code", async () => {
    const time = new FakeTime();
    const seen: unknown[] = [];
    const chain = createChain({
      policy: compilePolicy({
        server: "demo",
        transport: { url: "https://mcp.example.com/mcp" },
        sampling: { rejectionCode: -7 },
      }),
      handler: { sampling: (params) => (seen.push(params), { role: "assistant", content: [], model: "m" }) },
      client: "agent",
      store: createMemoryStore({ clock: time }),
      timers: time,
    });
    const ask = { role: "user", content: { type: "text", text: "q" } };
    const verdicts = [];
    for (
      const messages of [
        [ask, toolUse, {
          role: "user",
          content: [result, { type: "image", data: "aGk=", mimeType: "image/png" }],
        }],
        [ask, toolUse, ask],
      ]
    ) {
      const request = {
        method: "sampling/createMessage",
        params: { messages, maxTokens: 10 },
      } as InputRequest;
      verdicts.push(await chain.run(request, { version: "2026-07-28" }));
    }
    assert.deepEqual(
      verdicts,
      [
        'tool results mixed with other content in "messages[2]": expected only tool_result blocks, ' +
        'received "image" at index 1',
        'tool results missing in "messages[2]": expected only tool_result blocks answering the tool_use ' +
        'blocks of "messages[1]", received "text" at index 0',
      ].map((reason) => ({
        ok: false,
        stage: "policy",
        refusal: { code: -32602, message: `Sampling request refused: ${reason}` },
      })),
    );
    assert.deepEqual(seen, []);
  });
});
