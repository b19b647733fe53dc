/**
 * A function of a string that remembers its answers for the last strings it was given: the
 * gateway's hop sees the same few URLs on every call, and need not parse them each time.
 *
 * @module
 */

/**
 * Wraps `compute` so each string's answer is computed once while remembered. Past `max` strings,
 * a new one forgets them all, so made-up strings cost at most `max` answers of memory.
 *
 * @param compute The function; it must depend on the string alone. What it throws is not remembered.
 * @param max How many strings to remember at most.
 * @returns The remembering function.
 * @example
 * ```ts
 * import { memoByString } from "./string-memo.ts";
 * const originOf = memoByString((url) => new URL(url).origin, 64);
 * console.log(originOf("http://127.0.0.1:8787/mcp/github")); // "http://127.0.0.1:8787"
 * ```
 */
export function memoByString<T>(compute: (key: string) => T, max: number): (key: string) => T {
  const answers = new Map<string, T>();
  return (key) => {
    if (answers.has(key)) return answers.get(key) as T;
    const answer = compute(key);
    if (answers.size >= max) answers.clear();
    answers.set(key, answer);
    return answer;
  };
}
