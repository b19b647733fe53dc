/// <reference types="node" />
/**
 * The `sluice` command (`@sluice/mcp/cli`), on Node, Deno and Bun.
 *
 * ```text
 * sluice check [dir]                          compile the policy files, print each server's chain
 * sluice serve [--port N] [--host H] [--policies dir] [--handler module]
 *                                             run the front until SIGINT or SIGTERM
 * sluice tools <server> [--policies dir] [--json]
 *                                             list a server's tools and their arguments
 * sluice call <server> <tool> [json-args] [--policies dir] [--log-level L] [--json]
 *                                             call a tool, answering the server at the terminal
 * sluice login <server> [--open] [--policies dir]
 *                                             sign in to a server with OAuth, keep its tokens
 * sluice logout <server> [--policies dir]     forget a server's tokens
 * sluice --help | --version
 * ```
 *
 * Run it with `npx sluice …` (the npm bin, `bin/sluice.mjs`), `deno run -A src/cli/mod.ts …` or
 * `bun src/cli/mod.ts …`; or call {@linkcode main} with a scripted {@linkcode CliIo}.
 *
 * @example
 * ```ts
 * import { main } from "@sluice/mcp/cli";
 * let out = "";
 * const io = {
 *   stdin: (async function* () {})(),
 *   stdout: { write: (text: string) => (out += text) },
 *   stderr: { write: (text: string) => (out += text) },
 *   env: {},
 *   isTTY: false,
 * };
 * console.log(await main(["--version"], io), out); // 0 "sluice 0.1.0\n"
 * ```
 *
 * @module
 */
import process from "node:process";
import { SLUICE_VERSION } from "../client/client-core.ts";
import { CALL_HELP, runCall } from "./call.ts";
import { CHECK_HELP, runCheck } from "./check.ts";
import { type CliIo, openProcessIo } from "./cli-io.ts";
import { LOGIN_HELP, runLogin } from "./login.ts";
import { LOGOUT_HELP, runLogout } from "./logout.ts";
import { runServe, SERVE_HELP } from "./serve.ts";
import { runTools, TOOLS_HELP } from "./tools.ts";

export type { CliIo, CliWriter } from "./cli-io.ts";
export { loadPolicies } from "./load-policies.ts";
export type { LoadedPolicies, LoadPoliciesOptions } from "./load-policies.ts";
// What `loadPolicies` gives back: the compiled policies (for `createClient` or a gateway) and the problems.
export type { CompiledPolicy } from "../policy/compile-policy.ts";
export type { PolicyProblem } from "../policy/policy-error.ts";

/** The text of `sluice --help`. */
export const HELP: string = `sluice ${SLUICE_VERSION}: the client side of MCP, answering what servers ask
(sampling, elicitation, roots) per server, under a policy file per server.

Usage: sluice <command> [arguments] [flags]

Commands:
  check [dir]                         compile every policy file (default ./policies) and print
                                      each server's chain of checks with its numbers
  serve [--port N] [--host H] [--policies dir] [--handler module] [--auth module] [...]
                                      run the sluice front (/mcp/<server>) until SIGINT
                                      or SIGTERM ("sluice serve --help" for every flag)
  tools <server> [--json]             list a server's tools with their arguments (type,
                                      required, choices, default, description)
  call <server> <tool> [json-args] [--json] [--log-level level]
                                      call a tool, answering the server's questions (forms,
                                      web pages, sampling, roots) at this terminal
  login <server> [--open]             sign in to a server whose policy has transport.auth.oauth
                                      in your browser; its tokens are kept for call
  logout <server>                     forget the tokens login kept for a server

Flags:
  --policies <dir>  every command: the folder of policy files (default ./policies)
  -h, --help        show this help; "sluice <command> --help" shows a command's
  -V, --version     print the version

Exit codes:
  0     success
  1     check: a policy file has problems; call: the tool reported an error (isError: true);
        serve, login: cannot listen
  2     usage error: an unknown command or flag, a bad argument, policies that do not load,
        call: a tool the server does not list; login and logout: a server without
        transport.auth.oauth
  3     call, login: refused by the policy
  4     call, tools: transport, connection or protocol failure, a server error, a timeout, a
        server that needs "sluice login"; login: the sign-in failed or timed out; logout: the
        token file cannot be used
  5     call: refused by you (a form or web page declined or cancelled, sampling :refuse)
  6     call: stdin closed while a prompt waited for an answer
  130   call, tools, login, check: interrupted (Ctrl-C); serve: a second SIGINT or SIGTERM

Examples:
  sluice check
  sluice serve --port 8787 --policies ./policies
  sluice tools demo
  sluice call demo add '{"a": 1, "b": 2}'
  sluice login files && sluice call files whoami
`;

const COMMANDS: Readonly<
  Record<string, readonly [(argv: readonly string[], io: CliIo) => Promise<number>, string]>
> = Object.assign(Object.create(null), {
  check: [runCheck, CHECK_HELP],
  serve: [runServe, SERVE_HELP],
  tools: [runTools, TOOLS_HELP],
  call: [runCall, CALL_HELP],
  login: [runLogin, LOGIN_HELP],
  logout: [runLogout, LOGOUT_HELP],
});

/**
 * Runs the `sluice` command.
 *
 * @param argv The arguments after the program's name (`process.argv.slice(2)`).
 * @param io Streams, environment and signal. @default this process's (SIGINT and SIGTERM abort its
 *   signal), and then `main` settles only once its stdout and stderr have taken all it wrote: a
 *   signal meanwhile exits with code 130, and after a signal it gives up once they take nothing
 *   for 5 s (on Node and Bun; Deno's writes wait for the reader)
 * @returns The exit code: 0 success, 1 a failed check or tool error, 2 usage error, 3 refused by
 *   the policy, 4 call or sign-in failure, 5 refused by you, 6 stdin closed at a prompt,
 *   130 interrupted (see {@linkcode HELP}).
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  if (io !== undefined) return await run(argv, io);
  const owned = openProcessIo();
  try {
    return await run(argv, owned.io);
  } finally {
    await owned.close();
  }
}

/** The words that ask for help. */
const HELP_WORDS: ReadonlySet<string> = new Set(["help", "--help", "-h"]);

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(HELP);
    return 2;
  }
  if (HELP_WORDS.has(first)) {
    // `help <command>`: that command's help; `help`, `help help` or `help --help`: this one.
    const named = first === "help" && rest[0] !== undefined && !HELP_WORDS.has(rest[0]) ? rest[0] : undefined;
    const topic = named === undefined ? undefined : COMMANDS[named];
    if (named !== undefined && topic === undefined) return unknown(io, named, "command");
    io.stdout.write(topic?.[1] ?? HELP);
    return 0;
  }
  if (first === "--version" || first === "-V") {
    io.stdout.write(`sluice ${SLUICE_VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[first];
  if (command !== undefined) return await command[0](rest, io);
  return unknown(io, first, first.startsWith("-") ? "flag" : "command");
}

/** The usage error of a command (or a flag, before any command) sluice does not have. */
function unknown(io: CliIo, name: string, kind: "command" | "flag"): number {
  const what = kind === "flag"
    ? `unknown flag ${JSON.stringify(name)}, expected --help or --version`
    : `unknown command ${JSON.stringify(name)}, expected one of ${Object.keys(COMMANDS).join(", ")}`;
  io.stderr.write(`sluice: ${what}\nRun "sluice --help" for usage.\n`);
  return 2;
}

if ((import.meta as { main?: boolean }).main === true) {
  process.exit(await main(process.argv.slice(2)));
}
