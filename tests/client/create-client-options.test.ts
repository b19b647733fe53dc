// createClient() checks its options as policies are checked: an unknown option (a typo) is
// refused naming the one meant, a plain-object handler gets defineHandler()'s checks, and the
// problems of every policy are reported at once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ClientError,
  type ClientOptions,
  createClient,
  type ListOptions,
  PolicyError,
  type ToolCallOptions,
} from "../../mod.ts";
import { toolsUpstream } from "../_support/gateway-caller.ts";

/** What createClient() throws for these options: the error's name and message. */
function refusal(options: unknown): [string, string] {
  try {
    createClient(options as Parameters<typeof createClient>[0]);
  } catch (error) {
    return [(error as Error).name, (error as Error).message];
  }
  return ["", "no error"];
}

const EXPECTED_OPTIONS =
  'expected "name", "version", "title", "handler", "policies", "assigns", "tasks", "store", "fetch", "environment", "signIn", "timers", "clock"';

describe("createClient() options", () => {
  test("an unknown option is refused, naming the option meant", () => {
    assert.deepEqual(refusal({ name: "x", handlr: {}, policies: [] }), [
      "TypeError",
      `createClient(): "handlr" is not an option (did you mean "handler"?); ${EXPECTED_OPTIONS}`,
    ]);
    assert.deepEqual(refusal({ name: "x", polices: [] }), [
      "TypeError",
      `createClient(): "polices" is not an option (did you mean "policies"?); ${EXPECTED_OPTIONS}`,
    ]);
  });

  test("options that are not an object, and policies that are not a list, are refused by name", () => {
    assert.deepEqual(refusal(null), [
      "TypeError",
      "createClient(): the options must be an object { name, policies, handler?, … }, received null",
    ]);
    assert.deepEqual(refusal({ name: "x", policies: "a" }), [
      "TypeError",
      'createClient(): "policies" must be a list of policies, received string',
    ]);
  });

  test("a call's arguments and options that are not what they say fail it as config -32602, as a rejection, before any request", async () => {
    const client = createClient({
      name: "x",
      policies: [{ server: "demo", transport: { url: "https://demo.example/mcp" } }],
      fetch: () => Promise.reject(new Error("no request may be sent")),
    });
    const failure = (call: () => Promise<unknown>) => {
      const pending = call();
      assert.ok(pending instanceof Promise);
      return pending.then(
        () => "resolved",
        (error: ClientError) => [error.name, error.kind, error.code, error.message],
      );
    };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    // The runtime's own words for what JSON.stringify cannot take.
    const thrown = (value: unknown) => {
      try {
        JSON.stringify(value);
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    };
    const [bigint, circular] = [thrown({ n: 10n }), thrown(cyclic)];
    const refused = (method: string, what: string) => [
      "ClientError",
      "config",
      -32602,
      `Call of ${method} to server "demo" refused: ${what}`,
    ];
    assert.deepEqual(
      await Promise.all([
        failure(() => client.listTools("demo", null as never)),
        failure(() => client.callTool("demo", "deploy", {}, { signal: "x" as never })),
        failure(() => client.callTool("demo", "deploy", {}, { onProgress: "no" as never })),
        failure(() => client.readResource("demo", "file:///a", 5 as never)),
        failure(() => client.callTool("demo", 42 as never)),
        failure(() => client.callTool("demo", "deploy", [1, 2] as never)),
        failure(() => client.readResource("demo", undefined as never)),
        failure(() => client.getPrompt("demo", "greet", "a=1" as never)),
        failure(() => client.awaitTask("demo", "" as never)),
        failure(() => client.callTool("demo", "deploy", { n: 10n })),
        failure(() => client.callTool("demo", "deploy", cyclic)),
        failure(() => client.getPrompt("demo", "greet", { a: 5 } as never)),
        failure(() => client.listTools("demo", { cursor: 5 as never })),
        failure(() => client.listPrompts("demo", { cursor: {} as never })),
        failure(() => client.callTool("demo", "deploy", {}, { timout: 5 } as never)),
        failure(() => client.callTool("demo", "deploy", {}, { detachTask: "yes" as never })),
        failure(() => client.listTools("demo", { onProgress: () => {}, detachTask: false } as never)),
      ]),
      [
        refused("tools/list", "the options must be an object, received null"),
        refused("tools/call", '"signal" must be an AbortSignal, received "x"'),
        refused("tools/call", '"onProgress" must be a function, received "no"'),
        refused("resources/read", "the options must be an object, received 5"),
        refused("tools/call", '"name" must be a non-empty string, received 42'),
        refused("tools/call", '"arguments" must be an object, received an array'),
        refused("resources/read", '"uri" must be a non-empty string, received nothing'),
        refused("prompts/get", '"arguments" must be an object, received "a=1"'),
        refused("tasks/get", '"taskId" must be a non-empty string, received ""'),
        refused(
          "tools/call",
          `"arguments" must be plain JSON, and turning it into JSON threw TypeError: ${bigint}`,
        ),
        refused(
          "tools/call",
          `"arguments" must be plain JSON, and turning it into JSON threw TypeError: ${circular}`,
        ),
        refused("prompts/get", '"arguments" must hold strings, received 5 for "a"'),
        refused("tools/list", '"cursor" must be a string, received 5'),
        refused("prompts/list", '"cursor" must be a string, received an object'),
        refused(
          "tools/call",
          '"timout" is not an option; expected "signal", "onProgress", "assigns", "detachTask", "cursor"',
        ),
        refused("tools/call", '"detachTask" must be a boolean, received "yes"'),
        // One options object may serve several calls: a key another call takes is no mistake, and
        // the call goes as far as its request (which this client's fetch refuses).
        [
          "ClientError",
          "transport",
          undefined,
          'Server "demo": request to https://demo.example/mcp failed: no request may be sent',
        ],
      ],
    );
    await client.close();
  });

  test("onNotification() and onDecision() refuse a listener that is not a function at once", async () => {
    const client = createClient({ name: "x", policies: [] });
    assert.throws(() => client.onNotification(42 as never), {
      name: "TypeError",
      message: "client.onNotification(): the listener must be a function, received 42",
    });
    assert.throws(() => client.onDecision("log" as never), {
      name: "TypeError",
      message: 'client.onDecision(): the listener must be a function, received "log"',
    });
    await client.close();
  });

  test("every other option is refused at once when it is not what it must be, naming it", () => {
    const base = { name: "x", policies: [] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fetch: "x" }, '"fetch" must be a function (url, init) => Promise<Response>, received "x"'],
      [{ timers: {} }, '"timers" must be { setTimeout, clearTimeout }, received an object'],
      [{ clock: {} }, '"clock" must be { now() }, received an object'],
      [{ store: "x" }, '"store" must be a RateLimitStore (with take()), received "x"'],
      [{ assigns: "x" }, '"assigns" must be an object, received "x"'],
      [{ tasks: "yes" }, '"tasks" must be true or false, received "yes"'],
      [{ version: 3 }, '"version" must be a string, received 3'],
      [
        { signIn: "s" },
        '"signIn" must be an object { tokens?, redirectUri?, clientMetadataUrl?, principal? }, received "s"',
      ],
      [
        { signIn: { redirectUrl: "http://127.0.0.1/cb" } },
        '"signIn.redirectUrl" is not an option (did you mean "signIn.redirectUri"?); expected "tokens", "redirectUri", "clientMetadataUrl", "principal"',
      ],
      [
        { signIn: { tokens: "t" } },
        '"signIn.tokens" must be a TokenStore (get, set, delete, claim), received "t"',
      ],
      [{ signIn: { principal: 5 } }, '"signIn.principal" must be a string, received 5'],
      [
        { signIn: { clientMetadataUrl: "http://app.example.com/client.json" } },
        '"signIn.clientMetadataUrl" must be an https URL with a path, no fragment and no credentials (it is the client id), received "http://app.example.com/client.json"',
      ],
      [
        { signIn: { clientMetadataUrl: "https://user:pw@app.example.com" } },
        '"signIn.clientMetadataUrl" must be an https URL with a path, no fragment and no credentials (it is the client id), received "https://user:…@app.example.com"',
      ],
    ];
    assert.deepEqual(
      cases.map(([options]) => refusal({ ...base, ...options })),
      cases.map(([, message]) => ["TypeError", `createClient(): ${message}`]),
    );
  });

  test("a handler written as a plain object gets defineHandler()'s checks", () => {
    assert.deepEqual(refusal({ name: "x", policies: [], handler: { samplin: () => ({}) } }), [
      "TypeError",
      'Handler key "samplin" is unknown: expected one of "sampling", "elicitation", "roots", "notification", "log", "authorize", "elicitationModes"',
    ]);
    assert.deepEqual(refusal({ name: "x", policies: [], handler: { sampling: "yes" } }), [
      "TypeError",
      'Handler "sampling" must be a function, received string',
    ]);
  });

  test("the problems of every policy are reported at once, in one PolicyError", () => {
    const policies = [
      { server: "a", transport: { url: "https://x.example.com/mcp" }, maxRound: 1 },
      null,
      { server: "b", transport: { url: "ftp://x" }, era: 3 },
    ];
    let thrown: unknown;
    try {
      createClient({ name: "x", policies: policies as never });
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof PolicyError);
    assert.deepEqual(thrown.problems.map((problem) => [problem.server, problem.path]), [
      ["a", "maxRound"],
      [undefined, ""],
      ["b", "era"],
      ["b", "transport.url"],
    ]);
    assert.equal(
      thrown.message,
      [
        'Policy "a": "maxRound" is not a policy option (did you mean "maxRounds"?)',
        "Policy: the policy must be a policy object, received null",
        'Policy "b": "era" must be one of "modern", "legacy", "auto", received 3',
        'Policy "b": "transport.url" must be an absolute http(s) URL, received "ftp://x"',
      ].join("\n"),
    );
  });

  test("a server named by two policies is one of the problems reported at once, even when the second has its own", () => {
    const policies = [
      { server: "a", transport: { url: "https://x.example.com/mcp" } },
      { server: "b", transport: { url: "https://y.example.com/mcp" } },
      { server: "a", transport: { url: "https://z.example.com/mcp" }, maxRounds: 0 },
    ];
    let thrown: unknown;
    try {
      createClient({ name: "x", policies });
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof PolicyError);
    assert.deepEqual(thrown.problems.map((problem) => [problem.server, problem.path, problem.message]), [
      ["a", "maxRounds", '"maxRounds" must be an integer from 1 to 1000, received 0'],
      ["a", "server", '"server" "a" is already the server of policies[0], expected one policy per server'],
    ]);
  });

  test("this entry, which speaks no legacy era, refuses a stdio server and era legacy at once, and takes era auto", () => {
    const policies = [
      { server: "a", transport: { command: "mcp-server" } },
      { server: "b", transport: { url: "https://y.example.com/mcp" }, era: "legacy" },
      { server: "c", transport: { url: "https://z.example.com/mcp" }, era: "auto" },
    ];
    const speak =
      'which this entry does not speak: import createClient from "@sluice/mcp/legacy" (self-hosted)';
    assert.deepEqual(refusal({ name: "x", policies }), [
      "PolicyError",
      [
        `Policy "a": "transport.command" runs the server over stdio, ${speak}`,
        `Policy "b": "era" is "legacy", ${speak}`,
      ].join("\n"),
    ]);
    assert.deepEqual(refusal({ name: "x", policies: [policies[2]] }), ["", "no error"]);
  });

  test("an optional option written as undefined, the client's or a call's, is taken as left out", async () => {
    const upstream = toolsUpstream();
    const options: ClientOptions = {
      name: "x",
      version: undefined,
      title: undefined,
      handler: undefined,
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
      assigns: undefined,
      tasks: undefined,
      store: undefined,
      fetch: undefined,
      environment: undefined,
      signIn: {
        tokens: undefined,
        redirectUri: undefined,
        clientMetadataUrl: undefined,
        principal: undefined,
      },
      timers: undefined,
      clock: undefined,
    };
    const client = createClient({ ...options, fetch: upstream.fetch });
    const call: ToolCallOptions = {
      assigns: undefined,
      signal: undefined,
      onProgress: undefined,
      detachTask: undefined,
    };
    const list: ListOptions = { cursor: undefined, signal: undefined };
    assert.deepEqual(
      [
        await client.callTool("files", "read", {}, call),
        (await client.listTools("files", list)).tools.map((tool) => tool.name),
      ],
      [{ resultType: "complete", content: [{ type: "text", text: "called read" }] }, [
        "read",
        "write",
        "delete",
      ]],
    );
    await client.close();
  });
});
