/**
 * Renders any value as compact JSON text for `sanitizeText`, stopping once the text is longer
 * than a budget: the cost is bounded by the budget, never by the value's size.
 *
 * As `JSON.stringify`, but: non-finite numbers as `null`; a bigint as its digits; objects from
 * their own enumerable string keys (no `toJSON`); nesting past 16 as `"[depth limit]"`, which also
 * ends cycles. A value that throws while being read ends the text there.
 *
 * @module
 */
import { DATA_LIMITS, DEPTH_LIMIT_MARKER } from "./data-limits.ts";

const QUOTED_DEPTH_MARKER = JSON.stringify(DEPTH_LIMIT_MARKER);

/**
 * Renders `value` as JSON text, cut short once longer than `budget` code units.
 *
 * @param value Any value.
 * @param budget The code units wanted; the text may run past it by the escapes of the string it cut
 *   (six code units for a control character) and by its closing brackets.
 * @returns The text: at most about `6 × budget + 16` code units (a bigint is written whole).
 */
export function renderJson(value: unknown, budget: number): string {
  const writer = new JsonWriter(budget);
  try {
    writer.value(value, 0);
  } catch {
    // A getter or a proxy threw: keep what was written.
  }
  return writer.text;
}

class JsonWriter {
  text = "";
  readonly #budget: number;

  constructor(budget: number) {
    this.#budget = budget;
  }

  value(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string": {
        const room = this.#budget - this.text.length + 1;
        this.text += JSON.stringify(value.length > room ? value.slice(0, Math.max(0, room)) : value);
        return;
      }
      case "number":
        this.text += Number.isFinite(value) ? String(value) : "null";
        return;
      case "boolean":
      case "bigint":
        this.text += String(value);
        return;
      case "object":
        if (value === null) this.text += "null";
        else if (depth >= DATA_LIMITS.maxDepth) this.text += QUOTED_DEPTH_MARKER;
        else if (Array.isArray(value)) this.#array(value, depth + 1);
        else this.#object(value, depth + 1);
        return;
      default:
        this.text += "null";
    }
  }

  #array(array: readonly unknown[], depth: number): void {
    this.text += "[";
    const length = array.length;
    for (let i = 0; i < length && this.text.length <= this.#budget; i++) {
      if (i > 0) this.text += ",";
      this.value(array[i], depth);
    }
    this.text += "]";
  }

  #object(object: object, depth: number): void {
    this.text += "{";
    let first = true;
    for (const key in object) {
      if (this.text.length > this.#budget) break;
      if (!Object.hasOwn(object, key)) continue;
      const item: unknown = (object as Record<string, unknown>)[key];
      const kind = typeof item;
      if (kind === "undefined" || kind === "function" || kind === "symbol") continue;
      if (!first) this.text += ",";
      first = false;
      this.value(key, depth);
      this.text += ":";
      this.value(item, depth);
    }
    this.text += "}";
  }
}
