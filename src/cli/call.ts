/**
 * `sluice call <server> <tool> [json-args]`: a terminal MCP client. It calls one tool with the
 * server's policy (and the tasks extension on), and answers what the server asks by asking the
 * person at the terminal.
 *
 * @module
 */
import { signInRequiredBy } from "../auth/upstream-auth-error.ts";
import { createClient } from "../client/legacy/legacy-client.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { LogLevel } from "../policy/policy.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { flagText, parseArgs, show } from "./_args.ts";
import { CALL_EXIT, describeFailure, exitCodeOf, printResult, progressLine } from "./_call-output.ts";
import { LineReader, Prompter } from "./_prompt-input.ts";
import { createTerminalHandler } from "./_prompt-handler.ts";
import { LOGGING_LEVELS } from "../protocol/logging-level.ts";
import { Screen } from "./_terminal.ts";
import type { CliIo } from "./cli-io.ts";
import { loadPolicyFolder } from "./_policy-folder.ts";
import { openTokenFile } from "./_token-file.ts";

/** The text of `sluice call --help`. */
export const CALL_HELP: string = `Usage: sluice call <server> <tool> [json-args] [flags]

Calls one tool of one server under that server's policy, and answers what the server asks in
this terminal: forms field by field, web pages with your consent (sluice never opens them),
sampling replies you type, and roots (the current folder, if you agree). The tasks extension is on.
It prints the tool's content (text parts as text, other parts as JSON), then its
structuredContent as JSON unless a text part holds the same JSON. Server log entries and
errors go to stderr. A server whose policy has transport.auth.oauth is called with the tokens
"sluice login" saved (refreshed when they expire); without them the call fails and says to run
"sluice login <server>".

Arguments:
  <server>      the server id of a policy in the policies folder
  <tool>        the tool's name
  [json-args]   the tool's arguments, a JSON object (default {})

Flags:
  --policies <dir>      the folder of policy files (default ./policies)
  --log-level <level>   print the server's log entries at this level and above to stderr:
                        debug, info, notice, warning, error, critical, alert, emergency
                        (default info; the policy's logLevel decides what the server sends)
  --json                print the whole result as JSON instead of its content
  -h, --help            show this help

Environment:
  SLUICE_TOKEN_FILE     the token file of "sluice login" (default
                        $XDG_CONFIG_HOME/sluice/tokens.json, else ~/.config/sluice/tokens.json)

At the prompts: Enter accepts a [default]; :decline or :cancel answers a form; y, n or c answers
a web page; a sampling reply ends with a line holding just "." (or type :refuse). The policy's
handlerTimeout bounds each prompt (by default 5m for elicitation, 60s for sampling and roots).

Exit codes:
  0     the tool answered
  1     the tool reported an error (isError: true)
  2     usage error: bad arguments or flags, an unknown server, policies that do not load
  3     refused: the policy refused an input request (ClientError "policy"), you refused one
        (ClientError "input_handler", e.g. :refuse), or the server needed a kind of input the
        policy turns off (-32021)
  4     failed: transport or connection, protocol, an error answer from the server, a timeout,
        a server that needs "sluice login" first
  130   interrupted (Ctrl-C)

Examples:
  sluice call demo add '{"a": 1, "b": 2}'
  sluice call demo ask_form --policies ./policies
  sluice call github list_issues '{"state": "open"}' --log-level debug
`;

/** A call ready to make: what the command line asked for, and the server's policy. */
interface CallPlan {
  readonly policy: CompiledPolicy;
  readonly tool: string;
  readonly args: JsonObject;
  readonly logLevel: LogLevel;
  readonly json: boolean;
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
  const screen = new Screen(io);
  const reader = new LineReader(io.stdin);
  const prompter = new Prompter(screen, reader);
  const handler = createTerminalHandler({ prompter, policy, cwd: io.cwd ?? ".", logLevel: plan.logLevel });
  // Tokens from `sluice login`. No redirect URI: a missing sign-in is reported, never started here.
  const signIn = { tokens: openTokenFile(io).tokens };
  const client = createClient({ name: "sluice", handler, policies: [policy], tasks: true, signIn });
  let result: unknown;
  try {
    result = await client.callTool(policy.server, plan.tool, plan.args, {
      onProgress: (params) => screen.progress(progressLine(params)),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } catch (error) {
    const needed = signInRequiredBy(error);
    screen.error(
      needed === undefined
        ? `sluice call: ${describeFailure(error)}`
        : `sluice call: server "${needed.server}" needs a sign-in: run \`sluice login ${needed.server}\``,
    );
    return exitCodeOf(error, io.signal?.aborted === true);
  } finally {
    screen.end();
    reader.close();
    await client.close();
  }
  if (plan.json) screen.line(JSON.stringify(result, null, 2));
  else printResult(screen, result);
  if ((result as { isError?: unknown }).isError !== true) return CALL_EXIT.ok;
  screen.error("sluice call: the tool reported an error (isError: true)");
  return CALL_EXIT.toolError;
}

/** Reads the command line and the server's policy; an exit code when there is nothing to call. */
async function readPlan(argv: readonly string[], io: CliIo): Promise<CallPlan | number> {
  const usage = (message: string): number => {
    io.stderr.write(`sluice call: ${message}\nRun "sluice call --help" for usage.\n`);
    return CALL_EXIT.usage;
  };
  const parsed = parseArgs("sluice call", argv, {
    policies: "string",
    "log-level": "string",
    json: "boolean",
  });
  if (!parsed.ok) return usage(parsed.message.replace(/^sluice call: /, ""));
  const { flags, positionals } = parsed.args;
  if (flags.has("help")) return (io.stdout.write(CALL_HELP), CALL_EXIT.ok);
  const [server, tool, json, extra] = positionals;
  if (server === undefined || tool === undefined) {
    return usage(`expected <server> and <tool>, received ${server === undefined ? "neither" : "no <tool>"}`);
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
  const dir = flagText(parsed.args, "policies") ?? "policies";
  const policies = await loadPolicyFolder(dir, io);
  if (typeof policies === "string") return usage(policies);
  const policy = policies.find((p) => p.server === server);
  if (policy === undefined) {
    const known = policies.map((p) => JSON.stringify(p.server)).join(", ");
    return usage(`no policy for server ${show(server)} in ${show(dir)}, expected one of: ${known}`);
  }
  return { policy, tool, args, logLevel: logLevel as LogLevel, json: flags.has("json") };
}

function readArguments(json: string | undefined): JsonObject | string {
  if (json === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return `[json-args] must be a JSON object, received ${show(json)}, which is not JSON`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `[json-args] must be a JSON object, received ${show(json)}`;
  }
  return value as JsonObject;
}
