// The Handler type as a user writes it, under the project's exactOptionalPropertyTypes: every
// callback may be written as undefined (`sampling: llm === undefined ? undefined : ask`), as the
// client takes it. The file fails to compile when a callback's type leaves undefined out; the
// test shows the runtime agrees: the same capabilities declared, the same answers and refusals.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineHandler, type Handler } from "../../mod.ts";
import { createChain } from "../../src/chain/chain.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";

const roots = () => ({ roots: [{ uri: "file:///srv/project" }] });
const handler: Handler = {
  sampling: undefined,
  elicitationModes: undefined,
  elicitation: undefined,
  roots,
  notification: undefined,
  log: undefined,
  authorize: undefined,
};

/** What a chain of `handler` declares in each era, and answers to sampling and roots. */
async function behaviour(of: Handler): Promise<unknown[]> {
  const chain = createChain({
    policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }),
    handler: of,
    client: "agent",
    store: createMemoryStore(),
  });
  const sampling = {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 100 },
  } as InputRequest;
  return [
    chain.capabilities("2026-07-28"),
    chain.capabilities("2025-06-18"),
    await chain.run(sampling, { version: "2026-07-28" }),
    await chain.run({ method: "roots/list", params: {} }, { version: "2026-07-28" }),
  ];
}

describe("Handler", () => {
  test("Handler takes every callback written as undefined as left out: declared, answered and refused as { roots } alone", async () => {
    assert.equal(defineHandler(handler), handler);
    const expected = [
      { roots: {} },
      { roots: { listChanged: true } },
      {
        ok: false,
        stage: "capability",
        refusal: {
          code: -32601,
          message: "Input request refused: this client did not declare the sampling capability",
        },
      },
      { ok: true, answer: { roots: [{ uri: "file:///srv/project" }] } },
    ];
    assert.deepEqual([await behaviour(handler), await behaviour({ roots })], [expected, expected]);
  });
});
