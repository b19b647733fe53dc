/// <reference types="node" />
/**
 * Loads a folder of policy files: every `*.policy.ts`, `*.policy.js` and `*.policy.json`, in
 * file-name order, each default-exporting one server's policy (see `definePolicy`). Every file
 * is loaded and compiled, and every problem of every file is collected, not just the first.
 *
 * @example
 * ```ts
 * import { loadPolicies } from "./load-policies.ts";
 * const loaded = await loadPolicies("policies");
 * console.log(loaded.files); // ["policies/demo.policy.ts", "policies/everything.policy.ts", "policies/github.policy.ts"]
 * console.log(loaded.policies.map((p) => p.server), loaded.problems); // ["demo", "everything", "github"] []
 * ```
 *
 * @module
 */
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import process from "node:process";
import { checkPolicy, type CompiledPolicy, compilePolicy } from "../policy/compile-policy.ts";
import { type PolicyProblem, sameServerProblem } from "../policy/policy-error.ts";
import { describeThrown, loadModule, SourceSyntaxError, TsxMissingError } from "./_load-module.ts";

/** The file names loaded: `<name>.policy.ts`, `.js` or `.json`. */
export const POLICY_FILE: RegExp = /\.policy\.(ts|js|json)$/;

/** What {@linkcode loadPolicies} found. */
export interface LoadedPolicies {
  /**
   * Every policy file, as the folder joined with its name, in file-name order: `*.policy.*` files
   * of a kind not read (`x.policy.yaml`) among them, each with its problem.
   */
  readonly files: readonly string[];
  /** The policies that compiled, in file order; each one's `source` is its file. */
  readonly policies: readonly CompiledPolicy[];
  /** Every problem of every file, in file order (empty when all compile). */
  readonly problems: readonly PolicyProblem[];
}

/** Options of {@linkcode loadPolicies}. */
export interface LoadPoliciesOptions {
  /** The folder a relative `dir` starts from. @default the process's working directory */
  readonly cwd?: string | undefined;
}

/**
 * Loads and compiles every policy file of a folder. A file that does not load, has no default
 * export, does not compile, or reuses another file's server id adds its problems; the others
 * still load.
 *
 * @param dir The folder, e.g. `"policies"`.
 * @param options Where a relative `dir` starts.
 * @returns The files, the compiled policies and the problems.
 * @throws {Error} When the folder cannot be read, naming it and the system's reason.
 */
export async function loadPolicies(dir: string, options: LoadPoliciesOptions = {}): Promise<LoadedPolicies> {
  const folder = resolve(options.cwd ?? process.cwd(), dir);
  const { names, others } = await listPolicyFiles(folder, dir);
  const files = [...names, ...others].sort().map((name) => join(dir, name));
  const policies: CompiledPolicy[] = [];
  // A file named as a policy of a kind that is not read is a problem, not a policy left out unsaid.
  const problems: PolicyProblem[] = others.map((name) => ({
    source: join(dir, name),
    server: undefined,
    path: "",
    message: "not loaded: expected a *.policy.ts, *.policy.js or *.policy.json file",
  }));
  const owners = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const source = files[index] ?? name;
    const loaded = await loadOne(join(folder, name), source);
    // A file with problems still owns its server, so every file naming it again is told now.
    const server = loaded.ok
      ? loaded.policy.server
      : loaded.problems.find((p) => p.server !== undefined)?.server;
    const owner = server === undefined ? undefined : owners.get(server);
    if (!loaded.ok) problems.push(...loaded.problems);
    if (server !== undefined && owner !== undefined) {
      problems.push(sameServerProblem(source, server, owner, "policy file"));
      continue;
    }
    if (server !== undefined) owners.set(server, source);
    if (loaded.ok) policies.push(loaded.policy);
  }
  // In file order, as each file's own problems are (the sort keeps their order within a file).
  problems.sort((a, b) =>
    (a.source ?? "") < (b.source ?? "") ? -1 : (a.source ?? "") > (b.source ?? "") ? 1 : 0
  );
  return { files, policies, problems };
}

/**
 * The policy file names of a folder, sorted by code unit, and the names of other `*.policy.*`
 * files (`x.policy.yaml`, `x.policy.mjs`), which are not read.
 */
async function listPolicyFiles(folder: string, dir: string): Promise<{ names: string[]; others: string[] }> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    // Hidden files are an editor's (`.#x.policy.json`, `._x.policy.json`); an autosave or backup
    // (`#x.policy.json#`, `x.policy.json~`) does not match the pattern.
    const named = entries
      .filter((e) => !e.isDirectory() && !e.name.startsWith(".") && /\.policy\.[A-Za-z\d]+$/.test(e.name))
      .map((e) => e.name);
    return {
      names: named.filter((name) => POLICY_FILE.test(name)).sort(),
      others: named.filter((name) => !POLICY_FILE.test(name)).sort(),
    };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      `cannot read the policy folder ${JSON.stringify(dir)}: ${
        typeof code === "string" ? code : describeThrown(error)
      }, expected a folder of *.policy.ts, *.policy.js or *.policy.json files`,
      { cause: error },
    );
  }
}

async function loadOne(
  path: string,
  source: string,
): Promise<{ ok: true; policy: CompiledPolicy } | { ok: false; problems: PolicyProblem[] }> {
  const problem = (message: string, position?: PolicyProblem["position"]) => ({
    ok: false as const,
    problems: [{
      source,
      server: undefined,
      path: "",
      message,
      ...(position === undefined ? {} : { position }),
    }],
  });
  let namespace: Readonly<Record<string, unknown>>;
  try {
    namespace = await loadModule(path);
  } catch (error) {
    if (error instanceof SourceSyntaxError && error.file === path) {
      const { line, column, lineText } = error;
      return problem(`the file does not parse: ${error.what}${cjsHint(error.what)}`, {
        line,
        column,
        lineText,
      });
    }
    if (error instanceof SourceSyntaxError) {
      return problem(`a module it imports does not parse: ${error.message}`);
    }
    if (error instanceof TsxMissingError) {
      return problem(`${error.message}, or the policy in a .policy.json file`);
    }
    // A module that throws as it runs said what is wrong itself.
    return problem(`the file threw as it loaded: ${describeThrown(error)}`);
  }
  if (!Object.hasOwn(namespace, "default")) {
    return problem("the file has no default export, expected `export default definePolicy({ ... })`");
  }
  const value = namespace["default"];
  const found = checkPolicy(value, { source });
  if (found.length > 0) return { ok: false, problems: found };
  return { ok: true, policy: compilePolicy(value, { source }) };
}

/**
 * What to do about tsx's refusal of top-level await: Node reads a .ts or .js file outside a
 * `"type": "module"` package as CommonJS.
 */
function cjsHint(what: string): string {
  return what.includes('"cjs" output format')
    ? ': on Node, a .ts or .js file with top-level await needs "type": "module" in its package.json (npm pkg set type=module)'
    : "";
}
