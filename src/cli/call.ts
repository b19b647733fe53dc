/**
 * `sluice call <server> <tool> [json-args]`: a terminal MCP client. It calls one tool with the
 * server's policy (and the tasks extension on), and answers what the server asks by asking the
 * person at the terminal.
 *
 * @module
 */
import type { Client } from "../client/client-types.ts";
import type { InputDecision } from "../chain/decision.ts";
import { createClient } from "../client/legacy/legacy-client.ts";
import { ClientError } from "../errors.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { LogLevel } from "../policy/policy.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { flagText, parseArgs, show, usageError } from "./_args.ts";
import { findJsonSyntaxError } from "./_json-syntax-error.ts";
import {
  CALL_EXIT,
  describeCallFailure,
  describeFailure,
  exitCodeOf,
  printResult,
  progressLine,
} from "./_call-output.ts";
import { LineReader, Prompter, untilAborted } from "./_prompt-input.ts";
import { createTerminalHandler } from "./_prompt-handler.ts";
import { LOGGING_LEVELS } from "../protocol/logging-level.ts";
import { safeJson } from "../_internal/safe-json.ts";
import { INEXACT, inexactNumberIn } from "../checks/form/field-value.ts";
import { safeLine, Screen } from "./_terminal.ts";
import type { CliIo } from "./cli-io.ts";
import { loadServerPolicy } from "./_policy-folder.ts";
import { openTokenFile } from "./_token-file.ts";
import { listAllTools } from "./_tool-list.ts";

/** The text of `sluice call --help`. */
export const CALL_HELP: string = `Usage: sluice call <server> <tool> [json-args] [flags]

Calls one tool of one server under that server's policy, and answers what the server asks in
this terminal: forms field by field, web pages with your consent (you open them; sluice does not),
sampling replies you type, and roots (the current folder, if you agree). The tasks extension is on.
It prints the tool's content (text parts as text, other parts as JSON), then its
structuredContent as JSON unless a text part holds the same JSON. On a terminal, text parts are
cleaned of control and invisible characters; piped, they are exact. In JSON (and with --json)
such characters are always \\uXXXX escapes. Server log entries and errors go to stderr, and so
do the prompts and progress when stdout goes to a file or a pipe and stderr is a terminal. A
server whose policy has transport.auth.oauth is called with the tokens "sluice login" saved
(refreshed when they expire); without them the call fails and says to run "sluice login <server>".
"sluice tools <server>" lists the tools and their arguments.

Arguments:
  <server>      the server id of a policy in the policies folder
  <tool>        the tool's name
  [json-args]   the tool's arguments, a JSON object (default {})

Flags:
  --policies <dir>      the folder of policy files (default ./policies)
  --log-level <level>   print the server's log entries at this level and above to stderr:
                        debug, info, notice, warning, error, critical, alert, emergency
                        (default info; the policy's logLevel decides what the server sends)
  --json                print the whole result as JSON instead of its content, alone on
                        stdout (prompts and progress go to stderr)
  -h, --help            show this help

Environment:
  SLUICE_TOKEN_FILE     the token file of "sluice login" (default
                        $XDG_CONFIG_HOME/sluice/tokens.json, else ~/.config/sluice/tokens.json)

At the prompts: Enter accepts a [default]; :decline or :cancel answers a form; y, n or c answers
a web page, and after y, Enter once you are done there sends the acceptance; a sampling reply
ends with a line holding just "." (or type :refuse). The policy's handlerTimeout bounds each
prompt (by default 5m for elicitation, a web page's visit included, 60s for sampling and roots),
its wait for an earlier prompt included: one whose time runs out then is not asked, and says so.
When a call asks for input again after you answered, later prompts show their round ("round 2").
What a legacy server asks as its session opens (the roots some servers ask for at start-up) is
answered before the call goes out.
With stdin closed (no terminal, nothing piped), a prompt cannot be answered: the input request
fails and the command exits 6. A legacy server's request outside the call (the roots some servers
ask for at start-up) fails too, and is only reported.

Exit codes:
  0     the tool answered
  1     the tool reported an error (isError: true)
  2     usage error: bad arguments or flags, an unknown server, policies that do not load, a tool
        the server does not list (see "sluice tools <server>")
  3     refused by the policy: a check of the policy refused an input request (ClientError
        "policy"; a legacy server is told and may still answer the call, which is printed),
        or the server needed a kind of input the policy turns off (-32021)
  4     failed: transport or connection, protocol, an error answer from the server, a timeout,
        a server that needs "sluice login" first
  5     refused by you: you declined or cancelled a form (:decline, :cancel) or a web page (n, c),
        or refused a sampling request (:refuse); the server's answer is still printed
  6     stdin closed while a prompt waited for your answer
  130   interrupted (Ctrl-C)

Examples:
  sluice call demo add '{"a": 1, "b": 2}'
  sluice call demo book_trip --policies ./policies
  sluice call github list_issues '{"state": "open"}' --log-level debug
`;

/** A call ready to make: what the command line asked for, and the server's policy. */
interface CallPlan {
  readonly policy: CompiledPolicy;
  readonly tool: string;
  readonly args: JsonObject;
  readonly logLevel: LogLevel;
  readonly json: boolean;
  /** The `--policies` folder, when given. */
  readonly policies: string | undefined;
}

/**
 * Runs `sluice call`.
 *
 * @param argv The arguments after `call`.
 * @param io The command's io.
 * @returns The exit code (see {@linkcode CALL_HELP}).
 */
export async function runCall(argv: readonly string[], io: CliIo): Promise<number> {
  const plan = await readPlan(argv, io);
  if (typeof plan === "number") return plan;
  const { policy } = plan;
  // Prompts and progress go to stderr with --json, or when only stderr is a terminal.
  const screen = new Screen(io, { stdout: !plan.json && (io.isTTY || io.stderrIsTTY !== true) });
  const reader = new LineReader(io.stdin);
  const prompter = new Prompter(screen, reader);
  const handler = createTerminalHandler({ prompter, policy, cwd: io.cwd ?? ".", logLevel: plan.logLevel });
  // Tokens from `sluice login`. No redirect URI: a missing sign-in is reported, never started here.
  const signIn = { tokens: openTokenFile(io).tokens };
  const client = createClient({ name: "sluice", handler, policies: [policy], tasks: true, signIn });
  let result: unknown;
  let failure: { readonly error: unknown } | undefined;
  let unknownTool = false;
  // A legacy server is told of a refusal and may carry on: the first one is reported at the end.
  let refused: InputDecision | undefined;
  client.onDecision((decision) => {
    if (decision.type === "input" && decision.outcome === "policy") refused ??= decision;
  });
  try {
    await beforeCall(client, policy.server, prompter, io.signal);
    result = await client.callTool(policy.server, plan.tool, plan.args, {
      onProgress: (params) => screen.progress(progressLine(params)),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } catch (error) {
    failure = { error };
  } finally {
    screen.end();
    reader.close();
  }
  try {
    if (io.signal?.aborted !== true && mayBeUnknownTool(failure?.error, result)) {
      unknownTool = await lacksTool(client, policy.server, plan.tool, io.signal);
    }
  } finally {
    await client.close();
  }
  if (failure === undefined && !unknownTool) {
    if (plan.json) io.stdout.write(`${safeJson(result, 2)}\n`);
    // The result goes to stdout, wherever the questions went.
    else printResult(new Screen(io), result);
  }
  return endCall({ screen, prompter, server: policy.server, tool: plan.tool, io, policies: plan.policies }, {
    failure,
    unknownTool,
    refused,
    isError: (result as { isError?: unknown } | undefined)?.isError === true,
  });
}

/**
 * Says how the call ended and picks its exit code. In order: an interruption, stdin closing under
 * a prompt of the call, the person's decline, an unknown tool, the call's own failure, a policy
 * refusal a legacy server carried on after, then a tool error.
 */
function endCall(
  call: {
    screen: Screen;
    prompter: Prompter;
    server: string;
    tool: string;
    io: CliIo;
    policies: string | undefined;
  },
  how: {
    failure: { readonly error: unknown } | undefined;
    unknownTool: boolean;
    refused: InputDecision | undefined;
    isError: boolean;
  },
): number {
  const { screen, prompter, server } = call;
  const interrupted = call.io.signal?.aborted === true;
  if (interrupted && how.failure !== undefined) {
    screen.error(`sluice call: ${describeFailure(how.failure.error)}`);
    return CALL_EXIT.interrupted;
  }
  if (prompter.unanswered !== undefined) {
    screen.error(
      `sluice call: cannot answer ${prompter.unanswered}: stdin is closed, expected an answer ` +
        "typed at a terminal or piped to stdin",
    );
    return CALL_EXIT.stdinClosed;
  }
  if (prompter.unansweredAside !== undefined) {
    screen.error(
      `sluice call: could not answer ${prompter.unansweredAside}, which was not part of the call: stdin is closed`,
    );
  }
  if (prompter.declined !== undefined) {
    screen.error(`sluice call: you ${prompter.declined}`);
    return CALL_EXIT.declined;
  }
  if (how.unknownTool) {
    screen.error(
      `sluice call: server "${server}" has no tool ${show(call.tool)}: ` +
        `run "sluice tools ${server}" to list its tools`,
    );
    return CALL_EXIT.usage;
  }
  if (how.failure !== undefined) {
    screen.error(`sluice call: ${describeCallFailure(how.failure.error, call.policies)}`);
    return exitCodeOf(how.failure.error, interrupted);
  }
  if (how.refused !== undefined) {
    screen.error(
      `sluice call: the policy refused ${how.refused.method} from server "${server}": ${
        safeLine(how.refused.refusal?.message ?? "", 300)
      } (the server was told, and answered the call)`,
    );
    return CALL_EXIT.refused;
  }
  if (!how.isError) return CALL_EXIT.ok;
  screen.error("sluice call: the tool reported an error (isError: true)");
  return CALL_EXIT.toolError;
}

/**
 * Whether the call's end may mean the tool does not exist: servers answer an unknown tool with a
 * JSON-RPC error (-32602 as the spec says, or -32601) or with a tool result marked `isError`.
 */
function mayBeUnknownTool(error: unknown, result: unknown): boolean {
  if (error === undefined) return (result as { isError?: unknown } | undefined)?.isError === true;
  return error instanceof ClientError && error.kind === "server" &&
    (error.code === -32602 || error.code === -32601);
}

/** Whether the server's tools/list lacks the tool; `false` when the list cannot be read. */
async function lacksTool(
  client: Client,
  server: string,
  tool: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const { result, stopped } = await listAllTools(client, server, signal);
    // A list read only in part cannot tell that a tool is not there.
    return stopped === undefined && !result.tools.some((t) => t.name === tool);
  } catch {
    return false;
  }
}

/**
 * Opens the server's session (by listing the tools), and lets the person answer what the server
 * asks as it opens before the call goes out: a legacy server may ask at once (server-filesystem
 * wants its roots and refuses every path until it has them).
 *
 * @param client The command's client.
 * @param server The server.
 * @param prompter The terminal, whose questions are awaited.
 * @param signal Ctrl-C.
 * @throws What listing the tools failed with, as the call would.
 */
async function beforeCall(
  client: Client,
  server: string,
  prompter: Prompter,
  signal?: AbortSignal,
): Promise<void> {
  const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));
  try {
    await client.listTools(server, signal === undefined ? {} : { signal });
  } catch (error) {
    // Ctrl-C before the list was answered: the call fails as cancelled and names itself.
    if (signal?.aborted === true) return;
    throw error;
  }
  await nextTurn();
  // Ctrl-C ends the wait at once; closing the client withdraws the prompt.
  await untilAborted(prompter.settled(), signal);
  // The answers go out once their checks have run (queued work), before the call.
  await nextTurn();
}

/** Reads the command line and the server's policy; an exit code when there is nothing to call. */
async function readPlan(argv: readonly string[], io: CliIo): Promise<CallPlan | number> {
  const usage = (message: string): number => usageError(io, "call", message);
  const parsed = parseArgs(argv, { policies: "string", "log-level": "string", json: "boolean" });
  if (!parsed.ok) return usage(parsed.message);
  const { flags, positionals } = parsed.args;
  if (flags.has("help")) return (io.stdout.write(CALL_HELP), CALL_EXIT.ok);
  const [server, tool, json, extra] = positionals;
  if (server === undefined) return usage("expected <server> and <tool>, received neither");
  if (tool === undefined) {
    return usage(
      `expected <server> and <tool>, received no <tool>; run "sluice tools ${server}" to list its tools`,
    );
  }
  if (extra !== undefined) {
    return usage(`unexpected argument ${show(extra)}, expected at most <server> <tool> [json-args]`);
  }
  const args = readArguments(json);
  if (typeof args === "string") return usage(args);
  const logLevel = flagText(parsed.args, "log-level") ?? "info";
  if (!LOGGING_LEVELS.includes(logLevel as LogLevel)) {
    return usage(
      `flag "--log-level" must be one of ${LOGGING_LEVELS.join(", ")}, received ${show(logLevel)}`,
    );
  }
  const policies = flagText(parsed.args, "policies");
  const policy = await loadServerPolicy(policies ?? "policies", server, io);
  if (typeof policy === "string") return usage(policy);
  return { policy, tool, args, logLevel: logLevel as LogLevel, json: flags.has("json"), policies };
}

function readArguments(json: string | undefined): JsonObject | string {
  if (json === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    const broken = findJsonSyntaxError(json);
    const where = broken === undefined ? "" : `: at character ${broken.offset + 1}, ${broken.what}`;
    return `[json-args] must be a JSON object, received ${show(json)}, which is not JSON${where}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `[json-args] must be a JSON object, received ${show(json)}`;
  }
  const inexact = inexactNumberIn(json);
  if (inexact !== undefined) return `[json-args] holds the number ${inexact}, ${INEXACT}`;
  return value as JsonObject;
}
