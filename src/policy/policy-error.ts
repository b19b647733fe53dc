/**
 * The error `compilePolicy` throws for a policy with problems: all of them at once.
 *
 * @module
 */

/** One thing wrong with a policy. */
export interface PolicyProblem {
  /** Where the policy came from (a file path), when known. */
  readonly source: string | undefined;
  /** The policy's server id, when it has a valid one. */
  readonly server: string | undefined;
  /** The option's path, e.g. `inputRateLimit.rate`; empty for the whole policy. */
  readonly path: string;
  /** What was wrong, e.g. `"inputRateLimit.rate" must be a positive integer, received "ten"`. */
  readonly message: string;
  /** Where a file that does not parse breaks: line and column from 1 (UTF-16 units), and its text. */
  readonly position?: { readonly line: number; readonly column: number; readonly lineText: string };
}

/**
 * A policy that cannot be used, with every problem found in it.
 *
 * @example
 * ```ts
 * import { PolicyError } from "./policy-error.ts";
 * const error = new PolicyError([{ source: undefined, server: "github", path: "maxRounds", message: '"maxRounds" must be a positive integer, received 0' }]);
 * console.log(error.message); // Policy "github": "maxRounds" must be a positive integer, received 0
 * ```
 */
export class PolicyError extends Error {
  /** Every problem, in the order found. */
  readonly problems: readonly PolicyProblem[];

  /**
   * Creates the error; its message lists every problem, one per line.
   *
   * @param problems The problems (at least one).
   */
  constructor(problems: readonly PolicyProblem[]) {
    super(problems.map(describeProblem).join("\n"));
    this.name = "PolicyError";
    this.problems = problems;
  }
}

/**
 * The problem of a policy whose server another policy already names.
 *
 * @param source Where the policy came from, when known.
 * @param server The server id both name.
 * @param owner The policy that names it first: `policies[0]`, a file's path.
 * @param unit What there is one of per server: `"policy"`, `"policy file"`.
 * @returns The problem, at `server`.
 */
export function sameServerProblem(
  source: string | undefined,
  server: string,
  owner: string,
  unit: string,
): PolicyProblem {
  const message = `"server" ${
    JSON.stringify(server)
  } is already the server of ${owner}, expected one ${unit} per server`;
  return { source, server, path: "server", message };
}

/**
 * Renders a problem as one line, `source: Policy "id": message`; a problem with a position as
 * `source:line:column: Policy: message` followed by the line and a caret under the column.
 *
 * @param problem The problem.
 * @returns The line (three lines with a position).
 * @example
 * ```ts
 * import { describeProblem } from "./policy-error.ts";
 * const text = describeProblem({
 *   source: "policies/a.policy.json",
 *   server: undefined,
 *   path: "",
 *   message: 'the file does not parse: unexpected "}", expected a value',
 *   position: { line: 3, column: 11, lineText: '  "era": }' },
 * });
 * console.log(text.split("\n")); // ['policies/a.policy.json:3:11: Policy: the file does not parse: unexpected "}", expected a value', '  3 |   "era": }', '    |          ^']
 * ```
 */
export function describeProblem(problem: PolicyProblem): string {
  const who = problem.server === undefined ? "Policy" : `Policy "${problem.server}"`;
  const at = problem.position;
  const where = at === undefined ? "" : `:${at.line}:${at.column}`;
  const line = `${
    problem.source === undefined ? "" : `${problem.source}${where}: `
  }${who}: ${problem.message}`;
  return at === undefined ? line : `${line}\n${excerpt(at)}`;
}

/** Controls but the tab (kept, so the caret lines up), and invisible format characters. */
const UNSHOWN = /(?!\t)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The window shown of a long line (a minified JSON file is one line). */
const EXCERPT_WIDTH = 100;

/** `   12 | the line` and a caret under the column, tabs kept so the caret lines up. */
function excerpt(at: { readonly line: number; readonly column: number; readonly lineText: string }): string {
  const index = Math.max(0, Math.min(at.column - 1, at.lineText.length));
  const start = Math.max(0, Math.min(index - EXCERPT_WIDTH / 2, at.lineText.length - EXCERPT_WIDTH));
  const end = Math.min(at.lineText.length, start + EXCERPT_WIDTH);
  const head = start > 0 ? "..." : "";
  // A control or invisible character shows as "?" per code unit: it cannot act on the terminal,
  // and the caret keeps its column.
  const shown = `${head}${
    at.lineText.slice(start, end).replace(UNSHOWN, (found) => "?".repeat(found.length))
  }${end < at.lineText.length ? "..." : ""}`;
  const before = `${head}${at.lineText.slice(start, index)}`.replace(/[^\t]/g, " ");
  const number = String(at.line);
  return `  ${number} | ${shown}\n  ${" ".repeat(number.length)} | ${before}^`;
}
