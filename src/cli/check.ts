/**
 * `sluice check [dir]`: compiles every policy file of a folder and prints, per server, the chain
 * each input request goes through with its effective numbers; or every problem of every file.
 *
 * @module
 */
import { describeProblem } from "../policy/policy-error.ts";
import { flagText, parseArgs, show, usageError } from "./_args.ts";
import { describeChain } from "./_describe-chain.ts";
import type { CliIo } from "./cli-io.ts";
import { loadPolicyFiles } from "./_policy-folder.ts";
import { untilAborted } from "./_prompt-input.ts";

/** The text of `sluice check --help`. */
export const CHECK_HELP: string = `Usage: sluice check [dir] [flags]

Compiles every policy file in dir (default ./policies): each *.policy.ts, *.policy.js and
*.policy.json file default-exports one server's policy (see definePolicy). For each server it
prints the transport, the call limits, and the chain of checks every input request goes
through, in order, with its effective numbers (clamps, rate limits, timeouts, elicitation modes
and hosts, passDown, stateTtl).

Flags:
  --policies <dir>   the folder, as the other commands take it (instead of [dir])
  -h, --help         show this help

Exit codes:
  0   every file compiles
  1   a file has problems (each listed: file, option, what was expected), or dir holds no
      policy file or cannot be read
  2   usage error
  130 interrupted (SIGINT or SIGTERM) while the policy files load

Examples:
  sluice check
  sluice check ./policies
`;

/**
 * Runs `sluice check`.
 *
 * @param argv The arguments after `check`.
 * @param io The command's io.
 * @returns 0 when every file compiles, 1 when one does not (or there is none), 2 on a usage error,
 *   130 when the io's signal fires while the files load.
 */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(argv, { policies: "string" });
  if (!parsed.ok) return usageError(io, "check", parsed.message);
  if (parsed.args.flags.has("help")) return (io.stdout.write(CHECK_HELP), 0);
  const flagged = flagText(parsed.args, "policies");
  const [positional, extra] = parsed.args.positionals;
  if (extra !== undefined) {
    return usageError(io, "check", `unexpected argument ${show(extra)}, expected at most one folder`);
  }
  if (flagged !== undefined && positional !== undefined) {
    return usageError(
      io,
      "check",
      `the folder given twice, as ${show(positional)} and with --policies ${
        show(flagged)
      }: expected one of them`,
    );
  }
  const dir = flagged ?? positional ?? "policies";
  // A policy file may take its time at top level (a secret store): a signal stops the wait.
  const loaded = await untilAborted(loadPolicyFiles(dir, io), io.signal);
  if (loaded === undefined) {
    io.stderr.write("sluice check: interrupted\n");
    return 130;
  }
  if (typeof loaded === "string") {
    io.stderr.write(`sluice check: ${loaded}\n`);
    return 1;
  }
  const { files, policies, problems } = loaded;
  if (problems.length > 0) {
    const failing = new Set(problems.map((problem) => problem.source)).size;
    io.stdout.write(problems.map((problem) => `${describeProblem(problem)}\n`).join(""));
    io.stdout.write(
      `\n${failing} of ${files.length} policy files in ${show(dir)} have problems ` +
        `(${problems.length} in all)\n`,
    );
    return 1;
  }
  const reports = policies.map((policy) => describeChain(policy).join("\n"));
  io.stdout.write(`${reports.join("\n\n")}\n\n`);
  io.stdout.write(
    `All ${files.length} policy files in ${show(dir)} compile: ${policies.map((p) => p.server).join(", ")}\n`,
  );
  return 0;
}
