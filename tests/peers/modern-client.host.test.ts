// sluice's modern client against a real 2026-07-28 server (built with the official
// @modelcontextprotocol/server 2.4.0, running as its own process on loopback).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, createClient, type Handler } from "../../mod.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import type { CallToolResult, CreateTaskResult } from "../../src/types.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

const seen: unknown[] = [];
const handler: Handler = {
  elicitationModes: ["form", "url"],
  elicitation: (params, ctx) => {
    if (ctx.mode === "url") {
      seen.push(["url", ctx.url, ctx.host, ctx.idn, ctx.originMismatch]);
      return { action: "accept" };
    }
    seen.push(["form", params.message, { ...ctx.fields }]);
    const properties = Object.keys(
      (params as { requestedSchema: { properties: object } }).requestedSchema.properties,
    );
    if (properties.includes("value")) return { action: "accept", content: { value: `w${seen.length}` } };
    if (properties.includes("ok")) return { action: "accept", content: { ok: true } };
    if (properties.includes("confirm")) return { action: "accept", content: { confirm: true } };
    return { action: "accept", content: { name: "Ada", age: 36 } };
  },
  sampling: (params) => {
    seen.push(["sampling", params.maxTokens]);
    return { role: "assistant", content: { type: "text", text: "canned reply" }, model: "test-model" };
  },
  roots: () => ({
    roots: [{ uri: "file:///srv/project/./src", name: "src" }, { uri: "https://example.com/x" }],
  }),
};

function client(options: { handler?: Handler; samplingTools?: boolean; tasks?: boolean } = {}): Client {
  return createClient({
    name: "peer-test",
    handler: options.handler ?? handler,
    tasks: options.tasks ?? false,
    policies: [{
      server: "modern",
      transport: { url: peer.url },
      era: "modern",
      sampling: { tools: options.samplingTools ?? false },
      elicitation: { allowPrivateHosts: false },
    }],
  });
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

describe("the modern client against a real @modelcontextprotocol/server peer", () => {
  test("completes a form elicitation, applying the schema default the handler left out", async () => {
    seen.length = 0;
    const c = client();
    assert.equal(
      textOf(await c.callTool("modern", "ask_form")),
      JSON.stringify({ name: "Ada", age: 36, subscribe: false }),
    );
    assert.deepEqual(seen, [[
      "form",
      "Tell us about you",
      {
        name: { sensitiveSuspected: false },
        age: { sensitiveSuspected: false },
        subscribe: { sensitiveSuspected: false },
        color: { sensitiveSuspected: false },
      },
    ]]);
  });

  test("sends the handler only the clamped maxTokens 4096 of a 999999-token sampling request", async () => {
    seen.length = 0;
    assert.equal(textOf(await client().callTool("modern", "ask_sampling")), "canned reply");
    assert.deepEqual(seen, [["sampling", 4096]]);
  });

  test("passes an https URL elicitation with its context, and refuses an http one with -32602", async () => {
    seen.length = 0;
    const c = client();
    assert.equal(
      textOf(await c.callTool("modern", "ask_url", { url: "https://login.example.com/start" })),
      "accept",
    );
    assert.deepEqual(seen, [["url", "https://login.example.com/start", "login.example.com", false, true]]);
    const error = await c.callTool("modern", "ask_url", { url: "http://login.example.com/" }).catch((e) => e);
    assert.deepEqual([error instanceof ClientError, error.kind, error.code], [true, "policy", -32602]);
  });

  test("sends only the local file roots, resolved", async () => {
    assert.equal(
      textOf(await client().callTool("modern", "ask_roots")),
      JSON.stringify(["file:///srv/project/src"]),
    );
  });

  test("answers two input requests of one round, three rounds in a row, and a state-only round", async () => {
    seen.length = 0;
    const c = client();
    assert.equal(
      textOf(await c.callTool("modern", "ask_two")),
      JSON.stringify({ action: "accept", content: { ok: true }, text: "canned reply" }),
    );
    assert.equal(textOf(await c.callTool("modern", "ask_three_rounds")), JSON.stringify(["w3", "w4", "w5"]));
    assert.equal(textOf(await c.callTool("modern", "state_only")), "state_only complete");
  });

  test("reads a resource and gets a prompt that each ask for input first", async () => {
    seen.length = 0;
    const c = client();
    const resource = await c.readResource("modern", "demo://greeting");
    assert.deepEqual(resource.contents.map((x) => (x as { text?: string }).text), ["Hello, w1!"]);
    const prompt = await c.getPrompt("modern", "greet");
    assert.deepEqual(prompt.messages.map((m) => (m.content as { text: string }).text), ["Please greet w2."]);
  });

  test("gets the server's -32021 for a capability it did not declare, with requiredCapabilities", async () => {
    const noRoots = client({ handler: { elicitation: () => ({ action: "decline" }) } });
    const error = await noRoots.callTool("modern", "undeclared").catch((e) => e);
    assert.deepEqual([error.kind, error.code, error.data], ["server", -32021, {
      requiredCapabilities: { roots: {} },
    }]);
    const tools = await client().callTool("modern", "needs_sampling_tools").catch((e) => e);
    assert.deepEqual([tools.kind, tools.code], ["server", -32021]);
    assert.equal(
      textOf(await client({ samplingTools: true }).callTool("modern", "needs_sampling_tools")),
      "canned reply",
    );
  });

  test("sends Mcp-Param-Region for the x-mcp-header argument, which the peer checks against the body", async () => {
    await peer.clearRequests();
    const result = await client().callTool("modern", "echo", { region: "eu-west", message: "hi" });
    assert.deepEqual(JSON.parse(textOf(result) ?? ""), { region: "eu-west", message: "hi" });
    const call = (await peer.requests()).find((r) => (r.body as { method?: string }).method === "tools/call");
    assert.deepEqual([call?.headers["mcp-param-region"], call?.headers["mcp-name"], call?.status], [
      "eu-west",
      "echo",
      200,
    ]);
  });

  test("awaits a task that needs input, answering it through tasks/update", async () => {
    seen.length = 0;
    const result = await client({ tasks: true }).callTool("modern", "slow_task", { workMs: 0 });
    assert.deepEqual([textOf(result), (result as { isError?: boolean }).isError], [
      JSON.stringify({ confirm: true }),
      false,
    ]);
    assert.deepEqual(seen.map((s) => (s as unknown[])[0]), ["form"]);
  });

  test("callTool() resolves with the tool's result, typed so; with detachTask, with the task, which awaitTask() awaits", async () => {
    seen.length = 0;
    const tasks = client({ tasks: true });
    const confirmed = [{ type: "text", text: JSON.stringify({ confirm: true }) }];
    // Typed CallToolResult without a cast: callTool() awaits a task unless detachTask.
    const awaited: CallToolResult = await tasks.callTool("modern", "slow_task", { workMs: 0 });
    const detached = await tasks.callTool("modern", "slow_task", { workMs: 0 }, { detachTask: true });
    const task = detached as CreateTaskResult;
    assert.deepEqual([task.resultType, task.status, seen.length], ["task", "working", 1]);
    const result = await tasks.awaitTask("modern", task.taskId);
    assert.deepEqual([awaited.content, result.content, seen.map((s) => (s as unknown[])[0])], [
      confirmed,
      confirmed,
      ["form", "form"],
    ]);
    await tasks.close();
  });

  test("sends a new id on every retry, each carrying only that round's answers", async () => {
    await peer.clearRequests();
    seen.length = 0;
    await client().callTool("modern", "ask_three_rounds");
    const calls = (await peer.requests())
      .map((r) =>
        r.body as { id: number; method: string; params: { requestState?: string; inputResponses?: object } }
      )
      .filter((b) => b.method === "tools/call");
    assert.equal(calls.length, 4);
    assert.equal(new Set(calls.map((c) => c.id)).size, 4);
    assert.deepEqual(calls.map((c) => Object.keys(c.params.inputResponses ?? {})), [[], ["round1"], [
      "round2",
    ], ["round3"]]);
    assert.equal(calls[0]?.params.requestState, undefined);
  });
});
