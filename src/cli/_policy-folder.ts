/**
 * The policies the commands run with: the folder must hold at least one policy file, and for
 * every command but `check` every file must compile; otherwise a message says what is wrong.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { describeProblem } from "../policy/policy-error.ts";
import { show } from "./_args.ts";
import type { CliIo } from "./cli-io.ts";
import { type LoadedPolicies, loadPolicies } from "./load-policies.ts";

/**
 * Loads a policy folder that must hold at least one policy file.
 *
 * @param dir The folder, relative to the io's working directory.
 * @param io The command's io.
 * @returns What {@linkcode loadPolicies} found, or the message when the folder cannot be read or
 *   holds no policy file.
 */
export async function loadPolicyFiles(dir: string, io: CliIo): Promise<LoadedPolicies | string> {
  let loaded;
  try {
    loaded = await loadPolicies(dir, io.cwd === undefined ? {} : { cwd: io.cwd });
  } catch (error) {
    return (error as Error).message;
  }
  if (loaded.files.length > 0) return loaded;
  return `no policy files in ${show(dir)}, expected *.policy.ts, *.policy.js or *.policy.json files`;
}

/**
 * Loads a policy folder for a command that needs all of it.
 *
 * @param dir The folder, relative to the io's working directory.
 * @param io The command's io.
 * @returns The compiled policies, or the message of what is wrong (every problem, one per line).
 */
export async function loadPolicyFolder(dir: string, io: CliIo): Promise<readonly CompiledPolicy[] | string> {
  const loaded = await loadPolicyFiles(dir, io);
  if (typeof loaded === "string") return loaded;
  if (loaded.problems.length > 0) {
    return `the policies in ${show(dir)} do not compile:\n${loaded.problems.map(describeProblem).join("\n")}`;
  }
  return loaded.policies;
}

/**
 * Loads a policy folder and picks one server's policy, for a command about that server.
 *
 * @param dir The folder, relative to the io's working directory.
 * @param server The server id asked for.
 * @param io The command's io.
 * @returns The server's compiled policy, or the message of what is wrong.
 */
export async function loadServerPolicy(
  dir: string,
  server: string,
  io: CliIo,
): Promise<CompiledPolicy | string> {
  const policies = await loadPolicyFolder(dir, io);
  if (typeof policies === "string") return policies;
  const policy = policies.find((p) => p.server === server);
  if (policy !== undefined) return policy;
  const known = policies.map((p) => JSON.stringify(p.server)).join(", ");
  return `no policy for server ${show(server)} in ${show(dir)}, expected one of: ${known}`;
}
