/**
 * `sluice logout <server>`: forgets the tokens `sluice login` saved for a server in the command
 * line's token file (its client registrations stay: they hold no grant).
 *
 * @module
 */
import { grantKey } from "../auth/authorization-code.ts";
import { createClient } from "../client/legacy/legacy-client.ts";
import { CALL_EXIT, describeFailure } from "./_call-output.ts";
import { readServerTarget } from "./_server-target.ts";
import { openTokenFile } from "./_token-file.ts";
import type { CliIo } from "./cli-io.ts";

/** The text of `sluice logout --help`. */
export const LOGOUT_HELP: string = `Usage: sluice logout <server> [--policies dir]

Forgets the tokens "sluice login" saved for a server whose policy has transport.auth.oauth: the
next "sluice call" to it needs "sluice login" again. The sign-in at the authorization server
itself is left as it is (sign out there too to end it).

Arguments:
  <server>            the server id of a policy in the policies folder

Flags:
  --policies <dir>    the folder of policy files (default ./policies)
  -h, --help          show this help

Environment:
  SLUICE_TOKEN_FILE   the token file (default $XDG_CONFIG_HOME/sluice/tokens.json, else
                      ~/.config/sluice/tokens.json)

Exit codes:
  0     the tokens are forgotten, or there were none
  2     usage error: bad arguments or flags, an unknown server, a policy without
        transport.auth.oauth, policies that do not load
  4     the token file cannot be read or written

Examples:
  sluice logout files
`;

/**
 * Runs `sluice logout`.
 *
 * @param argv The arguments after `logout`.
 * @param io The command's io.
 * @returns The exit code (see {@linkcode LOGOUT_HELP}).
 */
export async function runLogout(argv: readonly string[], io: CliIo): Promise<number> {
  const target = await readServerTarget(argv, io, { name: "logout", help: LOGOUT_HELP, signIn: true });
  if (typeof target === "number") return target;
  const { server, transport } = target.policy;
  const file = openTokenFile(io);
  const where = JSON.stringify(file.path);
  const client = createClient({ name: "sluice", policies: [target.policy], signIn: { tokens: file.tokens } });
  try {
    // The command line signs in as principal "". readServerTarget ensures an HTTP transport.
    const endpoint = transport.kind === "http" ? transport.url : "";
    if (await file.tokens.get(grantKey({ server, endpoint }, "")) === undefined) {
      io.stdout.write(`No tokens for "${server}" in ${where}: nothing to forget\n`);
      return CALL_EXIT.ok;
    }
    await client.signOut(server);
  } catch (error) {
    io.stderr.write(`sluice logout: ${describeFailure(error)}\n`);
    return CALL_EXIT.failed;
  } finally {
    await client.close();
  }
  io.stdout.write(`Signed out of "${server}": its tokens are gone from ${where}\n`);
  return CALL_EXIT.ok;
}
