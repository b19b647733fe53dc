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
 * Renders a problem as one line: `source: Policy "id": message`.
 *
 * @param problem The problem.
 * @returns The line.
 */
export function describeProblem(problem: PolicyProblem): string {
  const who = problem.server === undefined ? "Policy" : `Policy "${problem.server}"`;
  return `${problem.source === undefined ? "" : `${problem.source}: `}${who}: ${problem.message}`;
}
