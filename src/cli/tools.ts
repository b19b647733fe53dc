/**
 * `sluice tools <server>`: lists a server's tools with their arguments, under that server's
 * policy, so a person can see what `sluice call` can call and with which JSON arguments.
 *
 * @module
 */
import { createClient } from "../client/legacy/legacy-client.ts";
import { defineHandler, type HandlerError } from "../handler/handler.ts";
import { CALL_EXIT, describeCallFailure, exitCodeOf } from "./_call-output.ts";
import { readServerTarget } from "./_server-target.ts";
import { logLine } from "./_prompt-handler.ts";
import { flagText } from "./_args.ts";
import { safeJson } from "../_internal/safe-json.ts";
import { Screen } from "./_terminal.ts";
import { openTokenFile } from "./_token-file.ts";
import { listAllTools, printTools, type ToolPages } from "./_tool-list.ts";
import type { CliIo } from "./cli-io.ts";

/** The text of `sluice tools --help`. */
export const TOOLS_HELP: string = `Usage: sluice tools <server> [flags]

Lists the tools of one server (every page of tools/list), under that server's policy: each
tool's name and title, its description, and its arguments from the input schema (type,
required or optional, the values an enum allows, the default, the description). A server whose
policy has transport.auth.oauth is asked with the tokens "sluice login" saved.

Arguments:
  <server>            the server id of a policy in the policies folder

Flags:
  --policies <dir>    the folder of policy files (default ./policies)
  --json              print the tools/list result as JSON (the tools of every page)
  -h, --help          show this help

Environment:
  SLUICE_TOKEN_FILE   the token file of "sluice login" (default
                      $XDG_CONFIG_HOME/sluice/tokens.json, else ~/.config/sluice/tokens.json)

Exit codes:
  0     the tools were listed
  2     usage error: bad arguments or flags, an unknown server, policies that do not load
  4     failed: transport or connection, protocol, an error answer from the server, a timeout,
        a server that needs "sluice login" first
  130   interrupted (Ctrl-C)

Examples:
  sluice tools demo
  sluice tools github --json --policies ./policies
`;

const refuse = (): HandlerError => ({
  error: { code: -32603, message: 'sluice tools answers no input requests (run "sluice call")' },
});

/**
 * Declares what `sluice call` declares, since servers list only the tools a client's capabilities
 * can serve; a request the server sends meanwhile is refused. The server's last log lines are kept
 * to print if the listing fails (a stdio server's stderr says why it would not start).
 */
const listingHandler = (logs: string[]) =>
  defineHandler({
    elicitationModes: ["form", "url"],
    elicitation: refuse,
    sampling: refuse,
    roots: refuse,
    log: (level, entry) => {
      if (logs.push(logLine(level, entry)) > KEPT_LOG_LINES) logs.shift();
    },
  });

/** How many of the server's last log lines a failed listing prints. */
const KEPT_LOG_LINES = 20;

/**
 * Runs `sluice tools`.
 *
 * @param argv The arguments after `tools`.
 * @param io The command's io.
 * @returns The exit code (see {@linkcode TOOLS_HELP}).
 */
export async function runTools(argv: readonly string[], io: CliIo): Promise<number> {
  const target = await readServerTarget(argv, io, {
    name: "tools",
    help: TOOLS_HELP,
    flags: { json: "boolean" },
  });
  if (typeof target === "number") return target;
  const { policy } = target;
  const { server } = policy;
  const screen = new Screen(io);
  const logs: string[] = [];
  const client = createClient({
    name: "sluice",
    handler: listingHandler(logs),
    policies: [policy],
    tasks: true,
    signIn: { tokens: openTokenFile(io).tokens },
  });
  let listed: ToolPages;
  try {
    listed = await listAllTools(client, server, io.signal);
  } catch (error) {
    for (const line of logs) screen.error(line);
    screen.error(`sluice tools: ${describeCallFailure(error, flagText(target.args, "policies"))}`);
    return exitCodeOf(error, io.signal?.aborted === true);
  } finally {
    await client.close();
  }
  if (target.args.flags.has("json")) screen.line(safeJson(listed.result, 2));
  else printTools(screen, server, listed.result.tools);
  if (listed.stopped !== undefined) screen.error(`sluice tools: ${listed.stopped}`);
  return CALL_EXIT.ok;
}
