// The modern client against a hostile modern server (a real process on loopback): garbage bodies,
// endless input_required, duplicate and __proto__ keys, answers for the wrong id, a connection
// reset mid-stream and a slow-loris answer. After each, the same client still completes a call.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, createClient, type Handler, type Policy } from "../../src/legacy.ts";
import type { HostileModernLog } from "../_support/hostile-modern-server.ts";
import { eventually } from "../_support/eventually.ts";
import { failure, stillWorks } from "./_kit.ts";
import { type HostileHttpServer, startHostileHttp } from "../_support/hostile-process.ts";

let server: HostileHttpServer<HostileModernLog>;
before(async () => {
  server = await startHostileHttp("hostile-modern-server.ts");
});
after(async () => {
  await server?.stop();
});

const ROOTS = { roots: [{ uri: "file:///srv/project", name: "project" }] };

function client(handler: Handler, policy: Partial<Policy> = {}): Client {
  return createClient({
    name: "hostile-test",
    handler,
    policies: [{ server: "hostile", transport: { url: server.url }, era: "modern", ...policy }],
  });
}

/** The id of the last tools/call of `tool` the server received. */
async function lastId(tool: string): Promise<unknown> {
  return (await server.log()).filter((entry) => entry.tool === tool).at(-1)?.id;
}

const PROTOCOL = 'Server "hostile" broke the protocol in its answer to tools/call: ';

describe("a modern client against a hostile modern server", () => {
  test("fails a garbage JSON body and a garbage SSE event with kind protocol, then still works", async () => {
    const c = client({});
    assert.deepEqual(await failure(c.callTool("hostile", "garbage_json")), {
      kind: "protocol",
      code: undefined,
      message:
        `${PROTOCOL}JSON response body: $: expected JSON text, received text that is not JSON (40 characters)`,
    });
    assert.deepEqual(await failure(c.callTool("hostile", "garbage_sse")), {
      kind: "protocol",
      code: undefined,
      message:
        `${PROTOCOL}SSE event data: $: expected JSON text, received text that is not JSON (17 characters)`,
    });
    await stillWorks(c);
    await c.close();
  });

  test("stops input_required forever at maxRounds 4 with rounds_exceeded, after 4 rounds answered (5 requests)", async () => {
    await server.clearLog();
    let asked = 0;
    const c = client({ roots: () => (asked++, ROOTS) }, { maxRounds: 4 });
    const error = await c.callTool("hostile", "forever").catch((e: unknown) => e);
    assert.ok(error instanceof ClientError);
    assert.deepEqual([error.kind, error.message, error.data], [
      "rounds_exceeded",
      'Server "hostile" still asked for input after 4 rounds of tools/call (maxRounds 4)',
      {
        resultType: "input_required",
        inputRequests: { roots: { method: "roots/list" } },
        requestState: "round-5",
      },
    ]);
    const calls = (await server.log()).filter((entry) => entry.tool === "forever");
    assert.deepEqual(calls.map((entry) => [entry.requestState, entry.inputResponseKeys]), [
      [null, null],
      ["round-1", ["roots"]],
      ["round-2", ["roots"]],
      ["round-3", ["roots"]],
      ["round-4", ["roots"]],
    ]);
    assert.equal(asked, 4);
    await stillWorks(c);
    await c.close();
  });

  test("keeps __proto__ and constructor as ordinary keys of a result, takes the last of duplicate keys, pollutes nothing", async () => {
    const c = client({});
    const result = await c.callTool("hostile", "proto_result") as unknown as Record<string, unknown>;
    assert.deepEqual(JSON.parse(JSON.stringify(result)), {
      content: [{ type: "text", text: "second" }],
      structuredContent: {
        ["__proto__"]: { polluted: "yes" },
        constructor: { prototype: { polluted: "yes" } },
        n: 2,
      },
      resultType: "complete",
      _meta: { ["__proto__"]: { polluted: "yes" } },
    });
    const structured = result.structuredContent as Record<string, unknown>;
    assert.deepEqual(Object.keys(structured), ["__proto__", "constructor", "n"]);
    assert.equal(Object.hasOwn(structured, "__proto__"), true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    await stillWorks(c);
    await c.close();
  });

  test("answers inputRequests keyed __proto__, constructor and a duplicate key as ordinary keys, pollutes nothing", async () => {
    await server.clearLog();
    const seen: unknown[] = [];
    let elicited = 0;
    const c = client({
      roots: (ctx) => (seen.push(ctx.serverId), ROOTS),
      elicitation: () => (elicited++, { action: "decline" }),
    });
    const result = await c.callTool("hostile", "proto_inputs") as unknown as Record<string, unknown>;
    // The duplicate "dup" is the last one sent (roots), as JSON.parse reads it; the form is never asked.
    assert.deepEqual([seen, elicited], [["hostile", "hostile", "hostile"], 0]);
    const retry = (await server.log()).filter((entry) => entry.tool === "proto_inputs");
    assert.deepEqual(retry.map((entry) => entry.inputResponseKeys), [null, [
      "__proto__",
      "constructor",
      "dup",
    ]]);
    const echoed = (result.structuredContent as { inputResponses: Record<string, unknown> }).inputResponses;
    assert.deepEqual(Object.keys(echoed), ["__proto__", "constructor", "dup"]);
    assert.deepEqual(JSON.parse(JSON.stringify(echoed)), {
      ["__proto__"]: { roots: ROOTS.roots },
      constructor: { roots: ROOTS.roots },
      dup: { roots: ROOTS.roots },
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    await stillWorks(c);
    await c.close();
  });

  test("fails a result for the wrong id (id + 1000 as JSON and SSE, the id as a string) with kind protocol", async () => {
    const c = client({});
    const wrongJson = await failure(c.callTool("hostile", "wrong_id_json"));
    const jsonId = await lastId("wrong_id_json") as number;
    assert.deepEqual(wrongJson, {
      kind: "protocol",
      code: undefined,
      message:
        `${PROTOCOL}JSON response body: expected the response to request ${jsonId}, received a response to request ${
          jsonId + 1000
        }`,
    });
    const wrongSse = await failure(c.callTool("hostile", "wrong_id_sse"));
    const sseId = await lastId("wrong_id_sse") as number;
    assert.deepEqual(wrongSse, {
      kind: "protocol",
      code: undefined,
      message:
        `${PROTOCOL}SSE event: expected the response to request ${sseId}, received a response to request ${
          sseId + 1000
        }`,
    });
    const asString = await failure(c.callTool("hostile", "string_id"));
    const stringId = await lastId("string_id") as number;
    assert.deepEqual(asString, {
      kind: "protocol",
      code: undefined,
      message:
        `${PROTOCOL}JSON response body: expected the response to request ${stringId}, received a response to request "${stringId}"`,
    });
    await stillWorks(c);
    await c.close();
  });

  test("re-issues a call whose SSE stream is reset once, with a new id; fails with transport when reset twice", async () => {
    await server.clearLog();
    const c = client({});
    const once = await c.callTool("hostile", "reset_once");
    assert.deepEqual(once, { content: [{ type: "text", text: "call 2" }], resultType: "complete" });
    const always = await failure(c.callTool("hostile", "reset_always"));
    const log = await server.log();
    const ids = (tool: string) =>
      log.filter((entry) => entry.tool === tool).map((entry) => entry.id as number);
    const [first, second] = ids("reset_always");
    assert.equal(ids("reset_once").length, 2);
    assert.equal(new Set(ids("reset_once")).size, 2);
    assert.equal(ids("reset_always").length, 2);
    assert.deepEqual([always.kind, always.code], ["transport", undefined]);
    assert.match(
      always.message,
      new RegExp(
        `^Server "hostile": the response to tools/call broke off twice \\(SSE stream failed before the response to request ${second}: .+\\)$`,
      ),
    );
    assert.notEqual(first, second);
    await stillWorks(c);
    await c.close();
  });

  test(
    "ends a slow-loris answer (JSON and SSE, a byte per 100 ms) at callTimeout 1s, other calls unaffected",
    {
      timeout: 30_000,
    },
    async () => {
      await server.clearLog();
      const c = client({}, { callTimeout: "1s" });
      for (const tool of ["slow_json", "slow_sse"]) {
        const started = performance.now();
        const slow = failure(c.callTool("hostile", tool));
        // Calls made while the slow one hangs complete normally.
        await stillWorks(c);
        await stillWorks(c);
        assert.deepEqual(await slow, {
          kind: "timeout",
          code: undefined,
          message: 'Server "hostile": no response to tools/call within 1000 ms (callTimeout)',
        });
        assert.ok(performance.now() - started < 10_000, `${tool} took over 10 s`);
        // The client let go of the connection: the server saw it close before the answer ended.
        await eventually(`the server seeing ${tool} closed`, async () => {
          const entry = (await server.log()).find((e) => e.tool === tool);
          return entry?.closedEarly === true ? true : undefined;
        });
      }
      await stillWorks(c);
      await c.close();
    },
  );
});
