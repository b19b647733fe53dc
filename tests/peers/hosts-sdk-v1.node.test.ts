// `@modelcontextprotocol/sdk` 1.32.2's `Client` with `StreamableHTTPClientTransport` (a 2025-11-25
// host: `initialize`, a session, SSE) as an MCP host of a real gateway process (`sluice serve`),
// before server-everything over stdio (legacy) and the modern peer (2026-07-28). The gateway
// passes every input request down to the host, whose handlers answer them; no mocks.
//
// Node only: what is under test runs in its own Node process whichever runtime drives it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { EVERYTHING_FORM_FIELDS } from "../_support/everything.ts";
import { eventually } from "../_support/eventually.ts";
import { PROFILE_SCHEMA } from "../_support/profile-form.ts";
import {
  ABORT,
  callFailure,
  CANCELLED_RUN_ARGS,
  EVERYTHING_ELICITATION_RESULT,
  EVERYTHING_FORM_ANSWER,
  EVERYTHING_LOGGING_STARTED,
  EVERYTHING_LOGGING_STOPPED,
  EVERYTHING_ROOTS_LOG,
  EVERYTHING_ROOTS_RESULT,
  EVERYTHING_SAMPLING_PARAMS,
  EVERYTHING_SAMPLING_RESULT,
  EVERYTHING_SIMULATED_LOGS,
  everythingTools,
  frontServerInfo,
  HOST_ROOTS,
  type HostsGateway,
  isSimulatedLog,
  LONG_RUN_ARGS,
  LONG_RUN_PROGRESS,
  LONG_RUN_RESULT,
  MODERN_FORM_ANSWER,
  MODERN_FORM_RECEIVED,
  MODERN_PEER_META,
  MODERN_SAMPLING_PARAMS,
  MODERN_TOOLS,
  NODE_ONLY,
  SAMPLING_ANSWER,
  startHostsGateway,
} from "./_hosts.ts";

const skip = NODE_ONLY;

let gateway: HostsGateway;
before(async () => {
  if (skip === false) gateway = await startHostsGateway();
});
after(async () => {
  if (gateway !== undefined) assert.equal(await gateway.stop(), 0);
});

type Upstream = "everything" | "modern";

/** One sdk 1.32.2 client connected through the gateway, with handlers that record what they saw. */
class Host {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly elicitations: unknown[] = [];
  readonly samplings: unknown[] = [];
  readonly logs: Record<string, unknown>[] = [];
  rootsAsked = 0;
  /** While set, the elicitation handler holds its answer until its signal aborts, then tells this. */
  hold: ((signal: AbortSignal) => void) | undefined;

  constructor(url: string, upstream: Upstream) {
    this.client = new Client({ name: "sdk-v1-host", version: "1.32.2" }, {
      capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
    });
    this.transport = new StreamableHTTPClientTransport(new URL(url));
    this.client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      this.elicitations.push(request.params);
      const hold = this.hold;
      if (hold !== undefined) {
        await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
        hold(extra.signal);
        return { action: "cancel" };
      }
      return {
        action: "accept",
        content: upstream === "modern" ? MODERN_FORM_ANSWER : EVERYTHING_FORM_ANSWER,
      };
    });
    this.client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      this.samplings.push(request.params);
      return SAMPLING_ANSWER;
    });
    this.client.setRequestHandler(ListRootsRequestSchema, () => {
      this.rootsAsked++;
      return { roots: [...HOST_ROOTS] };
    });
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      this.logs.push(notification.params);
    });
  }

  async call(name: string, args: Record<string, unknown> = {}) {
    return await this.client.callTool({ name, arguments: args });
  }

  async close(): Promise<void> {
    await this.transport.terminateSession().catch(() => {});
    await this.client.close();
  }
}

/** How the sdk rejects a call its signal aborted (it sends notifications/cancelled). */
const ABORTED = { name: "McpError", code: -32001, message: `MCP error -32001: ${ABORT}` };

/**
 * Starts `tool` with the host's elicitation handler holding its answer, aborts the call once the
 * handler runs, and resolves with the call's failure and a promise of the handler's abort reason.
 */
async function abortHeldElicitation(host: Host, tool: string) {
  const controller = new AbortController();
  const handlerAborted = new Promise<unknown>((resolve) => host.hold = (signal) => resolve(signal.reason));
  const asked = host.elicitations.length;
  const call = host.client.callTool({ name: tool, arguments: {} }, undefined, { signal: controller.signal })
    .catch(callFailure);
  await eventually("the held elicitation", () => host.elicitations.length > asked ? true : undefined);
  controller.abort(ABORT);
  return { failed: await call, handlerAborted };
}

describe("sluice serve before server-everything (stdio), for the sdk 1.32.2 client", { skip }, () => {
  let host: Host;
  before(async () => {
    host = new Host(gateway.endpoint("everything"), "everything");
    await host.client.connect(host.transport);
  });
  after(async () => await host?.close());

  test("sluice serve connects the host: it negotiates 2025-11-25 and sees the gateway's serverInfo", () => {
    assert.deepEqual(
      [host.transport.protocolVersion, host.client.getServerVersion()],
      ["2025-11-25", frontServerInfo("everything")],
    );
  });

  test("sluice serve lists every tool server-everything registers for a host declaring sampling, elicitation and roots", async () => {
    const { tools } = await host.client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      everythingTools({ roots: true, elicitation: "form", sampling: true }),
    );
  });

  test("sluice serve relays a plain call: echo", async () => {
    assert.deepEqual(await host.call("echo", { message: "hello" }), {
      content: [{ type: "text", text: "Echo: hello" }],
    });
  });

  test("sluice serve passes trigger-elicitation-request's form down, and the host's answer goes upstream with the form's defaults", async () => {
    const result = await host.call("trigger-elicitation-request");
    assert.deepEqual(result, { content: EVERYTHING_ELICITATION_RESULT });
    const [asked] = host.elicitations as { message: string; requestedSchema: { properties: object } }[];
    assert.deepEqual(
      [host.elicitations.length, asked?.message, Object.keys(asked?.requestedSchema.properties ?? {})],
      [1, "Please provide inputs for the following fields:", EVERYTHING_FORM_FIELDS],
    );
  });

  test("sluice serve passes trigger-sampling-request down with maxTokens 999999 clamped to 4096", async () => {
    const result = await host.call("trigger-sampling-request", { prompt: "Hi", maxTokens: 999999 });
    assert.deepEqual(
      [host.samplings, result],
      [[EVERYTHING_SAMPLING_PARAMS], { content: EVERYTHING_SAMPLING_RESULT }],
    );
  });

  test("sluice serve passes roots/list down, and get-roots-list shows the host's roots", async () => {
    // server-everything asks its session's host for roots at start-up, then logs it.
    await eventually("the roots log", () => host.logs.find((log) => log.data === EVERYTHING_ROOTS_LOG.data));
    const result = await host.call("get-roots-list");
    assert.deepEqual(
      [host.logs.filter((log) => log.logger === "everything-server"), result, host.rootsAsked],
      [[EVERYTHING_ROOTS_LOG], { content: EVERYTHING_ROOTS_RESULT }, 1],
    );
  });

  test("sluice serve relays server-everything's simulated log after logging/setLevel debug", async () => {
    assert.deepEqual(await host.client.setLoggingLevel("debug"), {});
    const started = await host.call("toggle-simulated-logging");
    // Its first message (of a random level) comes during the call, on the call's stream.
    const simulated = host.logs.filter(isSimulatedLog);
    const stopped = await host.call("toggle-simulated-logging");
    assert.deepEqual(
      [started, stopped, simulated],
      [
        { content: EVERYTHING_LOGGING_STARTED },
        { content: EVERYTHING_LOGGING_STOPPED },
        [EVERYTHING_SIMULATED_LOGS[String(simulated[0]?.level)]],
      ],
    );
  });

  test("sluice serve relays trigger-long-running-operation's progress for the host's token", async () => {
    const progress: unknown[] = [];
    const result = await host.client.callTool(
      { name: "trigger-long-running-operation", arguments: LONG_RUN_ARGS },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    assert.deepEqual([progress, result], [LONG_RUN_PROGRESS, { content: LONG_RUN_RESULT }]);
  });

  test("sluice serve answers a silent long call on a stream that beats until the result, which the host reads", async () => {
    // A host of its own whose fetch keeps a copy of every POST's answer.
    const answers: Promise<string>[] = [];
    const recording = async (url: string | URL, init?: RequestInit) => {
      const response = await fetch(url, init);
      if (init?.method !== "POST" || response.body === null) return response;
      const [mine, copy] = response.body.tee();
      answers.push(new Response(copy).text());
      return new Response(mine, response);
    };
    const client = new Client({ name: "sdk-v1-host", version: "1.32.2" });
    const transport = new StreamableHTTPClientTransport(new URL(gateway.endpoint("everything")), {
      fetch: recording,
    });
    await client.connect(transport);
    try {
      // 1.5 s without a progress token: nothing to send but the beats, every 200 ms (at least two
      // even if the gateway is held up for a second by a busy machine).
      const args = { duration: 1.5, steps: 1 };
      assert.deepEqual(await client.callTool({ name: "trigger-long-running-operation", arguments: args }), {
        content: [{
          type: "text",
          text: "Long running operation completed. Duration: 1.5 seconds, Steps: 1.",
        }],
      });
      const answer = await (answers.at(-1) as Promise<string>);
      // The priming event and the beat that opened the stream, more beats, then the result.
      const beats = answer.split(": heartbeat\n\n").length - 1;
      const [opening, result, rest] = answer.replaceAll(": heartbeat\n\n", "").split("\n\n");
      const [head, data] = (result ?? "").split("\ndata: ");
      assert.deepEqual(
        [answer.startsWith("id: 1_0\ndata: \n\n: heartbeat\n\n"), beats >= 2, opening, head, rest],
        [true, true, "id: 1_0\ndata: ", "id: 1_1\nevent: message", ""],
      );
      assert.deepEqual(JSON.parse(data ?? ""), {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{
            type: "text",
            text: "Long running operation completed. Duration: 1.5 seconds, Steps: 1.",
          }],
        },
      });
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });

  test("sluice serve ends a call the host cancels, and the gateway and server-everything still answer", async () => {
    const controller = new AbortController();
    const progress: unknown[] = [];
    const aborted = await host.client.callTool(
      { name: "trigger-long-running-operation", arguments: CANCELLED_RUN_ARGS },
      undefined,
      { signal: controller.signal, onprogress: (p) => (progress.push(p), controller.abort(ABORT)) },
    ).catch(callFailure);
    assert.deepEqual([aborted, progress], [ABORTED, [{ progress: 1, total: 100 }]]);
    assert.deepEqual(await host.call("echo", { message: "still here" }), {
      content: [{ type: "text", text: "Echo: still here" }],
    });
  });

  test("sluice serve cancels the elicitation it sent the host when the host cancels the call", async () => {
    // server-everything never cancels its own elicitation when its tool call is cancelled: the
    // gateway does, since the request is tied to the call.
    const { failed, handlerAborted } = await abortHeldElicitation(host, "trigger-elicitation-request");
    assert.deepEqual(failed, ABORTED);
    let reason: unknown;
    void handlerAborted.then((r) => reason = r);
    try {
      await eventually("the gateway's notifications/cancelled", () => reason);
    } finally {
      host.hold = undefined;
    }
    assert.deepEqual(String(reason), "cancelled");
  });
});

describe("sluice serve before the modern peer (2026-07-28), for the sdk 1.32.2 client", { skip }, () => {
  let host: Host;
  before(async () => {
    host = new Host(gateway.endpoint("modern"), "modern");
    await host.client.connect(host.transport);
  });
  after(async () => await host?.close());

  test("sluice serve connects the host: it negotiates 2025-11-25 and sees the gateway's serverInfo", () => {
    assert.deepEqual(
      [host.transport.protocolVersion, host.client.getServerVersion()],
      ["2025-11-25", frontServerInfo("modern")],
    );
  });

  test("sluice serve lists every tool of the modern peer", async () => {
    const { tools } = await host.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), MODERN_TOOLS);
  });

  test("sluice serve relays a plain call: echo", async () => {
    assert.deepEqual(await host.call("echo", { message: "hello" }), {
      _meta: MODERN_PEER_META,
      content: [{ type: "text", text: '{"message":"hello"}' }],
    });
  });

  test("sluice serve passes ask_form's elicitation down, and the host's answer goes upstream with the form's defaults", async () => {
    const { _meta, content } = await host.call("ask_form") as { _meta: unknown; content: { text: string }[] };
    assert.deepEqual([host.elicitations, _meta, content.length, JSON.parse(content[0]?.text ?? "")], [
      [{ mode: "form", message: "Tell us about you", requestedSchema: PROFILE_SCHEMA }],
      MODERN_PEER_META,
      1,
      MODERN_FORM_RECEIVED,
    ]);
  });

  test("sluice serve passes ask_sampling down with maxTokens 999999 clamped to 4096", async () => {
    const result = await host.call("ask_sampling");
    assert.deepEqual([host.samplings, result], [
      [MODERN_SAMPLING_PARAMS],
      { _meta: MODERN_PEER_META, content: [{ type: "text", text: "Hello from the host" }] },
    ]);
  });

  test("sluice serve passes roots/list down, and ask_roots gets the host's roots", async () => {
    const result = await host.call("ask_roots");
    assert.deepEqual([host.rootsAsked, result], [1, {
      _meta: MODERN_PEER_META,
      content: [{ type: "text", text: '["file:///srv/project"]' }],
    }]);
  });

  test("sluice serve accepts logging/setLevel (the modern peer sends no logs)", async () => {
    assert.deepEqual(await host.client.setLoggingLevel("debug"), {});
  });

  test("sluice serve relays progress_twice's progress for the host's token", async () => {
    const progress: unknown[] = [];
    const result = await host.client.callTool({ name: "progress_twice", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.deepEqual([progress, result], [
      [{ progress: 1, total: 2 }, { progress: 2, total: 2 }],
      { _meta: MODERN_PEER_META, content: [{ type: "text", text: "progressed twice" }] },
    ]);
  });

  test("sluice serve cancels the elicitation it sent the host when the host cancels the call, and still answers", async () => {
    const { failed, handlerAborted } = await abortHeldElicitation(host, "ask_form");
    assert.deepEqual(failed, ABORTED);
    // The gateway's notifications/cancelled for its elicitation request aborted the handler.
    assert.deepEqual(String(await handlerAborted), "cancelled");
    host.hold = undefined;
    assert.deepEqual(await host.call("echo", { message: "still here" }), {
      _meta: MODERN_PEER_META,
      content: [{ type: "text", text: '{"message":"still here"}' }],
    });
  });
});
