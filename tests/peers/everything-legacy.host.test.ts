// The legacy client (@sluice/mcp/legacy) against the official server-everything 2026.8.31, which
// speaks 2025-11-25, over stdio and over Streamable HTTP: the same flows on both transports.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, createClient, type Handler, type Policy } from "../../src/legacy.ts";
import {
  EVERYTHING_FORM_FIELDS,
  everythingStdioCommand,
  startEverythingHttp,
} from "../_support/everything.ts";

let http: { url: string; stop(): Promise<void> } | undefined;
before(async () => {
  http = await startEverythingHttp();
});
after(async () => {
  await http?.stop();
});

const seen: unknown[] = [];
let formAnswer: unknown = { action: "decline" };
const handler: Handler = {
  sampling: (params, ctx) => {
    seen.push(["sampling", params.maxTokens, ctx.era, typeof ctx.relatedRequestId]);
    return { role: "assistant", content: { type: "text", text: "canned reply" }, model: "test-model" };
  },
  elicitationModes: ["form", "url"],
  elicitation: (params, ctx) => {
    if (ctx.mode === "url") {
      seen.push(["url", ctx.url, ctx.host]);
      return { action: "accept" };
    }
    seen.push(["form", { ...ctx.fields }]);
    const props = Object.keys(
      (params as { requestedSchema: { properties: object } }).requestedSchema.properties,
    );
    return props.includes("interpretation")
      ? { action: "accept", content: { interpretation: "technical" } }
      : formAnswer as never;
  },
  roots: () => ({
    roots: [{ uri: "file:///srv/project/./docs", name: "docs" }, { uri: "https://example.com/repo" }],
  }),
};

function client(transport: Policy["transport"]): Client {
  return createClient({
    name: "legacy-test",
    handler,
    policies: [{ server: "everything", transport, era: "legacy" }],
  });
}

const text = (result: unknown) =>
  (result as { content: { text: string }[] }).content.map((c) => c.text).join("\n");

for (const name of ["stdio", "HTTP"] as const) {
  describe(`the legacy client against server-everything over ${name}`, () => {
    const transport = () => name === "stdio" ? everythingStdioCommand() : { url: http?.url ?? "" };

    test("clamps trigger-sampling-request's maxTokens 999999 to 4096 before the handler", async () => {
      seen.length = 0;
      const c = client(transport());
      const result = await c.callTool("everything", "trigger-sampling-request", {
        prompt: "hi",
        maxTokens: 999_999,
      });
      assert.match(text(result), /canned reply/);
      assert.deepEqual(seen, [["sampling", 4096, "legacy", "number"]]);
      await c.close();
    });

    test("hands trigger-elicitation-request's 13-field form to the handler with its fields, and applies defaults", async () => {
      seen.length = 0;
      formAnswer = {
        action: "accept",
        content: { name: "Ada Lovelace", check: true, email: "ada@example.com" },
      };
      const c = client(transport());
      const result = text(await c.callTool("everything", "trigger-elicitation-request"));
      assert.deepEqual(seen, [[
        "form",
        Object.fromEntries(EVERYTHING_FORM_FIELDS.map((f) => [f, { sensitiveSuspected: false }])),
      ]]);
      for (
        const fragment of [
          '"name": "Ada Lovelace"',
          '"firstLine": "It was a dark and stormy night."',
          '"integer": 42',
        ]
      ) {
        assert.ok(result.includes(fragment), `${fragment} in ${result}`);
      }
      await c.close();
    });

    test("refuses an accepted answer that breaks the form with -32603, which the server reports", async () => {
      formAnswer = { action: "accept", content: { name: "Ada", integer: 1000 } };
      const c = client(transport());
      const result = text(await c.callTool("everything", "trigger-elicitation-request"));
      assert.match(result, /-32603/);
      assert.match(result, /Elicitation answer refused: field "integer"/);
      await c.close();
    });

    test("refuses an http: URL elicitation with -32602 and accepts an https: one, through the -32042 path too", async () => {
      seen.length = 0;
      const c = client(transport());
      const refused = await c.callTool("everything", "trigger-url-elicitation", {
        url: "http://login.example.com/",
        message: "m",
      });
      assert.match(text(refused), /-32602.*expected the scheme "https", received "http"/);
      await c.callTool("everything", "trigger-url-elicitation", {
        url: "https://login.example.com/x",
        message: "m",
      });
      const viaError = await c.callTool("everything", "trigger-url-elicitation", {
        url: "https://login.example.com/y",
        message: "m",
        errorPath: true,
        elicitationId: `e-${name}`,
      });
      assert.match(text(viaError), new RegExp(`Elicitation ID: e-${name}`));
      assert.deepEqual(seen.map((s) => (s as unknown[])[1]), [
        "https://login.example.com/x",
        "https://modelcontextprotocol.io/",
        "https://login.example.com/y",
      ]);
      await c.close();
    });

    test("sends get-roots-list only the local file roots", async () => {
      const c = client(transport());
      const result = text(await c.callTool("everything", "get-roots-list"));
      assert.match(result, /URI: file:\/\/\/srv\/project\/docs/);
      assert.doesNotMatch(result, /example\.com/);
      assert.match(result, /Current MCP Roots \(1 total\)/);
      await c.close();
    });

    test("completes the task tool simulate-research-query, answering its clarification", async () => {
      const c = client(transport());
      const result = text(
        await c.callTool("everything", "simulate-research-query", { topic: "tides", ambiguous: true }),
      );
      assert.match(result, /Research Report: tides/);
      assert.match(result, /technical/);
      assert.doesNotMatch(result, /elicitation unavailable/);
      await c.close();
    });
  });
}

describe("server-everything's logs over stdio", () => {
  test('arrive sanitized with a level from the RFC 5424 set, and its stderr lines as "stderr" entries', async () => {
    const levels = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
    const c = createClient({
      name: "log-test",
      handler: { log: () => {} },
      policies: [{
        server: "everything",
        transport: everythingStdioCommand(),
        era: "legacy",
        logLevel: "debug",
      }],
    });
    const simulated = new Promise<{ level: string; data: unknown }>((resolve) => {
      c.onNotification((entry) => {
        if (entry.kind === "log" && /-level message|level-message/.test(String(entry.log.data))) {
          resolve(entry.log);
        }
      });
    });
    const stderr: unknown[] = [];
    c.onNotification((entry) =>
      void (entry.kind === "log" && entry.log.logger === "stderr" && stderr.push(entry.log.data))
    );
    await c.callTool("everything", "toggle-simulated-logging");
    const log = await simulated;
    assert.equal(levels.has(log.level), true);
    assert.match(String(log.data), /^[A-Z][a-z]+[- ]level[- ]message/);
    await c.callTool("everything", "toggle-simulated-logging");
    await c.close();
    assert.ok(stderr.length > 0, "server-everything writes its start-up lines to stderr");
    assert.equal((c.stats().everything?.delivered ?? 0) > 0, true);
  });
});
