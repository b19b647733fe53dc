/**
 * `sanitizeData`: a bounded, cleaned, prototype-free copy of data a server sent, safe to log or
 * show: the walk behind log entries' `data` and other notifications' params.
 *
 * @example
 * ```ts
 * import { sanitizeData } from "./sanitize-data.ts";
 * const data = sanitizeData(JSON.parse('{"msg": "done\\u2028FAKE", "__proto__": {"admin": true}}'));
 * console.log(Object.keys(data as object)); // [ "msg", "__proto__" ]
 * console.log(Object.getPrototypeOf(data)); // null
 * ```
 *
 * @module
 */
import { clampText, lastExamined } from "./_clamp-text.ts";
import { DATA_LIMITS, DEPTH_LIMIT_MARKER, SIZE_LIMIT_MARKER, UNREADABLE_MARKER } from "./data-limits.ts";
import { sanitizePrefixBound, sanitizeText } from "./sanitize-text.ts";

const STRING_LIMIT = sanitizePrefixBound(DATA_LIMITS.maxStringLength);

/**
 * Copies `value` for a log or a handler, within {@linkcode DATA_LIMITS}. Never throws.
 *
 * - Strings (values and object keys) are cleaned as by `sanitizeText` and clamped to 4096 code
 *   units; numbers, booleans and `null` are kept as they are; any other non-JSON value (a bigint,
 *   `undefined`, a function) becomes the string `sanitizeText` renders for it.
 * - Objects become prototype-free objects (a `__proto__` key is an ordinary key), arrays stay
 *   arrays; both are frozen. Two keys that clean to the same text keep the later value.
 * - An array or object nested below 16 levels becomes `"[depth limit]"`.
 * - Each array or object keeps its first 1000 entries, then ends with `"[size limit]"` (an
 *   object's key, with itself as the value); so does every one still open once the walk has
 *   visited 10 000 values or examined 262 144 code units of text.
 * - A value that throws while being read becomes `"[unreadable]"`.
 *
 * @param value The data, usually parsed JSON.
 * @returns The sanitized copy.
 * @example
 * ```ts
 * import { sanitizeData } from "./sanitize-data.ts";
 * console.log(sanitizeData(["a\u202Eb", 1, [[[]]]])); // [ "ab", 1, [ [ [] ] ] ]
 * ```
 */
export function sanitizeData(value: unknown): unknown {
  return new DataWalk().value(value, 0);
}

class DataWalk {
  #values = DATA_LIMITS.maxValues;
  #text = DATA_LIMITS.maxTextUnits;

  value(value: unknown, depth: number): unknown {
    this.#values--;
    switch (typeof value) {
      case "string":
        return this.#string(value);
      case "number":
      case "boolean":
        return value;
      case "object":
        if (value === null) return null;
        if (depth >= DATA_LIMITS.maxDepth) return DEPTH_LIMIT_MARKER;
        return this.#container(value, depth + 1);
      default:
        return this.#string(sanitizeText(value, DATA_LIMITS.maxStringLength));
    }
  }

  #spent(): boolean {
    return this.#values <= 0 || this.#text <= 0;
  }

  #string(text: string): string {
    const clean = clampText(
      text,
      DATA_LIMITS.maxStringLength,
      Math.max(0, Math.min(STRING_LIMIT, this.#text)),
    );
    this.#text -= lastExamined();
    return clean;
  }

  #container(value: object, depth: number): unknown {
    try {
      return Array.isArray(value) ? this.#array(value, depth) : this.#object(value, depth);
    } catch {
      return UNREADABLE_MARKER;
    }
  }

  #array(array: readonly unknown[], depth: number): readonly unknown[] {
    const out: unknown[] = [];
    const length = array.length;
    const count = Math.min(length, DATA_LIMITS.maxEntries);
    let i = 0;
    for (; i < count && !this.#spent(); i++) out.push(this.value(read(array, i), depth));
    if (i < length) out.push(SIZE_LIMIT_MARKER);
    return Object.freeze(out);
  }

  #object(object: object, depth: number): Readonly<Record<string, unknown>> {
    const out = Object.create(null) as Record<string, unknown>;
    const keys = Object.keys(object);
    const count = Math.min(keys.length, DATA_LIMITS.maxEntries);
    let i = 0;
    for (; i < count && !this.#spent(); i++) {
      const key = keys[i] as string;
      const item = read(object, key);
      out[this.#string(key)] = this.value(item, depth);
    }
    if (i < keys.length) out[SIZE_LIMIT_MARKER] = SIZE_LIMIT_MARKER;
    return Object.freeze(out);
  }
}

function read(container: object, key: string | number): unknown {
  try {
    return (container as Record<string | number, unknown>)[key];
  } catch {
    return UNREADABLE_MARKER;
  }
}
