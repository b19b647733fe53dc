// The official client `@modelcontextprotocol/client` 2.4.0 as an MCP host of a real gateway
// process (`sluice serve`), on its default settings (it opens with `initialize` and negotiates
// 2025-11-25, a session with the gateway) and pinned to 2026-07-28 (stateless), before
// server-everything over stdio (legacy) and the modern peer (2026-07-28). The gateway passes every
// input request down to the host, whose handlers answer them; no mocks.
//
// Node only: what is under test runs in its own Node process whichever runtime drives it, and the
// in-process front already runs this client on Deno and Bun (tests/front/front.host.test.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
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

/** The host's two modes: its default (legacy, `initialize`) and pinned to 2026-07-28. */
const MODES = [
  { name: "default settings", pinned: false, version: "2025-11-25" },
  { name: "pinned to 2026-07-28", pinned: true, version: "2026-07-28" },
] as const;

type Upstream = "everything" | "modern";

/** One official client connected through the gateway, with handlers that record what they saw. */
class Host {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly elicitations: unknown[] = [];
  readonly samplings: unknown[] = [];
  readonly logs: Record<string, unknown>[] = [];
  rootsAsked = 0;
  /** While set, the elicitation handler holds its answer until its signal aborts, then tells this. */
  hold: ((signal: AbortSignal) => void) | undefined;

  constructor(url: string, upstream: Upstream, pinned: boolean) {
    this.client = new Client({ name: "official-host", version: "2.4.0" }, {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
      ...(pinned ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    });
    this.transport = new StreamableHTTPClientTransport(new URL(url));
    this.client.setRequestHandler("elicitation/create", async (request, ctx) => {
      this.elicitations.push(request.params);
      const hold = this.hold;
      if (hold !== undefined) {
        const signal = ctx.mcpReq.signal;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        hold(signal);
        return { action: "cancel" };
      }
      return {
        action: "accept",
        content: upstream === "modern" ? MODERN_FORM_ANSWER : EVERYTHING_FORM_ANSWER,
      };
    });
    this.client.setRequestHandler("sampling/createMessage", (request) => {
      this.samplings.push(request.params);
      return SAMPLING_ANSWER;
    });
    this.client.setRequestHandler("roots/list", () => {
      this.rootsAsked++;
      return { roots: [...HOST_ROOTS] };
    });
    this.client.setNotificationHandler("notifications/message", (notification) => {
      this.logs.push(notification.params as Record<string, unknown>);
    });
  }

  async call(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) {
    return await this.client.callTool({
      name,
      arguments: args,
      ...(meta === undefined ? {} : { _meta: meta }),
    });
  }

  async close(): Promise<void> {
    await this.transport.terminateSession().catch(() => {});
    await this.client.close();
  }
}

for (const mode of MODES) {
  const serverInfo = frontServerInfo;

  describe(`sluice serve before server-everything (stdio), for the official client 2.4.0 on ${mode.name}`, {
    skip,
  }, () => {
    let host: Host;
    before(async () => {
      host = new Host(gateway.endpoint("everything"), "everything", mode.pinned);
      await host.client.connect(host.transport);
    });
    after(async () => await host?.close());

    test(`sluice serve connects the host: it negotiates ${mode.version} and sees the gateway's serverInfo`, () => {
      assert.deepEqual(
        [host.client.getNegotiatedProtocolVersion(), host.client.getServerVersion()],
        [mode.version, serverInfo("everything")],
      );
    });

    test("sluice serve lists every tool server-everything registers for what the upstream session declared", async () => {
      const { tools } = await host.client.listTools();
      // A legacy host gets an upstream session of its own, declaring what the host declared (form
      // elicitation only); modern hosts share one that declares every kind the gateway passes down.
      assert.deepEqual(
        tools.map((tool) => tool.name),
        everythingTools({ roots: true, elicitation: mode.pinned ? "form+url" : "form", sampling: true }),
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
      if (!mode.pinned) {
        // server-everything asks its own session's host for roots at start-up, then logs it.
        await eventually(
          "the roots log",
          () => host.logs.find((log) => log.data === EVERYTHING_ROOTS_LOG.data),
        );
        assert.deepEqual(host.logs.filter((log) => log.logger === "everything-server"), [
          EVERYTHING_ROOTS_LOG,
        ]);
      }
      const result = await host.call("get-roots-list");
      // A modern host's calls run on upstream sessions kept for it, whose own start-up roots/list
      // (350 ms after one opens) goes to the call in flight on it then, if any: it may be asked more.
      assert.deepEqual(
        [result, mode.pinned ? host.rootsAsked > 0 : host.rootsAsked],
        [{ content: EVERYTHING_ROOTS_RESULT }, mode.pinned ? true : 1],
      );
    });

    test(
      mode.pinned
        ? "sluice serve relays server-everything's log to a 2026-07-28 host that asks for logLevel debug in _meta"
        : "sluice serve relays server-everything's simulated log after logging/setLevel debug",
      async () => {
        let meta: Record<string, unknown> | undefined;
        if (mode.pinned) {
          // The 2026-07-28 era has no logging/setLevel, and 2.4.0 has no option for the logLevel
          // `_meta`: a host sets it on the call by hand.
          const refused = await host.client.setLoggingLevel("debug").catch(callFailure);
          assert.deepEqual(refused, {
            name: "SdkError",
            code: "METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION",
            message:
              "Method 'logging/setLevel' is not supported by the negotiated protocol version (wire era 2026-07-28)",
          });
          meta = { "io.modelcontextprotocol/logLevel": "debug" };
        } else {
          assert.deepEqual(await host.client.setLoggingLevel("debug"), {});
        }
        const started = await host.call("toggle-simulated-logging", {}, meta);
        // Its first message (of a random level) comes during the call, on the call's stream.
        const simulated = host.logs.filter(isSimulatedLog);
        const stopped = await host.call("toggle-simulated-logging", {}, meta);
        assert.deepEqual(
          [started, stopped, simulated],
          [
            { content: EVERYTHING_LOGGING_STARTED },
            { content: EVERYTHING_LOGGING_STOPPED },
            [EVERYTHING_SIMULATED_LOGS[String(simulated[0]?.level)]],
          ],
        );
      },
    );

    test("sluice serve relays trigger-long-running-operation's progress for the host's token", async () => {
      const progress: unknown[] = [];
      const result = await host.client.callTool({
        name: "trigger-long-running-operation",
        arguments: LONG_RUN_ARGS,
      }, {
        onprogress: (p) => progress.push(p),
      });
      assert.deepEqual([progress, result], [LONG_RUN_PROGRESS, { content: LONG_RUN_RESULT }]);
    });

    test("sluice serve ends a call the host aborts, and the gateway and server-everything still answer", async () => {
      const controller = new AbortController();
      const progress: unknown[] = [];
      const aborted = await host.client.callTool({
        name: "trigger-long-running-operation",
        arguments: CANCELLED_RUN_ARGS,
      }, {
        signal: controller.signal,
        onprogress: (p) => (progress.push(p), controller.abort(ABORT)),
      }).catch(callFailure);
      assert.deepEqual([aborted, progress], [
        { name: "SdkError", code: "REQUEST_TIMEOUT", message: ABORT },
        [{ progress: 1, total: 100 }],
      ]);
      assert.deepEqual(await host.call("echo", { message: "still here" }), {
        content: [{ type: "text", text: "Echo: still here" }],
      });
    });
  });

  describe(
    `sluice serve before the modern peer (2026-07-28), for the official client 2.4.0 on ${mode.name}`,
    {
      skip,
    },
    () => {
      let host: Host;
      before(async () => {
        host = new Host(gateway.endpoint("modern"), "modern", mode.pinned);
        await host.client.connect(host.transport);
      });
      after(async () => await host?.close());

      test(`sluice serve connects the host: it negotiates ${mode.version} and sees the gateway's serverInfo`, () => {
        assert.deepEqual(
          [host.client.getNegotiatedProtocolVersion(), host.client.getServerVersion()],
          [mode.version, serverInfo("modern")],
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
        const { _meta, content } = await host.call("ask_form") as {
          _meta: unknown;
          content: { text: string }[];
        };
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

      test("sluice serve relays progress_twice's progress for the host's token", async () => {
        const progress: unknown[] = [];
        const result = await host.client.callTool({ name: "progress_twice", arguments: {} }, {
          onprogress: (p) => progress.push(p),
        });
        assert.deepEqual([progress, result], [
          [{ progress: 1, total: 2 }, { progress: 2, total: 2 }],
          { _meta: MODERN_PEER_META, content: [{ type: "text", text: "progressed twice" }] },
        ]);
      });

      test(
        mode.pinned
          ? "sluice serve is not involved when the host aborts while its handler holds an elicitation (the round is the host's), and still answers"
          : "sluice serve cancels the elicitation it sent the host when the host aborts the call, and still answers",
        async () => {
          const controller = new AbortController();
          const handlerAborted = new Promise<unknown>((resolve) =>
            host.hold = (signal) => resolve(signal.reason)
          );
          const asked = host.elicitations.length;
          const call = host.client.callTool({ name: "ask_form", arguments: {} }, {
            signal: controller.signal,
          })
            .catch(callFailure);
          await eventually("the held elicitation", () => host.elicitations.length > asked ? true : undefined);
          controller.abort(ABORT);
          assert.deepEqual(await call, { name: "SdkError", code: "REQUEST_TIMEOUT", message: ABORT });
          // Legacy: the gateway's notifications/cancelled for its elicitation request aborted the handler.
          const reason = await handlerAborted;
          host.hold = undefined;
          assert.deepEqual(
            mode.pinned ? reason : String(reason),
            mode.pinned ? ABORT : "cancelled",
          );
          assert.deepEqual(await host.call("echo", { message: "still here" }), {
            _meta: MODERN_PEER_META,
            content: [{ type: "text", text: '{"message":"still here"}' }],
          });
        },
      );
    },
  );
}
