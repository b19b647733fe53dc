/**
 * Decoding untrusted wire values with valibot: never throws, and a failure names the JSON path
 * of the offending value, what was expected there and what was received.
 *
 * @module
 */
import * as v from "valibot";
import { isObject } from "../_internal/is-object.ts";
import { quote, thrownName } from "../_internal/quote.ts";

/** A schema that checks an unknown wire value and yields a `T`. */
export type WireSchema<T> = v.GenericSchema<unknown, T>;

/** A successful decode: `value` is a fresh object, never the input itself. */
export interface DecodeSuccess<T> {
  /** Always `true`. */
  readonly ok: true;
  /** The decoded value. */
  readonly value: T;
}

/** A failed decode, located by a JSONPath such as `$.params.messages[1].role`. */
export interface DecodeFailure {
  /** Always `false`. */
  readonly ok: false;
  /** JSONPath of the first offending value; `$` is the whole input. */
  readonly path: string;
  /** What the schema expected there, e.g. `("user" | "assistant")`. */
  readonly expected: string;
  /** What was found there, e.g. `"system"`. */
  readonly received: string;
  /** One line for people: `$.params.maxTokens: expected number, received "ten"`. */
  readonly message: string;
}

/** The outcome of {@linkcode decode}. */
export type Decoded<T> = DecodeSuccess<T> | DecodeFailure;

const CONFIG = { abortEarly: true } as const;

/**
 * Checks `input` against `schema`; never throws (a hostile getter's exception is a failure at `$`).
 *
 * @param schema The wire schema to apply.
 * @param input The untrusted value, usually from `JSON.parse`.
 * @returns `{ ok: true, value }` or a {@linkcode DecodeFailure}.
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { decode } from "./decode.ts";
 * const result = decode(v.object({ n: v.number() }), { n: "1" });
 * if (!result.ok) console.log(result.message); // $.n: expected number, received "1"
 * ```
 */
export function decode<T>(schema: WireSchema<T>, input: unknown): Decoded<T> {
  let result: v.SafeParseResult<WireSchema<T>>;
  try {
    result = v.safeParse(schema, input, CONFIG);
  } catch (error) {
    return threwFailure(error);
  }
  if (result.success) return { ok: true, value: result.output };
  const issue = deepestIssue(result.issues[0]);
  // A string is cut short (image data runs to megabytes), control and bidi characters escaped.
  const received = typeof issue.input === "string" ? quote(issue.input) : issue.received;
  return failure(formatPath(issue.path), expectedOf(issue), received);
}

/**
 * The failure, at `$`, of a value that threw while it was read, naming only what was thrown.
 *
 * @param error What reading it threw.
 * @returns The failure.
 */
export function threwFailure(error: unknown): DecodeFailure {
  return failure("$", "a JSON value", `a value that threw ${thrownName(error)} when read`);
}

/**
 * What an action of a pipe asks for, where valibot names no `expected` (its message would read
 * "expected Invalid safe integer: Received 1.5").
 */
const ACTION_EXPECTS: Readonly<Record<string, string>> = {
  safe_integer: "a safe integer",
  finite: "a finite number",
  base64: "base64 text",
};

/**
 * What an issue says was expected; a missing required key is "a value (required)", as valibot's
 * `expected` there is the key's own name.
 */
function expectedOf(issue: Issue): string {
  if (issue.kind === "schema" && issue.received === "undefined" && isKeyName(issue)) {
    return "a value (required)";
  }
  return issue.expected ?? ACTION_EXPECTS[issue.type] ?? issue.message;
}

/** Whether an issue's `expected` is its own key, quoted: valibot's words for a missing key. */
function isKeyName(issue: Issue): boolean {
  const key = issue.path?.at(-1)?.key;
  return typeof key === "string" && issue.expected === JSON.stringify(key);
}

/**
 * Builds a {@linkcode DecodeFailure} by hand, for checks made outside a schema.
 *
 * @param path JSONPath of the offending value.
 * @param expected What was expected there.
 * @param received What was found there, already rendered.
 * @returns The failure value.
 */
export function failure(
  path: string,
  expected: string,
  received: string,
): DecodeFailure {
  return {
    ok: false,
    path,
    expected,
    received,
    message: `${path}: expected ${expected}, received ${received}`,
  };
}

/**
 * Prefixes every path of a failure, for a value decoded inside a larger message.
 *
 * @param prefix JSONPath of the inner value within the outer one, e.g. `$.params`.
 * @param inner The failure of the inner decode.
 * @returns The same failure, located in the outer message.
 */
export function nestFailure(prefix: string, inner: DecodeFailure): DecodeFailure {
  return failure(prefix + inner.path.slice(1), inner.expected, inner.received);
}

type Issue = v.BaseIssue<unknown>;

/** The issue that got furthest into the input: of a union's options, the one most likely meant. */
function deepestIssue(issue: Issue): Issue {
  let best = issue;
  for (const sub of issue.issues ?? []) {
    const candidate = deepestIssue(sub);
    if ((candidate.path?.length ?? 0) > (best.path?.length ?? 0)) best = candidate;
  }
  return best;
}

/**
 * Places the failure of a value checked inside a custom schema (a map's value, a reserved `_meta`
 * key) under that value's own path, for `addIssue`.
 *
 * @param here The path item of the value within the input.
 * @param issue The first issue of the value's own parse.
 * @returns The issue's `expected`, `received` and full `path`.
 */
export function nestedIssue(
  here: v.ObjectPathItem,
  issue: Issue,
): { expected: string; received: string; path: [v.ObjectPathItem, ...v.IssuePathItem[]] } {
  const inner = deepestIssue(issue);
  return { expected: expectedOf(inner), received: inner.received, path: [here, ...(inner.path ?? [])] };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function formatPath(path: Issue["path"]): string {
  let out = "$";
  for (const item of path ?? []) {
    const key: unknown = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && IDENTIFIER.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * Wraps an object schema to refuse a JSON array (valibot's object schemas accept arrays).
 *
 * @param schema An object schema.
 * @returns The same schema, refusing arrays with `expected Object, received Array`.
 */
export function refuseArrays<TSchema extends v.GenericSchema>(schema: TSchema): TSchema {
  return {
    ...schema,
    "~run"(dataset, config) {
      if (Array.isArray(dataset.value)) {
        v._addIssue(schema, "type", dataset, config);
        return dataset as ReturnType<TSchema["~run"]>;
      }
      return schema["~run"](dataset, config) as ReturnType<TSchema["~run"]>;
    },
  };
}

/**
 * `v.variant(key, options)` with arrays refused, picking the option by the discriminator's literal
 * at once: valibot's variant records an issue for every option it passes over (see
 * bench/RESULTS.md). Other inputs go through the variant itself, for its exact issue.
 *
 * @param key The discriminator key.
 * @param options The object schemas.
 * @returns The schema.
 */
export function wireVariant<
  const TKey extends string,
  const TOptions extends v.VariantOptions<TKey>,
>(key: TKey, options: TOptions): v.VariantSchema<TKey, TOptions, undefined> {
  const variant = refuseArrays(v.variant(key, options));
  const byValue = new Map<unknown, TOptions[number]>();
  for (const option of options) {
    const value = literalOf((option as { entries: v.ObjectEntries }).entries[key]);
    if (value === undefined || byValue.has(value.literal)) return variant;
    byValue.set(value.literal, option);
  }
  return {
    ...variant,
    "~run"(dataset, config) {
      const input = dataset.value;
      if (isObject(input) && Object.hasOwn(input, key)) {
        const option = byValue.get(input[key]);
        if (option !== undefined) {
          return option["~run"]({ value: input }, config) as ReturnType<typeof variant["~run"]>;
        }
      }
      return variant["~run"](dataset, config);
    },
  };
}

/** The literal a discriminator schema matches (`literal`, or one wrapped as optional). */
function literalOf(schema: unknown): { literal: unknown } | undefined {
  const s = schema as { type?: string; literal?: unknown; wrapped?: unknown } | undefined;
  if (s?.type === "literal") return { literal: s.literal };
  if (s?.type === "optional" || s?.type === "exact_optional") return literalOf(s.wrapped);
  return undefined;
}

/**
 * A JSON object with known entries; unknown keys are dropped from the output, arrays refused.
 *
 * @param entries The known entries.
 * @returns The schema.
 */
export function wireObject<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
): v.ObjectSchema<TEntries, undefined> {
  return refuseArrays(v.object(entries));
}

/**
 * A JSON object with known entries; unknown keys are kept in the output, arrays refused.
 *
 * @param entries The known entries.
 * @returns The schema.
 */
export function wireLooseObject<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
): v.LooseObjectSchema<TEntries, undefined> {
  return refuseArrays(v.looseObject(entries));
}

/**
 * A two-way choice between schemas made on the raw input: unlike `v.union`, a nested failure keeps
 * its full path.
 *
 * @param choose A cheap test on the raw input (must not throw).
 * @param whenTrue The schema for inputs that pass the test.
 * @param whenFalse The schema for the others (it also reports non-objects).
 * @returns The combined schema.
 */
export function dispatch<A, B>(
  choose: (input: unknown) => boolean,
  whenTrue: WireSchema<A>,
  whenFalse: WireSchema<B>,
): WireSchema<A | B> {
  return {
    ...(whenFalse as WireSchema<A | B>),
    "~run"(dataset, config) {
      return (choose(dataset.value) ? whenTrue : whenFalse)["~run"](dataset, config);
    },
  };
}
