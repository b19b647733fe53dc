// The demo that `npm start` runs: the demo MCP server (examples/demo-server/) behind sluice's
// gateway (serve() of the Node adapter, the demo policy, the demo handler), called by sluice's own
// client as the downstream host, which answers the elicitations the gateway passes down. Then
// scripts/start.ts itself, spawned as a user runs it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import process from "node:process";
import { ClientError, createClient, defineHandler, type Handler, type Policy } from "../../mod.ts";
import type { ElicitRequestParams, ElicitResult, ElicitValue } from "../../src/protocol/elicitation.ts";
import { type RunningGateway, serve } from "../../src/adapters/node.ts";
import demoPolicy from "../../policies/demo.policy.ts";
import { type DemoServer, startDemoServer } from "../../examples/demo-server/demo-server.ts";
import { demoHandler } from "../../examples/demo-server/demo-handler.ts";
import { TRIP_FORM } from "../../examples/demo-server/_demo-forms.ts";
import { schemaErrors } from "../protocol/_official-schema.ts";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { toolCallHeaders } from "../_support/downstream.ts";

const KEY = "demo-test-state-key-0123456789abcdef";

let demo: DemoServer;
let gateway: RunningGateway;
before(async () => {
  demo = await startDemoServer({ port: 0 });
  gateway = await serve({
    port: 0,
    stateKey: KEY,
    handler: demoHandler,
    policies: [{ ...demoPolicy, transport: { url: demo.url } }],
  });
});
after(async () => {
  await gateway?.close();
  await demo?.close();
});

type Seen = { mode: string; message: string; url?: string; host?: string; schema?: unknown };
type Answer = (params: ElicitRequestParams) => ElicitResult;

/** A downstream host: sluice's client with a scripted elicitation handler that records what it saw. */
function host(
  answers: Answer[],
  url: string,
  extra: { tasks?: boolean; handler?: Handler; methods?: string[] } = {},
) {
  const seen: Seen[] = [];
  const handler = defineHandler({
    ...extra.handler,
    elicitationModes: ["form", "url"],
    elicitation: (params, ctx) => {
      // A plain-object copy: the chain hands over null-prototype maps.
      const form = "requestedSchema" in params
        ? { schema: JSON.parse(JSON.stringify(params.requestedSchema)) }
        : {};
      const link = ctx.mode === "url" ? { url: ctx.url, host: ctx.host } : {};
      seen.push({ mode: ctx.mode, message: params.message, ...link, ...form });
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected elicitation: ${params.message}`);
      return answer(params);
    },
  });
  const policy: Policy = { server: "demo", transport: { url }, era: "modern" };
  const client = createClient({
    name: "demo-test-host",
    handler,
    policies: [policy],
    tasks: extra.tasks ?? false,
    // Records the method of every request sent, when asked to.
    fetch: (target, init) => (extra.methods?.push(JSON.parse(String(init.body)).method), fetch(target, init)),
  });
  return { client, seen };
}

/** Calls one demo tool through the gateway; returns its text and what the host was asked. */
async function call(name: string, args: Record<string, unknown>, answers: Answer[] = []) {
  const { client, seen } = host(answers, `${gateway.url}/mcp/demo`);
  try {
    const result = await client.callTool("demo", name, args as never);
    assert.ok("content" in result, `${name} returned no content: ${JSON.stringify(result)}`);
    assert.equal(result.isError ?? false, false);
    const texts = (result.content as Array<{ type: string; text?: string }>).map((block) => block.text);
    assert.equal(answers.length, 0, "every scripted answer was used");
    return { text: texts.join("\n"), seen };
  } finally {
    await client.close();
  }
}

const accept = (content: Readonly<Record<string, ElicitValue>> = {}): Answer => () => ({
  action: "accept",
  content,
});
const acceptUrl: Answer = () => ({ action: "accept" });
const decline: Answer = () => ({ action: "decline" });

describe("examples/demo-server behind the gateway (the demo policy and handler)", () => {
  test("add asks nothing", async () => {
    assert.deepEqual(await call("add", { a: 2, b: 40 }), { text: "2 + 40 = 42", seen: [] });
  });

  test("book_trip passes its form down unchanged and sums up the answer", async () => {
    const answer = {
      traveller: "Ada Lovelace",
      email: "ada@example.com",
      departure: "2026-09-01",
      nights: 4,
      budget: 120.5,
      window: true,
      cabin: "premium",
      extras: ["breakfast", "airport_transfer"],
    };
    assert.deepEqual(await call("book_trip", {}, [accept(answer)]), {
      text: "Booked a trip to Lisbon for Ada Lovelace <ada@example.com>: 4 night(s) from 2026-09-01, " +
        "cabin premium, window seat: yes, budget: 120.5 EUR a night, extras: breakfast, airport_transfer.",
      seen: [{
        mode: "form",
        message: "Booking a trip to Lisbon: who is travelling, and how?",
        schema: TRIP_FORM,
      }],
    });
  });

  test("book_trip reports a declined form", async () => {
    const { text } = await call("book_trip", { destination: "Oslo" }, [decline]);
    assert.equal(text, 'Trip to Oslo not booked: you answered "decline".');
  });

  test("connect_account sends an https URL on auth.example.com, which the policy lets through", async () => {
    assert.deepEqual(await call("connect_account", { service: "calendar" }, [acceptUrl]), {
      text: "You agreed to open https://auth.example.com/connect?service=calendar. " +
        "A real server would now wait for the sign-in to finish; the demo stops here.",
      seen: [{
        mode: "url",
        message: "Sign in to connect your calendar account",
        url: "https://auth.example.com/connect?service=calendar",
        host: "auth.example.com",
      }],
    });
  });

  for (
    const [link, reason] of [
      [
        "plain_http",
        'Elicitation URL "http://auth.example.com/connect?service=calendar" refused: expected the scheme "https", received "http"',
      ],
      [
        "other_host",
        'Elicitation URL "https://auth.example.net/connect?service=calendar" refused: expected a host in allowHosts, received "auth.example.net"',
      ],
    ] as const
  ) {
    test(`connect_account with link "${link}" is refused by the gateway's policy, and the host is never asked`, async () => {
      const { client, seen } = host([], `${gateway.url}/mcp/demo`);
      const refused = await client.callTool("demo", "connect_account", { link }).catch((e: unknown) => e);
      await client.close();
      assert.ok(refused instanceof ClientError);
      assert.deepEqual([refused.kind, refused.code, refused.message, seen], [
        "server",
        -32602,
        `Server "demo" answered tools/call with error -32602: ` +
        `"Input request \\"signin\\" refused by policy: ${reason.replaceAll('"', '\\"')}"`,
        [],
      ]);
    });
  }

  test("summarize asks for maxTokens 100000; the gateway passes it down clamped to 1024, and the caller answers", async () => {
    const asked: unknown[] = [];
    const { client } = host([], `${gateway.url}/mcp/demo`, {
      handler: {
        sampling: (params) => {
          asked.push({ maxTokens: params.maxTokens, messages: params.messages });
          return { role: "assistant", content: { type: "text", text: "A gate." }, model: "caller-model" };
        },
      },
    });
    const result = await client.callTool("demo", "summarize", { text: "sluice is a gate." });
    await client.close();
    // A plain-data copy: the client hands over null-prototype maps.
    assert.deepEqual(JSON.parse(JSON.stringify([result, asked])), [
      {
        content: [{
          type: "text",
          text: 'Asked for maxTokens 100000. Model "caller-model" replied: A gate.',
        }],
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-demo", version: "1.0.0" } },
      },
      [{
        maxTokens: 1024,
        messages: [{
          role: "user",
          content: { type: "text", text: "Summarize in one sentence: sluice is a gate." },
        }],
      }],
    ]);
  });

  test("list_workspace gets the demo handler's one root", async () => {
    const { text } = await call("list_workspace", {});
    assert.equal(text, "The client shares 1 root(s):\n- file:///home/demo/project (project)");
  });

  test("plan_party takes two rounds, the second question depending on the first answer", async () => {
    const birthday = await call("plan_party", {}, [
      accept({ occasion: "birthday" }),
      accept({ detail: "Ada" }),
    ]);
    const launch = await call("plan_party", {}, [
      accept({ occasion: "launch" }),
      accept({ detail: "sluice 1.0" }),
    ]);
    const occasion = {
      type: "object",
      properties: {
        occasion: {
          type: "string",
          title: "Occasion",
          oneOf: [
            { const: "birthday", title: "A birthday" },
            { const: "launch", title: "A product launch" },
            { const: "farewell", title: "A farewell" },
          ],
        },
      },
      required: ["occasion"],
    };
    const detail = (title: string) => ({
      type: "object",
      properties: { detail: { type: "string", title, minLength: 1 } },
      required: ["detail"],
    });
    assert.deepEqual(birthday, {
      text: "Party planned: a birthday party for Ada.",
      seen: [
        { mode: "form", message: "What are we celebrating?", schema: occasion },
        { mode: "form", message: "A birthday! Whose birthday is it?", schema: detail("Name") },
      ],
    });
    assert.deepEqual(launch.text, "Party planned: a launch party for sluice 1.0.");
    assert.deepEqual(launch.seen.map((s) => s.message), [
      "What are we celebrating?",
      "A product launch! What are we launching?",
    ]);
  });

  test("plan_party stops when round 1 is declined", async () => {
    assert.equal(
      (await call("plan_party", {}, [decline])).text,
      'No party: you answered "decline" in round 1.',
    );
  });

  test("long_report answers in place through the gateway (which does not relay tasks), after one question", async () => {
    const started = performance.now();
    const { text, seen } = await call("long_report", { topic: "Q3" }, [accept({ appendix: true })]);
    assert.equal(text, 'Report on "Q3" is ready: 3 sections, with appendix.');
    assert.deepEqual(seen.map((s) => s.message), ["Include an appendix with the raw figures?"]);
    assert.ok(performance.now() - started >= 1900, "the report takes about 2 s");
  });

  test("tools/list through the gateway lists the seven tools", async () => {
    const { client } = host([], `${gateway.url}/mcp/demo`);
    const { tools } = await client.listTools("demo");
    await client.close();
    assert.deepEqual(tools.map((tool) => tool.name), [
      "add",
      "book_trip",
      "connect_account",
      "summarize",
      "list_workspace",
      "plan_party",
      "long_report",
    ]);
  });
});

describe("examples/demo-server called directly", () => {
  test("long_report runs as a task for a client that declares the tasks extension, and asks on the way", async () => {
    const methods: string[] = [];
    const { client, seen } = host([accept({ appendix: false })], demo.url, {
      tasks: true,
      handler: demoHandler,
      methods,
    });
    const result = await client.callTool("demo", "long_report", { topic: "Q4" });
    await client.close();
    assert.deepEqual([result, seen.map((s) => s.message)], [
      { content: [{ type: "text", text: 'Report on "Q4" is ready: 3 sections, no appendix.' }] },
      ["Include an appendix with the raw figures?"],
    ]);
    // tools/list (the client learns the tool's headers), tools/call creates the task, tasks/get
    // polls until the question, tasks/update answers it, tasks/get polls until it completes.
    const distinct = methods.filter((method, index) => method !== methods[index - 1]);
    assert.deepEqual(distinct, ["tools/list", "tools/call", "tasks/get", "tasks/update", "tasks/get"]);
  });

  test("every result of every tool fits the official 2026-07-28 schema", async () => {
    const results: Array<{ method: string; result: Record<string, unknown> }> = [];
    const recording = async (url: string, init: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      const method = JSON.parse(String(init.body)).method as string;
      if (
        method.startsWith("tools/") &&
        response.headers.get("content-type")?.startsWith("application/json") === true
      ) {
        results.push({ method, result: (await response.clone().json()).result });
      }
      return response;
    };
    const answers = [
      accept({
        traveller: "Al",
        email: "al@example.com",
        departure: "2026-01-02",
        nights: 1,
        cabin: "economy",
      }),
      acceptUrl,
      accept({ occasion: "farewell" }),
      accept({ detail: "Grace" }),
      accept({ appendix: true }),
    ];
    const direct = createClient({
      name: "schema-check",
      handler: defineHandler({
        ...demoHandler,
        sampling: () => ({
          role: "assistant",
          content: { type: "text", text: "A gate." },
          model: "test-model",
        }),
        elicitationModes: ["form", "url"],
        elicitation: (params) => (answers.shift() ?? decline)(params),
      }),
      policies: [{ ...demoPolicy, transport: { url: demo.url } }],
      fetch: recording,
    });
    await direct.listTools("demo");
    for (
      const name of [
        "add",
        "book_trip",
        "connect_account",
        "summarize",
        "list_workspace",
        "plan_party",
        "long_report",
      ]
    ) {
      await direct.callTool("demo", name, {});
    }
    await direct.close();
    const definition = (method: string, result: Record<string, unknown>) =>
      method === "tools/list"
        ? "ListToolsResult"
        : result.resultType === "input_required"
        ? "InputRequiredResult"
        : "CallToolResult";
    const errors = results.flatMap(({ method, result }) =>
      schemaErrors("2026-07-28", definition(method, result), result)
    );
    assert.deepEqual(errors, []);
    const [ask, done] = ["InputRequiredResult", "CallToolResult"];
    assert.deepEqual(results.map(({ method, result }) => definition(method, result)), [
      "ListToolsResult",
      done, // add
      ...[ask, done, ask, done, ask, done, ask, done], // book_trip, connect_account, summarize, list_workspace
      ...[ask, ask, done], // plan_party
      ...[ask, done], // long_report
    ]);
  });
});

/** A port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

describe("scripts/start.ts (npm start)", () => {
  test("starts the demo and the gateway, prints where to go, serves a call, and exits 0 on SIGINT", async () => {
    const [port, demoPort] = [await freePort(), await freePort()];
    const { SLUICE_STATE_KEY: _unset, ...environment } = process.env;
    const child = spawn(`${REPO_ROOT}node_modules/.bin/tsx`, ["scripts/start.ts"], {
      cwd: REPO_ROOT,
      env: { ...environment, PORT: String(port), DEMO_PORT: String(demoPort) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: tsx runs the script in a child process
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let stderr = "";
    child.stderr.on("data", (chunk) => stderr += chunk);
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout });
    try {
      const ready = new Promise<void>((resolve, reject) => {
        reader.on("line", (line) => (lines.push(line), line === "Press Ctrl-C to stop." && resolve()));
        void exited.then((code) =>
          reject(new Error(`start.ts exited with ${code} before it was ready: ${stderr}`))
        );
      });
      await withDeadline(
        ready,
        30_000,
        () => `start.ts printed no "Press Ctrl-C to stop." in 30 s: ${lines.join("\n")}${stderr}`,
      );
      const gateway = `http://127.0.0.1:${port}`;
      assert.deepEqual(lines, [
        `sluice demo: the demo MCP server listens on http://127.0.0.1:${demoPort}/mcp`,
        "sluice demo: SLUICE_STATE_KEY is not set, so this run uses a random key: paused requests do not survive a restart",
        `sluice demo: the gateway listens on ${gateway}`,
        "",
        `  MCP endpoint for hosts:  ${gateway}/mcp/demo`,
        `  Playground:              ${gateway}/`,
        // Not the default 3971: the line carries the port, which the demo policy reads.
        `  Try:                     DEMO_PORT=${demoPort} npx sluice call demo book_trip`,
        "",
        "Press Ctrl-C to stop.",
      ]);
      const health = await fetch(`${gateway}/healthz`);
      assert.deepEqual([health.status, await health.json()], [200, { ok: true }]);
      const added = await fetch(`${gateway}/mcp/demo`, {
        method: "POST",
        headers: toolCallHeaders("add"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "add",
            arguments: { a: 20, b: 22 },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            },
          },
        }),
      });
      assert.deepEqual([added.status, await added.json()], [200, {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: "20 + 22 = 42" }],
          resultType: "complete",
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-demo", version: "1.0.0" } },
        },
      }]);
      // `sluice call` as the banner says, from the repository (its policies/ folder): it reaches
      // the demo server on DEMO_PORT, not on 3971.
      const called = spawnSync(
        process.execPath,
        ["bin/sluice.mjs", "call", "demo", "add", '{"a":2,"b":40}'],
        {
          cwd: REPO_ROOT,
          env: { ...environment, DEMO_PORT: String(demoPort) },
          encoding: "utf8",
          timeout: 60_000,
        },
      );
      assert.deepEqual([called.status, called.stdout, called.stderr], [0, "2 + 40 = 42\n", ""]);
      child.kill("SIGINT");
      const code = await withDeadline(exited, 5_000, () => "start.ts did not exit within 5 s of SIGINT");
      // The gateway's decision event for the call (JSON: stdout is a pipe), then the stop.
      const event = JSON.parse(lines[9] ?? "null") as Record<string, unknown>;
      assert.deepEqual([code, { ...event, time: "<time>", durationMs: "<ms>" }, lines.slice(10), stderr], [
        0,
        {
          type: "call",
          time: "<time>",
          client: "sluice",
          server: "demo",
          method: "tools/call",
          name: "add",
          outcome: "completed",
          rounds: 1,
          durationMs: "<ms>",
        },
        [
          "sluice demo: SIGINT, stopping",
          "sluice demo: stopped",
        ],
        "",
      ]);
      assert.match(String(event.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Number.isInteger(event.durationMs) && (event.durationMs as number) >= 0);
    } finally {
      reader.close();
      // tsx's child outlives a killed tsx: end the whole group when the test failed midway.
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  });
});

/** Resolves as `promise` does, or rejects once `ms` have passed (the timer is cleared either way). */
async function withDeadline<T>(promise: Promise<T>, ms: number, why: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error(why())), ms));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
