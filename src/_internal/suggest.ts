/**
 * The one known word a typo means, for the "did you mean" of policy and option errors.
 *
 * @example
 * ```ts
 * import { suggest } from "./suggest.ts";
 * console.log(suggest("handlr", ["name", "handler", "policies"], 2)); // handler
 * ```
 *
 * @module
 */

/**
 * The one known word a typo means: the only one it abbreviates (`cmd`: `command`, `warn`:
 * `warning`), else the closest by edit distance, ignoring case, when close and not tied.
 *
 * @param typo The word written.
 * @param known The words it may mean.
 * @param minimumReach How many edits away a typo may be, at the least (a third of its length if more).
 * @returns The word meant, or `undefined`.
 */
export function suggest(typo: string, known: readonly unknown[], minimumReach: number): string | undefined {
  const words = known.filter((word): word is string => typeof word === "string");
  const lower = typo.toLowerCase();
  // An abbreviation first: "cmd" is one letter from "cwd" but means "command".
  const abbreviated = words.filter((word) => abbreviates(lower, word.toLowerCase()));
  if (abbreviated.length === 1) return abbreviated[0];
  const distances = words.map((word) => editDistance(lower, word.toLowerCase()));
  const best = Math.min(...distances);
  const closest = words.filter((_, index) => distances[index] === best);
  const reach = Math.max(minimumReach, Math.floor(typo.length / 3));
  return best <= reach && closest.length === 1 ? closest[0] : undefined;
}

/** Whether `short` keeps the first letter of `word` and the rest of its letters in order. */
function abbreviates(short: string, word: string): boolean {
  if (short.length < 2 || short.length >= word.length || short[0] !== word[0]) return false;
  let at = 0;
  for (const char of word) if (char === short[at]) at++;
  return at === short.length;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? Infinity;
}

/**
 * Refuses an options object holding a key its function does not know: a misspelt option would
 * otherwise be ignored silently, and for some (`scopes`, `sharedSecret`) that turns a protection off.
 *
 * @param options The options, an object.
 * @param known The option names.
 * @param who How the error starts: the function, such as `createFront()`.
 * @param path The options' own path before their keys, such as `auth.jwt.` (none at the top).
 * @throws {TypeError} Naming the first unknown key, the option it may mean, and the known ones.
 * @example
 * ```ts
 * import { checkOptionKeys } from "./suggest.ts";
 * try {
 *   checkOptionKeys({ scope: ["admin"] }, ["issuer", "scopes"], "createFront()", "auth.jwt.");
 * } catch (error) {
 *   console.log((error as Error).message);
 *   // createFront(): "auth.jwt.scope" is not an option (did you mean "auth.jwt.scopes"?); expected "issuer", "scopes"
 * }
 * ```
 */
export function checkOptionKeys(options: object, known: readonly string[], who: string, path = ""): void {
  const problem = unknownOptionProblem(options, known, path);
  if (problem !== undefined) throw new TypeError(`${who}: ${problem}`);
}

/**
 * What {@linkcode checkOptionKeys} says of the first key of `options` that `known` lacks, without
 * throwing it: for a caller whose failures are of another kind (a call's `ClientError`).
 *
 * @param options The options, an object.
 * @param known The option names.
 * @param path The options' own path before their keys (none at the top).
 * @returns The problem, or `undefined` when every key is known.
 * @example
 * ```ts
 * import { unknownOptionProblem } from "./suggest.ts";
 * console.log(unknownOptionProblem({ signl: 1 }, ["signal", "cursor"]));
 * // "signl" is not an option (did you mean "signal"?); expected "signal", "cursor"
 * ```
 */
export function unknownOptionProblem(
  options: object,
  known: readonly string[],
  path = "",
): string | undefined {
  const key = Object.keys(options).find((name) => !known.includes(name));
  if (key === undefined) return undefined;
  const meant = suggest(key, known, 2);
  return `"${path}${key}" is not an option${
    meant === undefined ? "" : ` (did you mean "${path}${meant}"?)`
  }; ` +
    `expected ${known.map((name) => `"${name}"`).join(", ")}`;
}
