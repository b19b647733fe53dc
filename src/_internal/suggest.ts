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
