import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileToolHeaders, filterListedTools } from "../../../src/client/modern/tool-headers.ts";

const tool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: "t",
  inputSchema: { type: "object", properties, ...extra },
});
const reason = (listed: { readonly inputSchema: unknown }) => {
  const compiled = compileToolHeaders({ name: "t", inputSchema: listed.inputSchema });
  return compiled.ok ? "valid" : compiled.reason;
};
const str = (name: unknown) => ({ type: "string", "x-mcp-header": name });

// The tools of the conformance scenario http-invalid-tool-headers (SEP-2243): one valid tool
// among ten whose annotations each break one constraint.
const CONFORMANCE_TOOLS = [
  {
    name: "valid_tool",
    inputSchema: { type: "object", properties: { region: str("Region") }, required: ["region"] },
  },
  { name: "invalid_empty_header", inputSchema: { type: "object", properties: { value: str("") } } },
  {
    name: "invalid_object_header",
    inputSchema: { type: "object", properties: { data: { type: "object", "x-mcp-header": "Data" } } },
  },
  {
    name: "invalid_array_header",
    inputSchema: {
      type: "object",
      properties: { items: { type: "array", items: { type: "string" }, "x-mcp-header": "Items" } },
    },
  },
  {
    name: "invalid_null_header",
    inputSchema: { type: "object", properties: { nil: { type: "null", "x-mcp-header": "Nil" } } },
  },
  {
    name: "invalid_duplicate_same_case",
    inputSchema: { type: "object", properties: { field1: str("Region"), field2: str("Region") } },
  },
  {
    name: "invalid_duplicate_diff_case",
    inputSchema: { type: "object", properties: { field1: str("MyField"), field2: str("myfield") } },
  },
  { name: "invalid_space_in_name", inputSchema: { type: "object", properties: { value: str("My Region") } } },
  {
    name: "invalid_colon_in_name",
    inputSchema: { type: "object", properties: { value: str("Region:Primary") } },
  },
  { name: "invalid_non_ascii_name", inputSchema: { type: "object", properties: { value: str("Région") } } },
  {
    name: "invalid_control_char_name",
    inputSchema: { type: "object", properties: { value: str("Region\t1") } },
  },
];

const TOKEN_HINT = "must be an RFC 9110 token (ASCII letters, digits, !#$%&'*+-.^_`|~)";
const PRIMITIVE_HINT =
  'must be on a property of type "string", "integer" or "boolean" (alone or with "null")';
const UNREACHABLE = 'must be on a property reached from the root through "properties" alone';

describe("filterListedTools()", () => {
  test("keeps valid_tool and excludes the ten invalid tools of http-invalid-tool-headers, saying why", () => {
    const { tools, excluded } = filterListedTools(CONFORMANCE_TOOLS);
    assert.deepEqual(tools, [CONFORMANCE_TOOLS[0]]);
    assert.equal(tools[0], CONFORMANCE_TOOLS[0]);
    assert.deepEqual(excluded, [
      { name: "invalid_empty_header", reason: 'x-mcp-header at "$.properties.value" must not be empty' },
      {
        name: "invalid_object_header",
        reason: `x-mcp-header "Data" at "$.properties.data" ${PRIMITIVE_HINT}, received "object"`,
      },
      {
        name: "invalid_array_header",
        reason: `x-mcp-header "Items" at "$.properties.items" ${PRIMITIVE_HINT}, received "array"`,
      },
      {
        name: "invalid_null_header",
        reason: `x-mcp-header "Nil" at "$.properties.nil" ${PRIMITIVE_HINT}, received "null"`,
      },
      {
        name: "invalid_duplicate_same_case",
        reason:
          'x-mcp-header "Region" at "$.properties.field2" repeats x-mcp-header "Region" at "$.properties.field1" (header names ignore letter case)',
      },
      {
        name: "invalid_duplicate_diff_case",
        reason:
          'x-mcp-header "myfield" at "$.properties.field2" repeats x-mcp-header "MyField" at "$.properties.field1" (header names ignore letter case)',
      },
      {
        name: "invalid_space_in_name",
        reason: `x-mcp-header "My Region" at "$.properties.value" ${TOKEN_HINT}`,
      },
      {
        name: "invalid_colon_in_name",
        reason: `x-mcp-header "Region:Primary" at "$.properties.value" ${TOKEN_HINT}`,
      },
      {
        name: "invalid_non_ascii_name",
        reason: `x-mcp-header "Région" at "$.properties.value" ${TOKEN_HINT}`,
      },
      {
        name: "invalid_control_char_name",
        reason: 'x-mcp-header "Region\\t1" at "$.properties.value" must not contain control characters',
      },
    ]);
  });

  test("modifies neither the list nor any tool", () => {
    const listed = structuredClone(CONFORMANCE_TOOLS);
    const frozen = Object.freeze(listed.map((entry) => deepFreeze(entry)));
    filterListedTools(frozen);
    assert.deepEqual(listed, CONFORMANCE_TOOLS);
  });
});

describe("compileToolHeaders()", () => {
  test("compiles string, integer and boolean headers in document order, frozen", () => {
    const compiled = compileToolHeaders(tool({
      region: str("Region"),
      query: { type: "string" },
      priority: { type: "integer", "x-mcp-header": "Priority" },
      verbose: { type: ["boolean", "null"], "x-mcp-header": "Verbose" },
      method_val: str("Method"),
    }));
    assert.deepEqual(compiled, {
      ok: true,
      headers: [
        { property: "region", path: ["region"], header: "Region", type: "string" },
        { property: "priority", path: ["priority"], header: "Priority", type: "integer" },
        { property: "verbose", path: ["verbose"], header: "Verbose", type: "boolean" },
        { property: "method_val", path: ["method_val"], header: "Method", type: "string" },
      ],
    });
    assert.equal(
      compiled.ok && Object.isFrozen(compiled.headers) && Object.isFrozen(compiled.headers[0]),
      true,
    );
  });

  test("accepts a nested property reached through properties alone, and a property named properties", () => {
    const compiled = compileToolHeaders(tool({
      outer: {
        type: "object",
        properties: { inner: str("Inner"), properties: { type: "integer", "x-mcp-header": "P" } },
      },
    }));
    assert.deepEqual(compiled.ok && compiled.headers.map((header) => [header.path, header.property]), [
      [["outer", "inner"], "inner"],
      [["outer", "properties"], "properties"],
    ]);
  });

  test("accepts every tchar and a tool without annotations or without inputSchema properties", () => {
    assert.equal(reason(tool({ v: str("!#$%&'*+-.^_`|~09azAZ") })), "valid");
    assert.deepEqual(compileToolHeaders(tool({ q: { type: "string" } })), { ok: true, headers: [] });
    assert.deepEqual(compileToolHeaders({ name: "t", inputSchema: { type: "object" } }), {
      ok: true,
      headers: [],
    });
    assert.deepEqual(compileToolHeaders({ name: "t", inputSchema: undefined }), { ok: true, headers: [] });
  });

  test("refuses type number, with or without null, and a non-primitive union", () => {
    assert.deepEqual(
      [
        reason(tool({ f: { type: "number", "x-mcp-header": "F" } })),
        reason(tool({ f: { type: ["number", "null"], "x-mcp-header": "F" } })),
        reason(tool({ f: { type: ["string", "integer"], "x-mcp-header": "F" } })),
        reason(tool({ f: { "x-mcp-header": "F" } })),
        reason(tool({ f: { enum: ["a"], "x-mcp-header": "F" } })),
      ],
      [
        'x-mcp-header "F" at "$.properties.f" is on a property of type "number", which is not permitted (use "integer")',
        'x-mcp-header "F" at "$.properties.f" is on a property of type "number", which is not permitted (use "integer")',
        `x-mcp-header "F" at "$.properties.f" ${PRIMITIVE_HINT}, received ["string","integer"]`,
        `x-mcp-header "F" at "$.properties.f" ${PRIMITIVE_HINT}, received no type`,
        `x-mcp-header "F" at "$.properties.f" ${PRIMITIVE_HINT}, received no type`,
      ],
    );
  });

  test("refuses an annotation that is not a string, or holds CR, LF, NUL or DEL", () => {
    assert.deepEqual(
      [5, "A\r\nB", "A\x00", "A\x7f"].map((name) => reason(tool({ v: str(name) }))),
      [
        'x-mcp-header at "$.properties.v" must be a string, received 5',
        'x-mcp-header "A\\r\\nB" at "$.properties.v" must not contain control characters',
        'x-mcp-header "A\\u0000" at "$.properties.v" must not contain control characters',
        'x-mcp-header "A\\u007f" at "$.properties.v" must not contain control characters',
      ],
    );
  });

  // The 2026-07-28 text: the chain "MUST NOT pass through items (or any other array keyword),
  // composition keywords, conditional keywords, or $ref".
  const unreachable: Array<[string, { readonly inputSchema: unknown }, string]> = [
    ["items", tool({ xs: { type: "array", items: str("H") } }), "$.properties.xs.items"],
    [
      "prefixItems",
      tool({ xs: { type: "array", prefixItems: [str("H")] } }),
      "$.properties.xs.prefixItems[0]",
    ],
    [
      "items of objects",
      tool({ xs: { type: "array", items: { type: "object", properties: { h: str("H") } } } }),
      "$.properties.xs.items.properties.h",
    ],
    ["allOf", tool({}, { allOf: [{ properties: { a: str("H") } }] }), "$.allOf[0].properties.a"],
    ["anyOf", tool({ a: { anyOf: [str("H"), { type: "null" }] } }), "$.properties.a.anyOf[0]"],
    ["oneOf", tool({}, { oneOf: [{ properties: { a: str("H") } }] }), "$.oneOf[0].properties.a"],
    ["not", tool({ a: { not: str("H") } }), "$.properties.a.not"],
    ["if", tool({}, { if: { properties: { a: str("H") } } }), "$.if.properties.a"],
    ["then", tool({}, { then: { properties: { a: str("H") } } }), "$.then.properties.a"],
    ["else", tool({}, { else: { properties: { a: str("H") } } }), "$.else.properties.a"],
    ["$defs behind $ref", tool({ a: { $ref: "#/$defs/h" } }, { $defs: { h: str("H") } }), "$.$defs.h"],
    ["definitions", tool({}, { definitions: { h: str("H") } }), "$.definitions.h"],
    ["additionalProperties", tool({}, { additionalProperties: str("H") }), "$.additionalProperties"],
    ["patternProperties", tool({}, { patternProperties: { "^a": str("H") } }), '$.patternProperties["^a"]'],
    [
      "dependentSchemas",
      tool({}, { dependentSchemas: { a: { properties: { b: str("H") } } } }),
      "$.dependentSchemas.a.properties.b",
    ],
    [
      "an unknown keyword",
      tool({}, { "x-vendor": { properties: { a: str("H") } } }),
      '$["x-vendor"].properties.a',
    ],
    ["the root", { inputSchema: { type: "string", "x-mcp-header": "H" } }, "$"],
  ];
  for (const [where, schema, path] of unreachable) {
    test(`refuses an annotation reached through ${where}`, () => {
      assert.equal(reason(schema), `x-mcp-header "H" at "${path}" ${UNREACHABLE}`);
    });
  }

  test("reads x-mcp-header as a property name or inside const, enum, default and examples as data", () => {
    assert.deepEqual(
      compileToolHeaders(tool({
        "x-mcp-header": { type: "string" },
        c: { type: "object", const: { "x-mcp-header": "A" }, default: { "x-mcp-header": "B" } },
        e: { type: "object", enum: [{ "x-mcp-header": "C" }], examples: [{ "x-mcp-header": "D" }] },
      })),
      { ok: true, headers: [] },
    );
  });

  test("counts duplicates across nested and unreachable annotations, and reports every problem", () => {
    assert.equal(
      reason(
        tool({
          a: str("X"),
          o: { type: "object", properties: { b: str("x") } },
          n: { type: "number", "x-mcp-header": "" },
        }),
      ),
      'x-mcp-header at "$.properties.n" must not be empty; ' +
        'x-mcp-header "x" at "$.properties.o.properties.b" repeats x-mcp-header "X" at "$.properties.a" (header names ignore letter case)',
    );
  });

  test("never follows $ref: a remote reference is not fetched and the sibling type decides", () => {
    const realFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = () => {
      fetched++;
      return Promise.reject(new Error("no fetch"));
    };
    try {
      const compiled = compileToolHeaders(
        tool({ r: { $ref: "https://example.invalid/s.json", type: "string", "x-mcp-header": "R" } }),
      );
      assert.deepEqual(compiled, {
        ok: true,
        headers: [{ property: "r", path: ["r"], header: "R", type: "string" }],
      });
      assert.equal(fetched, 0);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  test("walks 20 000 nested levels without recursion and refuses a cyclic schema", () => {
    let schema: Record<string, unknown> = str("Deep");
    for (let i = 0; i < 20_000; i++) schema = { type: "object", properties: { a: schema } };
    const compiled = compileToolHeaders({ name: "t", inputSchema: schema });
    assert.deepEqual(compiled.ok && [compiled.headers.length, compiled.headers[0]?.path.length], [1, 20_000]);
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic["properties"] = { self: cyclic };
    assert.equal(reason({ inputSchema: cyclic }), "inputSchema has more than 100000 nodes");
  });

  test("refuses a schema that throws when read", () => {
    const hostile = {
      type: "object",
      get properties(): never {
        throw new RangeError("boom");
      },
    };
    assert.equal(reason({ inputSchema: hostile }), "inputSchema could not be read (it threw RangeError)");
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
