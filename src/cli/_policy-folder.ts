/**
 * The policies `serve` and `call` run with: every file of the folder must compile, and there
 * must be at least one; otherwise a message says which files are wrong and how.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { describeProblem } from "../policy/policy-error.ts";
import { show } from "./_args.ts";
import type { CliIo } from "./cli-io.ts";
import { loadPolicies } from "./load-policies.ts";

/**
 * Loads a policy folder for a command that needs all of it.
 *
 * @param dir The folder, relative to the io's working directory.
 * @param io The command's io.
 * @returns The compiled policies, or the message of what is wrong (every problem, one per line).
 */
export async function loadPolicyFolder(dir: string, io: CliIo): Promise<readonly CompiledPolicy[] | string> {
  let loaded;
  try {
    loaded = await loadPolicies(dir, io.cwd === undefined ? {} : { cwd: io.cwd });
  } catch (error) {
    return (error as Error).message;
  }
  if (loaded.files.length === 0) {
    return `no policy files in ${show(dir)}, expected *.policy.ts, *.policy.js or *.policy.json files`;
  }
  if (loaded.problems.length > 0) {
    return `the policies in ${show(dir)} do not compile:\n${loaded.problems.map(describeProblem).join("\n")}`;
  }
  return loaded.policies;
}
