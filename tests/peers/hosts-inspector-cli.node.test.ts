// The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, `--cli`) as an MCP host of a
// real gateway process (`sluice serve`), in its default era (legacy: `initialize`, 2025-11-25) and
// with `--protocol-era modern` (2026-07-28), before server-everything over stdio and the modern
// peer. One CLI process per request, as a script or CI job runs it (`--format json -q`).
//
// The Inspector needs Node >= 22.19: it runs on the Node 22 that `npm ci --prefix tests/conformance`
// installs (the root postinstall does that), kept out of the project's node_modules/.bin.
//
// What the CLI cannot do, so nothing here tests it: answer an elicitation or a sampling request
// (it declares neither, so the gateway refuses those on its behalf), show a log (it can set the
// level; its --cli has no method that prints notifications), ask for progress (it sends no
// progress token), or cancel a call (one request per process, no abort).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import {
  EVERYTHING_ROOTS_RESULT,
  everythingTools,
  frontServerInfo,
  HOST_ROOTS,
  type HostsGateway,
  MODERN_PEER_META,
  MODERN_TOOLS,
  NODE_ONLY,
  startHostsGateway,
} from "./_hosts.ts";

const skip = NODE_ONLY;

const SUITE = join(REPO_ROOT, "tests", "conformance", "node_modules");
const NODE_22 = join(SUITE, "node", "bin", "node");
const INSPECTOR = join(
  SUITE,
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);

let gateway: HostsGateway;
/** The CLI's home (it keeps a storage folder there) and its config file. */
let home: string;
before(async () => {
  if (skip !== false) return;
  gateway = await startHostsGateway();
  home = mkdtempSync(join(tmpdir(), "sluice-inspector-"));
  const server = (name: "everything" | "modern") => ({
    type: "streamable-http",
    url: gateway.endpoint(name),
    roots: HOST_ROOTS,
  });
  writeFileSync(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: server("everything"), modern: server("modern") } }),
  );
});
after(async () => {
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
  if (gateway !== undefined) assert.equal(await gateway.stop(), 0);
});

/** What one CLI run printed: its exit code and its JSON (the result on stdout, an error on stderr). */
interface CliRun {
  readonly code: number | null;
  readonly output: unknown;
}

/** Runs `inspector --cli` for one server and era; `args` name the method and its flags. */
function inspect(server: string, era: "legacy" | "modern", args: readonly string[]): Promise<CliRun> {
  const argv = [
    INSPECTOR,
    "--cli",
    "--config",
    join(home, "mcp.json"),
    "--server",
    server,
    "--protocol-era",
    era,
    "--format",
    "json",
    "-q",
    ...args,
  ];
  // Secrets in memory: the CLI would otherwise look for an OS keychain and warn on stderr.
  const env = { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory" };
  return new Promise((resolve) => {
    execFile(NODE_22, argv, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      const text = (stdout.trim() === "" ? stderr : stdout).trim();
      let output: unknown = text;
      try {
        output = JSON.parse(text);
      } catch {
        // not JSON: compared as text
      }
      resolve({ code, output: withoutComplete(output) });
    });
  });
}

/**
 * The CLI's output without a complete result's `resultType: "complete"`: the CLI prints it only on
 * its path for servers that declare the tasks extension (the gateway sends it to every 2026-07-28
 * caller either way); any other `resultType` stays, and fails the comparison.
 */
function withoutComplete(output: unknown): unknown {
  const result = (output as { result?: unknown } | null)?.result;
  if (
    typeof result !== "object" || result === null ||
    (result as { resultType?: unknown }).resultType !== "complete"
  ) {
    return output;
  }
  const { resultType: _complete, ...rest } = result as Record<string, unknown>;
  return { ...(output as object), result: rest };
}

const call = (tool: string, args: Record<string, unknown> = {}) => [
  "--method",
  "tools/call",
  "--tool-name",
  tool,
  "--tool-args-json",
  JSON.stringify(args),
];

const ok = (result: unknown): CliRun => ({ code: 0, output: { result } });
const failed = (code: number, error: object): CliRun => ({ code, output: { error } });

/** The gateway's refusal when a legacy upstream asks a caller for what it did not declare. */
const UNDECLARED = failed(1, {
  code: "error",
  message: "The upstream server needs input that only the caller can give, and the caller did not declare it",
});

/** The modern peer's refusal of an input request its caller (through the gateway) did not declare. */
const peerRefusal = (key: string, method: string) =>
  failed(1, {
    code: "error",
    message:
      `Cannot request input '${key}' (${method}): the request's client capabilities do not declare the required capability`,
  });

for (const era of ["legacy", "modern"] as const) {
  const modern = era === "modern";
  const version = modern ? "2026-07-28" : "2025-11-25";
  const connected = (server: string) => ({
    serverInfo: frontServerInfo(server),
    protocolVersion: version,
  });

  // Two CLI runs at a time (each is a Node process). One at a time for 2026-07-28 runs before
  // server-everything: its modern callers share one stdio session, on which an input request is
  // tied to a call only when exactly one is in flight; with two, the gateway cannot tell whose it
  // is and answers the upstream -32603 "The handler deferred the request to the caller".
  describe(`sluice serve before server-everything (stdio), for the Inspector CLI 2.12.0 (${era} era)`, {
    skip,
    concurrency: modern ? 1 : 2,
  }, () => {
    test(`sluice serve connects the CLI: it negotiates ${version} and sees the gateway's serverInfo`, async () => {
      const run = await inspect("everything", era, ["--method", "initialize"]);
      const { serverInfo, protocolVersion } = (run.output as { result: Record<string, unknown> }).result;
      assert.deepEqual({ code: run.code, serverInfo, protocolVersion }, {
        code: 0,
        ...connected("everything"),
      });
    });

    test(
      modern
        ? "sluice serve lists every tool server-everything registers for the modern callers' shared session"
        : "sluice serve lists every tool server-everything registers for a host declaring only roots",
      async () => {
        const run = await inspect("everything", era, ["--method", "tools/list"]);
        const tools = (run.output as { result: { tools: { name: string }[] } }).result.tools;
        assert.deepEqual(
          [run.code, tools.map((tool) => tool.name)],
          [
            0,
            everythingTools(
              modern ? { roots: true, elicitation: "form+url", sampling: true } : { roots: true },
            ),
          ],
        );
      },
    );

    test("sluice serve relays a plain call: echo", async () => {
      assert.deepEqual(
        await inspect("everything", era, call("echo", { message: "hello" })),
        ok({ content: [{ type: "text", text: "Echo: hello" }] }),
      );
    });

    test(
      modern
        ? "sluice serve refuses trigger-elicitation-request's form for the CLI, which declared no elicitation"
        : "sluice serve hides trigger-elicitation-request from the CLI, which declared no elicitation",
      async () => {
        assert.deepEqual(
          await inspect("everything", era, call("trigger-elicitation-request")),
          modern ? UNDECLARED : failed(5, {
            code: "tool_not_found",
            message: "Tool 'trigger-elicitation-request' not found on server.",
          }),
        );
      },
    );

    test(
      modern
        ? "sluice serve refuses trigger-sampling-request's sampling for the CLI, which declared no sampling"
        : "sluice serve hides trigger-sampling-request from the CLI, which declared no sampling",
      async () => {
        assert.deepEqual(
          await inspect(
            "everything",
            era,
            call("trigger-sampling-request", { prompt: "Hi", maxTokens: 999999 }),
          ),
          modern ? UNDECLARED : failed(5, {
            code: "tool_not_found",
            message: "Tool 'trigger-sampling-request' not found on server.",
          }),
        );
      },
    );

    test("sluice serve passes roots/list down, and get-roots-list shows the roots of the CLI's config", async () => {
      assert.deepEqual(
        await inspect("everything", era, call("get-roots-list")),
        ok({ content: EVERYTHING_ROOTS_RESULT }),
      );
    });

    test(
      modern
        ? "sluice serve declares logging to a 2026-07-28 caller, whose CLI refuses logging/setLevel itself: that era asks for logs per request"
        : "sluice serve accepts the CLI's logging/setLevel",
      async () => {
        assert.deepEqual(
          await inspect("everything", era, ["--method", "logging/setLevel", "--log-level", "debug"]),
          modern
            ? failed(1, {
              code: "error",
              message:
                "Method 'logging/setLevel' is not supported by the negotiated protocol version (wire era 2026-07-28)",
            })
            : ok({}),
        );
      },
    );
  });

  describe(`sluice serve before the modern peer (2026-07-28), for the Inspector CLI 2.12.0 (${era} era)`, {
    skip,
    concurrency: 2,
  }, () => {
    test(`sluice serve connects the CLI: it negotiates ${version} and sees the gateway's serverInfo`, async () => {
      const run = await inspect("modern", era, ["--method", "initialize"]);
      const { serverInfo, protocolVersion } = (run.output as { result: Record<string, unknown> }).result;
      assert.deepEqual({ code: run.code, serverInfo, protocolVersion }, { code: 0, ...connected("modern") });
    });

    test("sluice serve lists every tool of the modern peer", async () => {
      const run = await inspect("modern", era, ["--method", "tools/list"]);
      const tools = (run.output as { result: { tools: { name: string }[] } }).result.tools;
      assert.deepEqual([run.code, tools.map((tool) => tool.name)], [0, MODERN_TOOLS]);
    });

    test("sluice serve relays a plain call: echo", async () => {
      assert.deepEqual(
        await inspect("modern", era, call("echo", { message: "hello" })),
        ok({
          _meta: MODERN_PEER_META,
          content: [{ type: "text", text: '{"message":"hello"}' }],
        }),
      );
    });

    test("sluice serve declares no elicitation upstream for the CLI, so the peer refuses ask_form", async () => {
      assert.deepEqual(
        await inspect("modern", era, call("ask_form")),
        peerRefusal("profile", "elicitation/create"),
      );
    });

    test("sluice serve declares no sampling upstream for the CLI, so the peer refuses ask_sampling", async () => {
      assert.deepEqual(
        await inspect("modern", era, call("ask_sampling")),
        peerRefusal("llm", "sampling/createMessage"),
      );
    });

    test("sluice serve passes roots/list down, and ask_roots gets the roots of the CLI's config", async () => {
      assert.deepEqual(
        await inspect("modern", era, call("ask_roots")),
        ok({
          _meta: MODERN_PEER_META,
          content: [{ type: "text", text: '["file:///srv/project"]' }],
        }),
      );
    });
  });
}
