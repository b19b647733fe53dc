/**
 * What `sluice tools`, `sluice login` and `sluice logout` read first: one `<server>`, the command's
 * flags, and the server's policy (for login and logout, one with `transport.auth.oauth`).
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { type FlagKinds, flagText, parseArgs, type ParsedArgs, show, usageError } from "./_args.ts";
import { CALL_EXIT } from "./_call-output.ts";
import type { CliIo } from "./cli-io.ts";
import { loadServerPolicy } from "./_policy-folder.ts";

/** A server a command is about, and the command line that named it. */
export interface ServerTarget {
  /** The server's policy. */
  readonly policy: CompiledPolicy;
  /** The parsed command line. */
  readonly args: ParsedArgs;
}

/** What the command is. */
export interface ServerCommand {
  /** Its name after `sluice`: `"tools"`, `"login"` or `"logout"`. */
  readonly name: string;
  /** Its `--help` text. */
  readonly help: string;
  /** Its flags besides `--policies` and `--help`. @default {} */
  readonly flags?: FlagKinds;
  /** Whether the server's policy must have `transport.auth.oauth`. @default false */
  readonly signIn?: boolean;
}

/**
 * Reads `<server> [--policies dir]` and the command's own flags, and finds the server's policy.
 *
 * @param argv The arguments after the command's name.
 * @param io The command's io.
 * @param command The command's name, help and flags, and whether it signs in.
 * @returns The target, or the exit code when there is none: 0 after `--help`, 2 on a usage error
 *   (printed), a server without a policy, or (to sign in) a policy without `transport.auth.oauth`.
 */
export async function readServerTarget(
  argv: readonly string[],
  io: CliIo,
  command: ServerCommand,
): Promise<ServerTarget | number> {
  const usage = (message: string): number => usageError(io, command.name, message);
  const parsed = parseArgs(argv, { policies: "string", ...command.flags });
  if (!parsed.ok) return usage(parsed.message);
  const { flags, positionals } = parsed.args;
  if (flags.has("help")) return (io.stdout.write(command.help), CALL_EXIT.ok);
  const [server, extra] = positionals;
  if (server === undefined) return usage("expected <server>, received nothing");
  if (extra !== undefined) return usage(`unexpected argument ${show(extra)}, expected only <server>`);
  const policy = await loadServerPolicy(flagText(parsed.args, "policies") ?? "policies", server, io);
  if (typeof policy === "string") return usage(policy);
  const problem = command.signIn === true ? oauthProblem(policy, command.name) : undefined;
  return problem === undefined ? { policy, args: parsed.args } : usage(problem);
}

/** Why a policy has no sign-in by a person, or `undefined` when it has one. */
function oauthProblem(policy: CompiledPolicy, command: string): string | undefined {
  const { transport } = policy;
  const auth = transport.kind === "http" ? transport.auth : undefined;
  if (auth?.kind === "authorization_code") return undefined;
  const server = JSON.stringify(policy.server);
  if (auth?.kind === "client_credentials") {
    return `the policy of server ${server} has "transport.auth.clientCredentials", expected ` +
      `"transport.auth.oauth": with client credentials sluice gets its tokens by itself, no ${command} needed`;
  }
  return `the policy of server ${server} has no "transport.auth.oauth", expected it: ${command} is for ` +
    `servers a person signs in to with OAuth`;
}
