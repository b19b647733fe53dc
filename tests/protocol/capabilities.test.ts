import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ClientCapabilities,
  decodeClientCapabilities,
  encodeClientCapabilities,
  ServerCapabilitiesSchema,
} from "../../src/protocol/capabilities.ts";
import { decode } from "../../src/protocol/decode.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";
import { schemaErrors } from "./_official-schema.ts";

const EVERYTHING: ClientCapabilities = {
  experimental: np({ "com.example/x": { on: true } }),
  roots: { listChanged: true },
  sampling: { context: {}, tools: {} },
  elicitation: { form: {}, url: {} },
  tasks: { cancel: {}, requests: { elicitation: { create: {} } } },
  extensions: np({ "io.modelcontextprotocol/tasks": {} }),
};

describe("decodeClientCapabilities()", () => {
  test("keeps only what 2026-07-28 defines: no roots.listChanged, no tasks, extensions kept", () => {
    same(decodeClientCapabilities("2026-07-28", EVERYTHING), {
      ok: true,
      value: {
        experimental: np({ "com.example/x": { on: true } }),
        roots: {},
        sampling: { context: {}, tools: {} },
        elicitation: { form: {}, url: {} },
        extensions: np({ "io.modelcontextprotocol/tasks": {} }),
      },
    });
  });

  test("keeps only what 2025-06-18 defines: bare sampling and elicitation, no tasks or extensions", () => {
    same(decodeClientCapabilities("2025-06-18", EVERYTHING), {
      ok: true,
      value: {
        experimental: np({ "com.example/x": { on: true } }),
        roots: { listChanged: true },
        sampling: {},
        elicitation: {},
      },
    });
  });

  test("keeps tasks in 2025-11-25 and drops extensions", () => {
    const result = decodeClientCapabilities("2025-11-25", EVERYTHING);
    same(result.ok && [result.value.tasks, result.value.extensions], [
      { cancel: {}, requests: { elicitation: { create: {} } } },
      undefined,
    ]);
  });

  test("refuses an array where elicitation.form expects an object at $.elicitation.form", () => {
    same(decodeClientCapabilities("2025-11-25", { elicitation: { form: [] } }), {
      ok: false,
      path: "$.elicitation.form",
      expected: "Object",
      received: "Array",
      message: "$.elicitation.form: expected Object, received Array",
    });
  });

  test("refuses a non-boolean roots.listChanged at $.roots.listChanged", () => {
    same(decodeClientCapabilities("2025-06-18", { roots: { listChanged: "yes" } }), {
      ok: false,
      path: "$.roots.listChanged",
      expected: "boolean",
      received: '"yes"',
      message: '$.roots.listChanged: expected boolean, received "yes"',
    });
  });
});

describe("encodeClientCapabilities()", () => {
  test("projects the superset onto each version and validates against its official schema", () => {
    const modern = encodeClientCapabilities("2026-07-28", EVERYTHING);
    same(modern, {
      experimental: { "com.example/x": { on: true } },
      roots: {},
      sampling: { context: {}, tools: {} },
      elicitation: { form: {}, url: {} },
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
    const november = encodeClientCapabilities("2025-11-25", EVERYTHING);
    same(november, {
      experimental: { "com.example/x": { on: true } },
      roots: { listChanged: true },
      sampling: { context: {}, tools: {} },
      elicitation: { form: {}, url: {} },
      tasks: { cancel: {}, requests: { elicitation: { create: {} } } },
    });
    const june = encodeClientCapabilities("2025-06-18", EVERYTHING);
    same(june, {
      experimental: { "com.example/x": { on: true } },
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
    });
    same([
      ...schemaErrors("2026-07-28", "ClientCapabilities", modern),
      ...schemaErrors("2025-11-25", "ClientCapabilities", november),
      ...schemaErrors("2025-06-18", "ClientCapabilities", june),
    ], []);
  });

  test("leaves elicitation out of 2025-06-18 when only URL mode is declared ({} would mean form)", () => {
    same(encodeClientCapabilities("2025-06-18", { elicitation: { url: {} } }), {});
    same(encodeClientCapabilities("2025-06-18", { elicitation: {} }), { elicitation: {} });
  });

  test("never returns or mutates its input", () => {
    const input: ClientCapabilities = { roots: {}, sampling: { tools: {} } };
    const before = structuredClone(input);
    const out = encodeClientCapabilities("2025-11-25", input);
    assert.notEqual(out, input);
    assert.notEqual(out.sampling, input.sampling);
    same(input, before);
  });
});

// Server capabilities as `server/discover` and `initialize` results decode them.
describe("ServerCapabilitiesSchema", () => {
  const decodeServerCapabilities = (value: unknown) => decode(ServerCapabilitiesSchema, value);

  test("keeps unknown keys and 2025-11-25 tasks, and reads extensions", () => {
    same(
      decodeServerCapabilities({
        tools: { listChanged: true, future: 1 },
        tasks: { requests: { tools: { call: {} } } },
        extensions: { "io.modelcontextprotocol/tasks": {} },
        "com.example/other": { x: 1 },
      }),
      {
        ok: true,
        value: {
          tools: { listChanged: true, future: 1 },
          tasks: { requests: { tools: { call: {} } } },
          extensions: np({ "io.modelcontextprotocol/tasks": {} }),
          "com.example/other": { x: 1 },
        },
      },
    );
  });

  test("refuses a non-object extension setting at its key path", () => {
    const result = decodeServerCapabilities({ extensions: { "io.modelcontextprotocol/tasks": true } });
    same(result, failureAt('$.extensions["io.modelcontextprotocol/tasks"]', "Object", "true"));
  });
});
