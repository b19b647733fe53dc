import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mcpRequestHeaders } from "../../../src/protocol/mcp-request-headers.ts";
import {
  compileToolHeaders,
  filterListedTools,
  paramHeaderMismatch,
  type ToolHeader,
  toolParamHeaders,
} from "../../../src/client/modern/tool-headers.ts";

const annotated = (type: string, header: string) => ({ type, "x-mcp-header": header });

// The two tools of the conformance scenario http-custom-headers (SEP-2243).
const CUSTOM_HEADERS_TOOL = {
  name: "test_custom_headers",
  inputSchema: {
    type: "object",
    properties: {
      region: annotated("string", "Region"),
      priority: annotated("integer", "Priority"),
      verbose: annotated("boolean", "Verbose"),
      debug: annotated("boolean", "Debug"),
      empty_val: annotated("string", "EmptyVal"),
      method_val: annotated("string", "Method"),
      float_val: { type: "number" },
      non_ascii_val: annotated("string", "NonAscii"),
      whitespace_val: annotated("string", "Whitespace"),
      leading_space_val: annotated("string", "LeadingSpace"),
      trailing_space_val: annotated("string", "TrailingSpace"),
      internal_space_val: annotated("string", "InternalSpace"),
      control_char_val: annotated("string", "ControlChar"),
      crlf_val: annotated("string", "CrLf"),
      tab_val: annotated("string", "Tab"),
      query: { type: "string" },
    },
    required: ["region", "priority", "query"],
  },
};
const NULL_TOOL = {
  name: "test_custom_headers_null",
  inputSchema: {
    type: "object",
    properties: {
      region: annotated("string", "Region"),
      priority: annotated("integer", "Priority"),
      verbose: annotated("boolean", "Verbose"),
      query: { type: "string" },
    },
    required: ["region", "priority", "query"],
  },
};

function callHeaders(tool: { name: string; inputSchema: unknown }, args: unknown): Record<string, string> {
  const compiled = compileToolHeaders(tool);
  assert.equal(compiled.ok, true);
  const params = toolParamHeaders(compiled.ok ? compiled.headers : [], args);
  if (!Array.isArray(params)) throw new Error(params.error);
  return {
    ...mcpRequestHeaders({ protocolVersion: "2026-07-28", method: "tools/call", name: tool.name, params }),
  };
}

const COMMON = {
  "Content-Type": "application/json",
  "Accept": "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": "tools/call",
};

describe("toolParamHeaders() with mcpRequestHeaders()", () => {
  test("sends exactly the headers http-custom-headers expects for test_custom_headers", () => {
    assert.deepEqual(filterListedTools([CUSTOM_HEADERS_TOOL, NULL_TOOL]).excluded, []);
    const args = {
      region: "us-west1",
      priority: 42,
      verbose: false,
      debug: true,
      empty_val: "",
      method_val: "test-method",
      float_val: 3.14159,
      non_ascii_val: "Hello, 世界",
      whitespace_val: " padded ",
      leading_space_val: " us-west1",
      trailing_space_val: "us-west1 ",
      internal_space_val: "us west 1",
      control_char_val: "line1\nline2",
      crlf_val: "line1\r\nline2",
      tab_val: "\tindented",
      query: "SELECT * FROM users",
    };
    assert.deepEqual(callHeaders(CUSTOM_HEADERS_TOOL, args), {
      ...COMMON,
      "Mcp-Name": "test_custom_headers",
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Priority": "42",
      "Mcp-Param-Verbose": "false",
      "Mcp-Param-Debug": "true",
      "Mcp-Param-EmptyVal": "",
      "Mcp-Param-Method": "test-method",
      "Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-Whitespace": "=?base64?IHBhZGRlZCA=?=",
      "Mcp-Param-LeadingSpace": "=?base64?IHVzLXdlc3Qx?=",
      "Mcp-Param-TrailingSpace": "=?base64?dXMtd2VzdDEg?=",
      "Mcp-Param-InternalSpace": "us west 1",
      "Mcp-Param-ControlChar": "=?base64?bGluZTEKbGluZTI=?=",
      "Mcp-Param-CrLf": "=?base64?bGluZTENCmxpbmUy?=",
      "Mcp-Param-Tab": "=?base64?CWluZGVudGVk?=",
    });
  });

  test("omits Mcp-Param-Verbose for test_custom_headers_null, where verbose is null", () => {
    const args = { region: "us-east1", priority: 1, verbose: null, query: "SELECT 1" };
    assert.deepEqual(callHeaders(NULL_TOOL, args), {
      ...COMMON,
      "Mcp-Name": "test_custom_headers_null",
      "Mcp-Param-Region": "us-east1",
      "Mcp-Param-Priority": "1",
    });
  });
});

describe("toolParamHeaders()", () => {
  const h = (type: ToolHeader["type"], header = "X", path = ["x"]): ToolHeader => ({
    property: path[path.length - 1]!,
    path,
    header,
    type,
  });

  test("omits a header whose argument is absent, null, undefined or inherited", () => {
    const headers = [h("string", "A", ["a"]), h("integer", "B", ["b"]), h("boolean", "C", ["c"])];
    assert.deepEqual(toolParamHeaders(headers, {}), []);
    assert.deepEqual(toolParamHeaders(headers, { a: null, b: undefined }), []);
    assert.deepEqual(toolParamHeaders(headers, Object.create({ a: "inherited" })), []);
    assert.deepEqual(toolParamHeaders(headers, undefined), []);
  });

  test("reads a nested path, omitting the header when a step is missing, null or not an object", () => {
    const headers = [h("string", "Inner", ["outer", "inner"])];
    assert.deepEqual(toolParamHeaders(headers, { outer: { inner: "v" } }), [["Inner", "v"]]);
    assert.deepEqual(
      [{ outer: null }, { outer: "s" }, { outer: ["v"] }, { outer: {} }].map((args) =>
        toolParamHeaders(headers, args)
      ),
      [[], [], [], []],
    );
  });

  test("writes integers in decimal, from -(2^53-1) to 2^53-1, and -0 as 0", () => {
    const headers = [h("integer")];
    assert.deepEqual(
      [42, -7, 0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e3].map((x) =>
        toolParamHeaders(headers, { x })
      ),
      [[["X", "42"]], [["X", "-7"]], [["X", "0"]], [["X", "0"]], [["X", "9007199254740991"]], [[
        "X",
        "-9007199254740991",
      ]], [["X", "1000"]]],
    );
  });

  test("refuses non-integers and integers beyond the safe range for an integer property", () => {
    const what = 'Argument "x" (header "Mcp-Param-X") must be an integer';
    assert.deepEqual(
      [3.5, 2 ** 53, -(2 ** 53), 1e21, Number.NaN, Infinity].map((x) =>
        toolParamHeaders([h("integer")], { x })
      ),
      [
        { error: `${what}, received 3.5` },
        { error: `${what} between -(2^53-1) and 2^53-1, received 9007199254740992` },
        { error: `${what} between -(2^53-1) and 2^53-1, received -9007199254740992` },
        { error: `${what} between -(2^53-1) and 2^53-1, received 1e+21` },
        { error: `${what}, received a non-finite number` },
        { error: `${what}, received a non-finite number` },
      ],
    );
  });

  test("refuses an argument whose type disagrees with the property", () => {
    const what = 'Argument "x" (header "Mcp-Param-X")';
    assert.deepEqual(
      [
        toolParamHeaders([h("integer")], { x: "42" }),
        toolParamHeaders([h("string")], { x: 42 }),
        toolParamHeaders([h("boolean")], { x: "true" }),
        toolParamHeaders([h("string")], { x: { a: 1 } }),
        toolParamHeaders([h("boolean")], { x: [true] }),
      ],
      [
        { error: `${what} must be an integer, received "42"` },
        { error: `${what} must be a string, received 42` },
        { error: `${what} must be a boolean, received "true"` },
        { error: `${what} must be a string, received an object` },
        { error: `${what} must be a boolean, received an array` },
      ],
    );
  });

  test("refuses a string with a lone surrogate, and accepts a surrogate pair", () => {
    assert.deepEqual(toolParamHeaders([h("string")], { x: "a\udc00" }), {
      error:
        'Argument "x" (header "Mcp-Param-X") must be a well-formed string, received one with a lone surrogate',
    });
    assert.deepEqual(toolParamHeaders([h("string")], { x: "\ud800" }), {
      error:
        'Argument "x" (header "Mcp-Param-X") must be a well-formed string, received one with a lone surrogate',
    });
    assert.deepEqual(toolParamHeaders([h("string")], { x: "😀" }), [["X", "😀"]]);
  });

  test("refuses arguments that are not an object", () => {
    assert.deepEqual(
      [null, [], "a"].map((args) => toolParamHeaders([h("string")], args)),
      [
        { error: "Tool arguments must be an object, received null" },
        { error: "Tool arguments must be an object, received an array" },
        { error: 'Tool arguments must be an object, received "a"' },
      ],
    );
  });

  test("reads a prototype-free arguments map, even a __proto__ key, and changes nothing", () => {
    const args = Object.freeze(Object.assign(Object.create(null), { ["__proto__"]: "p" }));
    assert.deepEqual(toolParamHeaders([h("string", "P", ["__proto__"])], args), [["P", "p"]]);
    const plain = Object.freeze(JSON.parse('{"__proto__": "q", "n": 1}'));
    assert.deepEqual(toolParamHeaders([h("string", "P", ["__proto__"]), h("integer", "N", ["n"])], plain), [
      ["P", "q"],
      ["N", "1"],
    ]);
  });
});

describe("paramHeaderMismatch()", () => {
  const rules: ToolHeader[] = [
    { property: "region", path: ["region"], header: "Region", type: "string" },
    { property: "priority", path: ["priority"], header: "Priority", type: "integer" },
    { property: "verbose", path: ["opts", "verbose"], header: "Verbose", type: "boolean" },
  ];
  const check = (args: unknown, sent: Record<string, string>) => {
    const headers = new Headers(sent);
    return paramHeaderMismatch(rules, args, (name) => headers.get(name));
  };

  test("accepts headers that equal the body, in any letter case of the name, base64 decoded", () => {
    const args = { region: "Hello, 世界", priority: 42, opts: { verbose: true } };
    assert.equal(
      check(args, {
        "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "MCP-PARAM-PRIORITY": "42",
        "Mcp-Param-Verbose": "true",
      }),
      undefined,
    );
  });

  test("compares an integer as a number, and ignores headers no rule names", () => {
    const sent = { "Mcp-Param-Region": "us", "Mcp-Param-Priority": "42.0", "Mcp-Param-Other": "x" };
    assert.equal(check({ region: "us", priority: 42 }, sent), undefined);
    assert.equal(
      check({ region: "us", priority: 42 }, { "Mcp-Param-Region": "us", "Mcp-Param-Priority": "0x2a" }),
      'Header mismatch: Mcp-Param-Priority "0x2a" differs from the body\'s argument "priority", "42"',
    );
  });

  test("refuses a header whose value differs from the body's", () => {
    assert.equal(
      check({ region: "us" }, { "Mcp-Param-Region": "eu" }),
      'Header mismatch: Mcp-Param-Region "eu" differs from the body\'s argument "region", "us"',
    );
    assert.equal(
      check({ opts: { verbose: false } }, { "Mcp-Param-Verbose": "False" }),
      'Header mismatch: Mcp-Param-Verbose "False" differs from the body\'s argument "opts.verbose", "false"',
    );
  });

  test("refuses a missing header for an argument with a value, and a header for one without", () => {
    assert.equal(
      check({ region: "us" }, {}),
      'Header mismatch: Mcp-Param-Region is missing, and the body\'s argument "region" has a value',
    );
    assert.equal(
      check({ region: null }, { "Mcp-Param-Region": "us" }),
      'Header mismatch: Mcp-Param-Region "us" was sent, but the body\'s argument "region" has no value',
    );
    assert.equal(check({ region: null }, {}), undefined);
    assert.equal(check(undefined, {}), undefined);
  });

  test("refuses a header that is not valid base64 of UTF-8", () => {
    for (const sent of ["=?base64?SGVsbG8?=", "=?base64?SGVsbG8*?=", "=?base64?/w==?="]) {
      assert.equal(
        check({ region: "Hello" }, { "Mcp-Param-Region": sent }),
        `Header mismatch: Mcp-Param-Region ${
          JSON.stringify(sent)
        } is not a valid value: expected visible ASCII, or "=?base64?…?=" holding Base64 of UTF-8`,
      );
    }
  });

  test("leaves an argument of the wrong type to the call, which refuses it", () => {
    assert.equal(check({ priority: "high" }, {}), undefined);
  });
});
