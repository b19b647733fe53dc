import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mcpNameOf, mcpRequestHeaders } from "../../src/protocol/mcp-request-headers.ts";

const BASE = {
  "Content-Type": "application/json",
  "Accept": "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
};

describe("mcpRequestHeaders()", () => {
  test("builds the headers of the spec's execute_sql example", () => {
    const headers = mcpRequestHeaders({
      protocolVersion: "2026-07-28",
      method: "tools/call",
      name: "execute_sql",
      params: [["Region", "us-west1"]],
    });
    assert.deepEqual({ ...headers }, {
      ...BASE,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "execute_sql",
      "Mcp-Param-Region": "us-west1",
    });
  });

  test("sends no Mcp-Name and no Mcp-Param-* when there are none", () => {
    assert.deepEqual({ ...mcpRequestHeaders({ protocolVersion: "2026-07-28", method: "tools/list" }) }, {
      ...BASE,
      "Mcp-Method": "tools/list",
    });
  });

  test("mirrors a resource URI with a query string and a percent-encoded space as is", () => {
    const headers = mcpRequestHeaders({
      protocolVersion: "2026-07-28",
      method: "resources/read",
      name: "https://example.com/resource?id=123",
    });
    assert.equal(headers["Mcp-Name"], "https://example.com/resource?id=123");
    assert.equal(
      mcpRequestHeaders({
        protocolVersion: "2026-07-28",
        method: "resources/read",
        name: "file:///path/to/file%20name.txt",
      })[
        "Mcp-Name"
      ],
      "file:///path/to/file%20name.txt",
    );
  });

  test("encodes a non-ASCII tool name in Mcp-Name", () => {
    const headers = mcpRequestHeaders({
      protocolVersion: "2026-07-28",
      method: "tools/call",
      name: "tööl_unicode",
    });
    assert.equal(headers["Mcp-Name"], "=?base64?dMO2w7ZsX3VuaWNvZGU=?=");
  });

  test("encodes parameter values and keeps the Name's letter case, even for Method", () => {
    const headers = mcpRequestHeaders({
      protocolVersion: "2026-07-28",
      method: "tools/call",
      name: "test_custom_headers",
      params: [["Method", "test-method"], ["NonAscii", "Hello, 世界"], ["EmptyVal", ""], ["Priority", "42"]],
    });
    assert.deepEqual({ ...headers }, {
      ...BASE,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "test_custom_headers",
      "Mcp-Param-Method": "test-method",
      "Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-EmptyVal": "",
      "Mcp-Param-Priority": "42",
    });
  });

  test("returns a prototype-free map that fetch accepts", () => {
    const headers = mcpRequestHeaders({
      protocolVersion: "2026-07-28",
      method: "tools/call",
      name: " x ",
      params: [["__proto__", "v"]],
    });
    assert.equal(Object.getPrototypeOf(headers), null);
    const sent = new Headers(headers);
    assert.deepEqual([sent.get("mcp-name"), sent.get("mcp-param-__proto__"), sent.get("mcp-method")], [
      "=?base64?IHgg?=",
      "v",
      "tools/call",
    ]);
  });

  test("throws on a parameter name that is not a token, or repeats another in any case", () => {
    const input = { protocolVersion: "2026-07-28", method: "tools/call" };
    assert.throws(() => mcpRequestHeaders({ ...input, params: [["My Region", "x"]] }), {
      name: "TypeError",
      message: 'Parameter header name "My Region" must be an RFC 9110 token',
    });
    assert.throws(() => mcpRequestHeaders({ ...input, params: [["Region", "a"], ["REGION", "b"]] }), {
      name: "TypeError",
      message: 'Parameter header name "REGION" must be unique in any letter case',
    });
  });

  test("throws on a method or protocol version that is empty or not visible ASCII", () => {
    assert.throws(() => mcpRequestHeaders({ protocolVersion: "2026-07-28", method: "tools/call\r\nX: y" }), {
      name: "TypeError",
      message: 'Mcp-Method value "tools/call\\r\\nX: y" must be non-empty visible ASCII',
    });
    assert.throws(() => mcpRequestHeaders({ protocolVersion: "", method: "tools/call" }), {
      name: "TypeError",
      message: 'MCP-Protocol-Version value "" must be non-empty visible ASCII',
    });
  });
});

describe("mcpNameOf()", () => {
  test("takes params.name, params.uri or params.taskId by method", () => {
    assert.deepEqual(
      [
        mcpNameOf("tools/call", { name: "get_weather", arguments: {} }),
        mcpNameOf("prompts/get", { name: "code_review" }),
        mcpNameOf("resources/read", { uri: "file:///projects/myapp/config.json" }),
        mcpNameOf("tasks/get", { taskId: "t-1" }),
        mcpNameOf("tasks/update", { taskId: "t-2", inputResponses: {} }),
        mcpNameOf("tasks/cancel", { taskId: "t-3" }),
      ],
      ["get_weather", "code_review", "file:///projects/myapp/config.json", "t-1", "t-2", "t-3"],
    );
  });

  test("gives undefined for other methods, missing or non-string sources and bad params", () => {
    assert.deepEqual(
      [
        mcpNameOf("tools/list", { name: "x" }),
        mcpNameOf("server/discover", undefined),
        mcpNameOf("resources/read", { name: "x" }),
        mcpNameOf("tools/call", { name: 5 }),
        mcpNameOf("tools/call", null),
        mcpNameOf("tools/call", ["x"]),
        mcpNameOf("tools/call", Object.create({ name: "inherited" })),
      ],
      [undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    );
  });

  test("reads a prototype-free params object", () => {
    const params = Object.assign(Object.create(null), { name: "a" });
    assert.equal(mcpNameOf("tools/call", params), "a");
  });
});
