// Results and log entries in the caller's era, and which era a downstream POST speaks; a POST
// that is no valid message is refused with the request's id when it can be read.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { effectiveLogLevel, logForCaller, resultForCaller } from "../../src/front/caller-era.ts";
import { LogBudgets } from "../../src/notify/log-budget.ts";
import {
  classifyDownstream,
  parseDownstream,
  readDownstreamRequest,
} from "../../src/front/downstream-request.ts";
import { offeredCapabilities } from "../../src/front/_front-info.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { schemaErrors } from "../protocol/_official-schema.ts";
import type { LoggingLevel } from "../../src/protocol/logging-level.ts";

describe("resultForCaller()", () => {
  test("resultForCaller() adds resultType to every result, and ttlMs with cacheScope to cacheable ones, for a modern caller", () => {
    assert.deepEqual(resultForCaller({ content: [] }, "tools/call", "modern"), {
      content: [],
      resultType: "complete",
    });
    for (
      const method of [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
      ]
    ) {
      assert.deepEqual(resultForCaller({ x: 1 }, method, "modern"), {
        x: 1,
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "private",
      }, method);
    }
  });

  test("resultForCaller() keeps what a modern server set, and returns the same object when nothing is missing", () => {
    const complete = { tools: [], resultType: "complete", ttlMs: 5000, cacheScope: "public" };
    assert.equal(resultForCaller(complete, "tools/list", "modern"), complete);
    assert.deepEqual(resultForCaller({ tools: [], ttlMs: 5000 }, "tools/list", "modern"), {
      tools: [],
      ttlMs: 5000,
      resultType: "complete",
      cacheScope: "private",
    });
  });

  test("resultForCaller() strips resultType, ttlMs and cacheScope for a legacy caller, and nothing else", () => {
    const legacy = { tools: [], _meta: { a: 1 } };
    assert.equal(resultForCaller(legacy, "tools/list", "legacy"), legacy);
    assert.deepEqual(
      resultForCaller(
        { ...legacy, resultType: "complete", ttlMs: 0, cacheScope: "private" },
        "tools/list",
        "legacy",
      ),
      legacy,
    );
  });
});

describe("effectiveLogLevel() and logForCaller()", () => {
  test("effectiveLogLevel() never goes below the policy's level", () => {
    assert.equal(effectiveLogLevel("info", "debug"), "info");
    assert.equal(effectiveLogLevel("info", "error"), "error");
    assert.equal(effectiveLogLevel("warning", "warning"), "warning");
  });

  test("logForCaller() passes entries at or above the level, sanitized, within the budget; none without a level", async () => {
    const time = new FakeTime(0);
    const budgets = new LogBudgets(time, () => ({ rate: 1, perMs: 1000, burst: 2 }));
    const relay = (params: unknown, level: LoggingLevel | undefined) =>
      logForCaller(params, level, () => budgets.take("github"));
    const entry = (level: string) => ({ level, logger: "l", data: "a\u202Eb", extra: "dropped" });
    assert.equal(relay(entry("error"), undefined), undefined);
    assert.equal(relay(entry("info"), "warning"), undefined);
    const sent = {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", logger: "l", data: "ab" },
    };
    assert.deepEqual(relay(entry("error"), "warning"), sent);
    assert.deepEqual(relay(entry("error"), "warning"), sent);
    assert.equal(relay(entry("error"), "warning"), undefined);
    await time.advance(1000);
    assert.deepEqual(relay(entry("error"), "warning"), sent);
  });
});

describe("classifyDownstream()", () => {
  const modernMeta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
  const headers = (version?: string) =>
    new Headers(version === undefined ? {} : { "mcp-protocol-version": version });

  test("classifyDownstream() serves a _meta claim as modern, whatever the method", () => {
    const claimed = { jsonrpc: "2.0" as const, id: 1, method: "initialize", params: { _meta: modernMeta } };
    assert.equal(classifyDownstream(claimed, headers()), "modern");
  });

  test("classifyDownstream() serves initialize, responses and session traffic as legacy", () => {
    assert.equal(
      classifyDownstream({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, headers()),
      "legacy",
    );
    assert.equal(
      classifyDownstream({ jsonrpc: "2.0", id: "a", result: {} }, headers("2025-11-25")),
      "legacy",
    );
    assert.equal(
      classifyDownstream({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers("2025-11-25")),
      "legacy",
    );
    assert.equal(
      classifyDownstream({ jsonrpc: "2.0", method: "notifications/initialized" }, headers()),
      "legacy",
    );
  });

  test("classifyDownstream() serves a request whose header names 2026-07-28 as modern, never as legacy", () => {
    assert.equal(
      classifyDownstream({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers("2026-07-28")),
      "modern",
    );
  });

  test("classifyDownstream() refuses initialize under a 2026-07-28 header with -32020", () => {
    assert.deepEqual(
      classifyDownstream({ jsonrpc: "2.0", id: 3, method: "initialize", params: {} }, headers("2026-07-28")),
      {
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: 3,
          error: {
            code: -32020,
            message:
              'Header mismatch: MCP-Protocol-Version "2026-07-28" has no initialize; send initialize without it to open a 2025 session',
          },
        },
      },
    );
  });

  test("classifyDownstream() refuses a 2025 session's request under a 2026-07-28 header with -32020 naming the session", () => {
    const sessionHeaders = headers("2026-07-28");
    sessionHeaders.set("mcp-session-id", "s-1");
    assert.deepEqual(classifyDownstream({ jsonrpc: "2.0", id: 4, method: "tools/list" }, sessionHeaders), {
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32020,
          message:
            'Header mismatch: MCP-Protocol-Version "2026-07-28" has no sessions, and this request names one (Mcp-Session-Id); a 2025 session\'s messages carry the version it negotiated',
        },
      },
    });
    // Its notification (a cancellation, which would be dropped) and its answer to a server's
    // request (which would be refused as another version) are refused the same way.
    const mismatch = (what: string) => ({
      status: 400,
      body: {
        jsonrpc: "2.0",
        error: {
          code: -32020,
          message:
            `Header mismatch: MCP-Protocol-Version "2026-07-28" has no sessions, and this ${what} names one (Mcp-Session-Id); a 2025 session's messages carry the version it negotiated`,
        },
      },
    });
    assert.deepEqual(
      [
        classifyDownstream(
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 20 } },
          sessionHeaders,
        ),
        classifyDownstream({ jsonrpc: "2.0", id: "sluice-9", result: {} }, sessionHeaders),
      ],
      [mismatch("notification"), mismatch("response")],
    );
    // A response under the modern header without a session: the modern era has none.
    assert.deepEqual(classifyDownstream({ jsonrpc: "2.0", id: 1, result: {} }, headers("2026-07-28")), {
      status: 400,
      body: {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Invalid request: under MCP-Protocol-Version \"2026-07-28\" a client sends no responses (it answers a server's input requests in its retry's inputResponses)",
        },
      },
    });
    // A 2026 request that says so in its _meta is served as modern, whatever else it carries.
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    assert.equal(
      classifyDownstream(
        { jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: meta } },
        sessionHeaders,
      ),
      "modern",
    );
  });
});

describe("parseDownstream()", () => {
  const refused = (code: number, message: string) => ({
    status: 400,
    body: { jsonrpc: "2.0", error: { code, message } },
  });

  test("parseDownstream() refuses text that is not JSON -32700 and JSON that is not one message -32600", () => {
    assert.deepEqual(
      parseDownstream("{bad json", 64),
      refused(-32700, "Parse error: $: expected JSON text, received text that is not JSON (9 characters)"),
    );
    assert.deepEqual(
      parseDownstream('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 64),
      refused(
        -32600,
        "Invalid request: $: expected a single JSON-RPC message (batches are not supported), received an array",
      ),
    );
    assert.deepEqual(
      parseDownstream("42", 64),
      refused(-32600, "Invalid request: $: expected a JSON-RPC message object, received number 42"),
    );
    assert.deepEqual(parseDownstream('{"jsonrpc":"2.0","id":1,"method":"ping"}', 64), {
      message: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
  });
});

describe("parseDownstream() ids", () => {
  const invalid = (id: unknown, message: string) => ({
    status: 400,
    body: { jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code: -32600, message } },
  });

  test("parseDownstream() answers a request that is not valid -32600 with its id when the id is a string or a safe integer, fitting both legacy schemas", () => {
    const answers = [
      parseDownstream('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}', 64),
      parseDownstream('{"jsonrpc":"1.0","id":"s","method":"ping"}', 64),
      parseDownstream('{"jsonrpc":"2.0","id":8,"params":{}}', 64),
    ];
    assert.deepEqual(answers, [
      invalid(7, "Invalid request: $.params: expected Object, received Array"),
      invalid("s", 'Invalid request: $.jsonrpc: expected "2.0", received "1.0"'),
      invalid(8, 'Invalid request: $: expected exactly one of "method", "result" or "error", received none'),
    ]);
    for (const answer of answers) {
      const body = "body" in answer ? answer.body : undefined;
      assert.deepEqual(
        [
          schemaErrors("2025-06-18", "JSONRPCError", body),
          schemaErrors("2025-11-25", "JSONRPCErrorResponse", body),
        ],
        [[], []],
      );
    }
  });

  test("parseDownstream() answers without an id when it cannot be read: not a string or a safe integer, or a response's", () => {
    assert.deepEqual(
      [
        parseDownstream('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 64),
        parseDownstream('{"jsonrpc":"2.0","id":null,"method":"ping"}', 64),
        parseDownstream('{"jsonrpc":"2.0","id":1,"error":"bad"}', 64),
      ],
      [
        invalid(undefined, "Invalid request: $.id: expected a safe integer, received 1.5"),
        invalid(undefined, "Invalid request: $.id: expected (number | string), received null"),
        {
          ...invalid(undefined, 'Invalid request: $.error: expected Object, received "bad"'),
          // A garbled answer stands as the caller's refusal of the request it names.
          answer: {
            jsonrpc: "2.0",
            id: 1,
            error: {
              code: -32603,
              message:
                `The caller's answer is no JSON-RPC response: $.error: expected Object, received "bad"`,
            },
          },
        },
      ],
    );
  });
});

describe("readDownstreamRequest()", () => {
  test("readDownstreamRequest() says which header is missing, and which differs from the body", () => {
    const call = {
      jsonrpc: "2.0" as const,
      id: 5,
      method: "tools/call",
      params: { name: "echo", arguments: {} },
    };
    const sent = (extra: Record<string, string>) =>
      readDownstreamRequest(call, new Headers({ "mcp-protocol-version": "2026-07-28", ...extra }));
    const mismatch = (message: string) => ({
      status: 400,
      body: { jsonrpc: "2.0", id: 5, error: { code: -32020, message } },
    });
    assert.deepEqual(
      [
        sent({}),
        sent({ "mcp-method": "tools/list" }),
        sent({ "mcp-method": "tools/call" }),
        sent({
          "mcp-method": "tools/call",
          "mcp-name": "other",
        }),
      ],
      [
        mismatch('Header mismatch: the Mcp-Method header is missing, expected "tools/call"'),
        mismatch('Header mismatch: Mcp-Method "tools/list" differs from the body\'s "tools/call"'),
        mismatch('Header mismatch: the Mcp-Name header is missing, expected "echo"'),
        mismatch('Header mismatch: Mcp-Name "other" differs from the body\'s "echo"'),
      ],
    );
    // A name as long as the gateway's own task ids is shown whole, a longer one cut visibly.
    const named = (name: string) =>
      readDownstreamRequest(
        { ...call, method: "tasks/get", params: { taskId: name } },
        new Headers({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tasks/get" }),
      );
    const [id, long] = ["t".repeat(160), "t".repeat(600)];
    assert.deepEqual([named(id), named(long)], [
      mismatch(`Header mismatch: the Mcp-Name header is missing, expected "${id}"`),
      mismatch(`Header mismatch: the Mcp-Name header is missing, expected "${"t".repeat(512)}…"`),
    ]);
  });
});

describe("offeredCapabilities()", () => {
  test("offeredCapabilities() keeps tools, resources, prompts and completions, without listChanged and subscribe unless relayed", () => {
    const upstream = {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      completions: {},
      sampling: {},
      experimental: { x: {} },
    };
    assert.deepEqual(offeredCapabilities(upstream, false), {
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
    });
    assert.deepEqual(offeredCapabilities(upstream, true), {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      completions: {},
    });
  });
});
