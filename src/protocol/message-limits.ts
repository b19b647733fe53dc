/**
 * The limits on every message read from a peer (`maxMessageBytes`, `maxEventBytes`, `maxJsonDepth`):
 * their defaults, option check, depth scan and refusal words, shared by every reader. Depth is
 * measured on the text before parsing, so hostile nesting is never built and nothing runs out of stack.
 *
 * @module
 */
import { integerOption } from "../_internal/integer-option.ts";
import { type DecodeFailure, failure } from "./decode.ts";

/** The limits a reader applies to every message before parsing it, named as in the policy. */
export interface MessageLimits {
  /** The largest message (JSON body, stdio line, the front's request body), in bytes. @default 4194304 */
  readonly maxMessageBytes: number;
  /** The largest SSE event, in UTF-8 bytes of its data. @default 4194304 (4 MiB) */
  readonly maxEventBytes: number;
  /** The deepest nesting of arrays and objects in a message (the message is level 1). @default 64 */
  readonly maxJsonDepth: number;
}

/** Each limit unless a policy says otherwise. */
export const MESSAGE_LIMIT_DEFAULTS: Readonly<MessageLimits> = Object.freeze({
  maxMessageBytes: 4 * 1024 * 1024,
  maxEventBytes: 4 * 1024 * 1024,
  maxJsonDepth: 64,
});

/**
 * Resolves one limit a reader was given: its default when unset, else the value itself.
 *
 * @param caller The function whose option it is, for the error: `readResponse()`.
 * @param name The limit.
 * @param value The option as given.
 * @returns The limit.
 * @throws {RangeError} When the value is not a positive integer.
 * @example
 * ```ts
 * import { messageLimit } from "./message-limits.ts";
 * console.log(messageLimit("readResponse()", "maxJsonDepth", undefined)); // 64
 * ```
 */
export function messageLimit(caller: string, name: keyof MessageLimits, value: number | undefined): number {
  return integerOption(`${caller}: "${name}"`, value, { fallback: MESSAGE_LIMIT_DEFAULTS[name], least: 1 });
}

/**
 * The message limits of a compiled policy.
 *
 * @param policy The policy (or anything carrying the three limits).
 * @returns A fresh object with only the limits.
 */
export function messageLimitsOf(policy: MessageLimits): MessageLimits {
  const { maxMessageBytes, maxEventBytes, maxJsonDepth } = policy;
  return { maxMessageBytes, maxEventBytes, maxJsonDepth };
}

/**
 * Words the refusal of a message over its byte limit.
 *
 * @param what What was too large: `JSON response body`, `stdout line`.
 * @param maxBytes The limit.
 * @param name Which limit it is.
 * @returns The refusal's text.
 * @example
 * ```ts
 * import { tooLarge } from "./message-limits.ts";
 * console.log(tooLarge("Request body", 1024)); // Request body is larger than 1024 bytes (maxMessageBytes)
 * ```
 */
export function tooLarge(
  what: string,
  maxBytes: number,
  name: "maxMessageBytes" | "maxEventBytes" = "maxMessageBytes",
): string {
  return `${what} is larger than ${maxBytes} bytes (${name})`;
}

/**
 * Checks JSON text against the depth limit before it is parsed.
 *
 * @param text The JSON text.
 * @param maxDepth The deepest nesting allowed.
 * @returns The refusal (at `$`) when the text nests deeper, else `undefined`.
 * @example
 * ```ts
 * import { checkJsonDepth } from "./message-limits.ts";
 * console.log(checkJsonDepth("[[[]]]", 2)?.message); // $: expected at most 2 levels of nesting (maxJsonDepth), received more than 2
 * ```
 */
export function checkJsonDepth(text: string, maxDepth: number): DecodeFailure | undefined {
  if (!exceedsJsonDepth(text, maxDepth)) return undefined;
  return failure("$", `at most ${maxDepth} levels of nesting (maxJsonDepth)`, `more than ${maxDepth}`);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Tells whether JSON text nests arrays and objects more than `maxDepth` levels deep (the outermost
 * is level 1; brackets in strings do not count), in one pass without recursion or allocation.
 *
 * @param text The JSON text.
 * @param maxDepth The deepest nesting allowed.
 * @returns `true` when some value is nested deeper than `maxDepth`.
 * @example
 * ```ts
 * import { exceedsJsonDepth } from "./message-limits.ts";
 * console.log(exceedsJsonDepth('{"a":[["[[[[not counted"]]}', 3)); // false
 * console.log(exceedsJsonDepth("[".repeat(100_000), 64)); // true
 * ```
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  // Each level needs at least one character.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or the text's end. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    // A quote preceded by an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return text.length;
}
