/**
 * A function of a string that remembers its answers for the last strings it was given. The
 * gateway's hop sees the same few strings on every call (its own URL, the `Host` it is reached
 * by, the upstream URL), and parsing one as a URL each time is per-call work for nothing.
 *
 * @module
 */

/**
 * Wraps `compute` so each string's answer is computed once while it is remembered. Once `max`
 * strings are remembered, a new one forgets them all: strings a caller makes up cost at most
 * `max` answers of memory, and the few real ones are learned again at once.
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
