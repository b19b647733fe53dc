/**
 * Readers for the option lists of enum fields in a form schema: `enum` (+ legacy `enumNames`),
 * titled `oneOf` / `anyOf` lists of `{ const, title }`.
 *
 * @module
 */
import { describeValue } from "../_internal/quote.ts";

/** A problem with a schema keyword: which one, and why. */
export interface KeywordProblem {
  /** Discriminant. */
  readonly kind: "problem";
  /** The offending keyword (`minimum`, `items.enum`), or `undefined` for the property itself. */
  readonly keyword: string | undefined;
  /** What was expected and what was found. */
  readonly reason: string;
}

/**
 * Builds a {@linkcode KeywordProblem}.
 *
 * @param keyword The keyword, or `undefined`.
 * @param reason What was expected and found.
 * @returns The problem.
 */
export function problem(keyword: string | undefined, reason: string): KeywordProblem {
  return { kind: "problem", keyword, reason };
}

/**
 * Whether a value is a JSON object (not `null`, not an array).
 *
 * @param value The value.
 * @returns `true` for a plain object.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Lists longer than this get a `Set` for look-ups; shorter ones are scanned. */
const SCAN_LIMIT = 16;
/** Sets built once for long option lists, keyed by the list itself. */
const LOOKUPS = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * Whether `value` is one of the options of a list made by {@linkcode readEnum} or
 * {@linkcode readTitledOptions}.
 *
 * @param values The option list.
 * @param value The value.
 * @returns `true` when it is an option.
 */
export function isOption(values: readonly string[], value: string): boolean {
  return values.length <= SCAN_LIMIT ? values.includes(value) : LOOKUPS.get(values)?.has(value) === true;
}

/**
 * Reads an untitled `enum`: one to `max` unique strings.
 *
 * @param value The keyword's value.
 * @param keyword The keyword, for messages.
 * @param max The most values allowed.
 * @returns The values, or a problem.
 */
export function readEnum(value: unknown, keyword: string, max: number): readonly string[] | KeywordProblem {
  const list = readList(value, keyword, max, "strings");
  if ("kind" in list) return list;
  const values = new Options(list.length);
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (typeof item !== "string") {
      return problem(keyword, `expected strings only, received ${describeValue(item)} at index ${i}`);
    }
    if (!values.add(item)) {
      return problem(keyword, `expected unique values, received ${describeValue(item)} twice`);
    }
  }
  return values.done();
}

/**
 * Reads the legacy `enumNames`: one string per `enum` value.
 *
 * @param value The keyword's value.
 * @param count How many `enum` values there are.
 * @returns A problem, or `undefined` when it fits.
 */
export function enumNamesProblem(value: unknown, count: number): KeywordProblem | undefined {
  if (!Array.isArray(value)) {
    return problem("enumNames", `expected an array of strings, received ${describeValue(value)}`);
  }
  if (value.length !== count) {
    return problem("enumNames", `expected ${count} names (one per "enum" value), received ${value.length}`);
  }
  const index = value.findIndex((name) => typeof name !== "string");
  if (index >= 0) {
    return problem(
      "enumNames",
      `expected strings only, received ${describeValue(value[index])} at index ${index}`,
    );
  }
  return undefined;
}

/**
 * Reads a titled option list: one to `max` objects with exactly a string `const` and a string
 * `title`, the `const` values unique.
 *
 * @param value The keyword's value.
 * @param keyword The keyword, for messages (`oneOf`, `items.anyOf`).
 * @param max The most options allowed.
 * @returns The `const` values, or a problem.
 */
export function readTitledOptions(
  value: unknown,
  keyword: string,
  max: number,
): readonly string[] | KeywordProblem {
  const list = readList(value, keyword, max, 'objects with "const" and "title"');
  if ("kind" in list) return list;
  const values = new Options(list.length);
  for (let i = 0; i < list.length; i++) {
    const option: unknown = list[i];
    const constant = titledConst(option);
    if (constant === undefined) return titledOptionProblem(option, keyword, i);
    if (!values.add(constant)) {
      return problem(keyword, `expected unique values, received ${describeValue(constant)} twice`);
    }
  }
  return values.done();
}

/**
 * The `const` of a titled option: an object whose keys (as `for…in` visits them) are exactly a
 * string `const` and a string `title`.
 *
 * @param option The option, untrusted.
 * @returns Its `const`, or `undefined` when it is not such an object.
 */
export function titledConst(option: unknown): string | undefined {
  if (!isObject(option)) return undefined;
  let constant: unknown = undefined;
  let title: unknown = undefined;
  for (const key in option) {
    if (key === "const") constant = option[key];
    else if (key === "title") title = option[key];
    else return undefined;
  }
  return typeof constant === "string" && typeof title === "string" ? constant : undefined;
}

/** Why an option that {@linkcode titledConst} refuses is refused. */
function titledOptionProblem(option: unknown, keyword: string, index: number): KeywordProblem {
  const shape = `expected {"const": string, "title": string}`;
  if (!isObject(option)) {
    return problem(keyword, `${shape}, received ${describeValue(option)} at index ${index}`);
  }
  for (const key in option) {
    if (key === "const" || key === "title") continue;
    return problem(keyword, `${shape}, received the keyword ${describeValue(key)} at index ${index}`);
  }
  return problem(keyword, `${shape}, received another shape at index ${index}`);
}

/** Collects unique options: scanning while short, with a `Set` when long. */
class Options {
  readonly #list: string[] = [];
  readonly #set: Set<string> | undefined;

  constructor(size: number) {
    this.#set = size > SCAN_LIMIT ? new Set() : undefined;
  }

  /** Adds a value; `false` when it is already there. */
  add(value: string): boolean {
    if (this.#set === undefined ? this.#list.includes(value) : this.#set.has(value)) return false;
    this.#set?.add(value);
    this.#list.push(value);
    return true;
  }

  /** The list, registered for {@linkcode isOption}. */
  done(): readonly string[] {
    const list: readonly string[] = this.#list;
    if (this.#set !== undefined) LOOKUPS.set(list, this.#set);
    return list;
  }
}

function readList(
  value: unknown,
  keyword: string,
  max: number,
  what: string,
): readonly unknown[] | KeywordProblem {
  if (!Array.isArray(value)) {
    return problem(keyword, `expected an array of ${what}, received ${describeValue(value)}`);
  }
  if (value.length === 0) return problem(keyword, "expected at least one value, received none");
  if (value.length > max) return problem(keyword, `expected at most ${max} values, received ${value.length}`);
  return value;
}
