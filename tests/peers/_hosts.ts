// What the hosts tests (`hosts-*.node.test.ts`) share: one gateway process (`sluice serve`) in
// front of three real upstreams, and what each upstream answers, exactly.
//
// - `everything`: server-everything 2026.8.31 over stdio (legacy), every input kind passed down,
//   logs from debug up (so a host that sets "debug" sees each of its simulated messages);
// - `modern`: the modern peer (`modern-server.ts`, 2026-07-28), every input kind passed down;
// - `files`: server-filesystem 2026.8.31 over stdio (legacy), started with no folder, so it
//   serves only the roots its host gives; roots passed down;
// - `conformance` (when asked for): the modern peer serving the conformance suite's fixtures
//   (`_conformance-tools.ts`), every input kind passed down.
import { join } from "node:path";
import process from "node:process";
import { EVERYTHING_ENTRY } from "../_support/everything.ts";
import { EVERYTHING_FORM_DEFAULTS } from "../_support/everything-form.ts";
import { type GatewayProcess, startGatewayProcess } from "../_support/gateway-process.ts";
import { type ModernPeer, nodeBinary, REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";

/**
 * `false` on Node; on Deno and Bun the reason the hosts tests skip themselves (they are `.node.`
 * files, and a directory run may still hand them over).
 */
export const NODE_ONLY: false | string =
  process.versions.deno === undefined && process.versions.bun === undefined ? false : "Node only";

/** What a host's rejected call looks like, in the fields the hosts tests compare. */
export function callFailure(error: unknown): { name: string; code: unknown; message: string } {
  const e = error as { constructor: { name: string }; code?: unknown; message: string };
  return { name: e.constructor.name, code: e.code, message: e.message };
}

/** The reason a host aborts a call with (once its handler holds an elicitation, or progress came). */
export const ABORT = "the user stopped it";

/** A running gateway process and the modern peer behind it. */
export interface HostsGateway {
  /** The MCP endpoint of one server: `<gateway>/mcp/<server>`. */
  endpoint(server: "everything" | "modern" | "files" | "conformance"): string;
  /** Stops the gateway (and with it every stdio child), then the peer; the gateway's exit code. */
  stop(): Promise<number | null>;
}

const PASS_DOWN = ["sampling", "elicitation", "roots"] as const;

/** server-filesystem's entry script, by absolute path (no `npx`). */
const FILESYSTEM_ENTRY = join(
  REPO_ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js",
);

/**
 * Starts the modern peer, then `sluice serve` with the three policies (four with `conformance`),
 * beating every 200 ms: the hosts read streams that carry the heartbeat's comments, as they would
 * behind a real proxy.
 *
 * @param options `conformance: true` adds the `conformance` server and its own modern peer.
 * @returns The running gateway and peers, once the gateway listens.
 */
export async function startHostsGateway(options: { conformance?: boolean } = {}): Promise<HostsGateway> {
  const peers: ModernPeer[] = [];
  let gateway: GatewayProcess;
  try {
    const peer = await startModernPeer();
    peers.push(peer);
    const fixtures = options.conformance === true ? await startModernPeer("conformance") : undefined;
    if (fixtures !== undefined) peers.push(fixtures);
    gateway = await startGatewayProcess([
      {
        server: "everything",
        transport: { command: nodeBinary(), args: [EVERYTHING_ENTRY, "stdio"] },
        era: "legacy",
        passDown: PASS_DOWN,
        logLevel: "debug",
      },
      { server: "modern", transport: { url: peer.url }, era: "modern", passDown: PASS_DOWN },
      {
        server: "files",
        transport: { command: nodeBinary(), args: [FILESYSTEM_ENTRY] },
        era: "legacy",
        passDown: ["roots"],
      },
      ...fixtures === undefined ? [] : [{
        server: "conformance",
        transport: { url: fixtures.url },
        era: "modern" as const,
        passDown: PASS_DOWN,
      }],
    ], ["--heartbeat", "200ms"]);
  } catch (e) {
    await Promise.all(peers.map((peer) => peer.stop()));
    throw e;
  }
  return {
    endpoint: (server) => `${gateway.url}/mcp/${server}`,
    async stop() {
      const code = await gateway.stop();
      await Promise.all(peers.map((peer) => peer.stop()));
      return code;
    },
  };
}

/** The `serverInfo` a host sees (legacy: `initialize`; 2026-07-28: `server/discover`), titled with the server. */
export function frontServerInfo(server: string): { name: string; title: string; version: string } {
  return { name: "sluice-front", title: `sluice: ${server}`, version: "0.1.0" };
}

/** server-everything's tools for any client, in its order. */
const EVERYTHING_BASE_TOOLS = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
] as const;

/**
 * server-everything's tools, in its order, for what its client (the gateway's upstream session)
 * declared: roots, elicitation (form; URL too), sampling.
 *
 * @param declared What the upstream session declared.
 * @returns The tool names.
 */
export function everythingTools(
  declared: { roots?: boolean; elicitation?: "form" | "form+url"; sampling?: boolean },
): string[] {
  return [
    ...EVERYTHING_BASE_TOOLS,
    ...declared.roots === true ? ["get-roots-list"] : [],
    ...declared.elicitation === undefined ? [] : ["trigger-elicitation-request"],
    ...declared.elicitation === "form+url" ? ["trigger-url-elicitation"] : [],
    ...declared.sampling === true ? ["trigger-sampling-request"] : [],
    "simulate-research-query",
  ];
}

/** The modern peer's tools, in its order. */
export const MODERN_TOOLS: readonly string[] = [
  "ask_form",
  "ask_schema",
  "ask_url",
  "ask_sampling",
  "ask_roots",
  "ask_two",
  "ask_three_rounds",
  "state_only",
  "needs_sampling_tools",
  "undeclared",
  "echo",
  "progress_twice",
  "add",
  "slow_task",
];

/** The `_meta` the modern peer puts on every result (it names itself). */
export const MODERN_PEER_META = {
  "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" },
} as const;

/** The answer the hosts give to server-everything's 13-field form. */
export const EVERYTHING_FORM_ANSWER = { name: "Ada Lovelace", check: true } as const;

/**
 * trigger-elicitation-request's result for {@linkcode EVERYTHING_FORM_ANSWER}: the gateway's
 * post-checks filled in the form's defaults before the answer went upstream.
 */
export const EVERYTHING_ELICITATION_RESULT = [
  { type: "text", text: "✅ User provided the requested information!" },
  {
    type: "text",
    text:
      "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Favorite Integer: 42\n- Favorite Number: 3.14",
  },
  {
    type: "text",
    text: `\nRaw result: ${
      JSON.stringify(
        {
          action: "accept",
          content: { name: "Ada Lovelace", check: true, ...EVERYTHING_FORM_DEFAULTS },
        },
        null,
        2,
      )
    }`,
  },
];

/** The answer the hosts give to the modern peer's `ask_form` (name and age). */
export const MODERN_FORM_ANSWER = { name: "Ada", age: 36 } as const;

/**
 * What `ask_form` received for {@linkcode MODERN_FORM_ANSWER} (it answers with it as JSON text): the
 * default `subscribe` filled in.
 */
export const MODERN_FORM_RECEIVED = { name: "Ada", age: 36, subscribe: false } as const;

/** What every host's sampling handler answers. */
export const SAMPLING_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "Hello from the host" },
  model: "host-model",
} as const;

/** trigger-sampling-request's params as the host's handler sees them: `maxTokens` 999999 clamped to 4096. */
export const EVERYTHING_SAMPLING_PARAMS = {
  messages: [{
    role: "user",
    content: { type: "text", text: "Resource trigger-sampling-request context: Hi" },
  }],
  systemPrompt: "You are a helpful test server.",
  temperature: 0.7,
  maxTokens: 4096,
} as const;

/** trigger-sampling-request's result for {@linkcode SAMPLING_ANSWER}. */
export const EVERYTHING_SAMPLING_RESULT = [{
  type: "text",
  text: `LLM sampling result: \n${
    JSON.stringify(
      { model: "host-model", role: "assistant", content: { type: "text", text: "Hello from the host" } },
      null,
      2,
    )
  }`,
}];

/** ask_sampling's params as the host's handler sees them: `maxTokens` 999999 clamped to 4096. */
export const MODERN_SAMPLING_PARAMS = {
  messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
  maxTokens: 4096,
} as const;

/** The roots every host of `everything` and `modern` gives. */
export const HOST_ROOTS = [{ uri: "file:///srv/project", name: "project" }] as const;

/** get-roots-list's result for {@linkcode HOST_ROOTS}. */
export const EVERYTHING_ROOTS_RESULT = [{
  type: "text",
  text: "Current MCP Roots (1 total):\n\n1. project\n   URI: file:///srv/project\n\n" +
    "Note: This server demonstrates the roots protocol capability but doesn't actually access files. " +
    "The roots are provided by the MCP client and can be used by servers that need file system access.",
}];

/** The log server-everything sends once it has its client's roots. */
export const EVERYTHING_ROOTS_LOG = {
  level: "info",
  logger: "everything-server",
  data: "Roots updated: 1 root(s) received from client",
} as const;

/** toggle-simulated-logging's messages, by level (it picks one at random, then one every 5 s). */
export const EVERYTHING_SIMULATED_LOGS: Readonly<Record<string, { level: string; data: string }>> = {
  debug: { level: "debug", data: "Debug-level message" },
  info: { level: "info", data: "Info-level message" },
  notice: { level: "notice", data: "Notice-level message" },
  warning: { level: "warning", data: "Warning-level message" },
  error: { level: "error", data: "Error-level message" },
  critical: { level: "critical", data: "Critical-level message" },
  alert: { level: "alert", data: "Alert level-message" },
  emergency: { level: "emergency", data: "Emergency-level message" },
};

/** Whether a log entry is one of toggle-simulated-logging's. */
export function isSimulatedLog(params: { data?: unknown }): boolean {
  return Object.values(EVERYTHING_SIMULATED_LOGS).some((log) => log.data === params.data);
}

/** toggle-simulated-logging's first answer (stdio has no session id). */
export const EVERYTHING_LOGGING_STARTED = [{
  type: "text",
  text: "Started simulated, random-leveled logging for session undefined at a 5 second pace. " +
    "Client's selected logging level will be respected. If an interval elapses and the message to be sent " +
    "is below the selected level, it will not be sent. Thus at higher chosen logging levels, messages should " +
    "arrive further apart. ",
}];

/** toggle-simulated-logging's second answer. */
export const EVERYTHING_LOGGING_STOPPED = [{
  type: "text",
  text: "Stopped simulated logging for session undefined",
}];

/** trigger-long-running-operation's arguments in the progress tests: 3 steps of 10 ms. */
export const LONG_RUN_ARGS = { duration: 0.03, steps: 3 } as const;

/** The progress a host sees for {@linkcode LONG_RUN_ARGS}. */
export const LONG_RUN_PROGRESS = [
  { progress: 1, total: 3 },
  { progress: 2, total: 3 },
  { progress: 3, total: 3 },
] as const;

/** trigger-long-running-operation's result for {@linkcode LONG_RUN_ARGS}. */
export const LONG_RUN_RESULT = [{
  type: "text",
  text: "Long running operation completed. Duration: 0.03 seconds, Steps: 3.",
}];

/** A long run a host cancels after its first progress: 100 steps of 100 ms. */
export const CANCELLED_RUN_ARGS = { duration: 10, steps: 100 } as const;
