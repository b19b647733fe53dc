/**
 * The form-mode elicitation check: a server's `requestedSchema` must be the spec's flat
 * primitive subset (strings with an optional format, numbers, integers, booleans, single- and
 * multi-select enums), and nothing else. A passing schema is compiled into a frozen
 * {@linkcode FormShape} that the answer check validates the handler's answer against, and every
 * field is flagged when it looks like it asks for a secret.
 *
 * @module
 */
import { pass, type Refusal, RefusalCode, refuse, type Verdict } from "../chain/verdict.ts";
import { isObject, type KeywordProblem } from "./_enum-options.ts";
import type { FieldShape, FormShape } from "./_form-shape.ts";
import { compileProperty } from "./_form-property.ts";
import { readRequired, rootProblem } from "./_form-root.ts";
import { describeValue, quote, thrownName } from "../_internal/quote.ts";
import { suggestsSecret } from "./_sensitive-words.ts";

export type {
  BooleanField,
  EnumField,
  FieldBase,
  FieldShape,
  FormShape,
  MultiSelectField,
  NumberField,
  StringField,
  StringFormat,
} from "./_form-shape.ts";

/** Options of {@linkcode createElicitationFormCheck}. */
export interface ElicitationFormOptions {
  /**
   * The most properties a form may have.
   * @default 100
   */
  readonly maxFields?: number;
  /**
   * The most options one enum field (single- or multi-select) may have.
   * @default 500
   */
  readonly maxEnumValues?: number;
}

/** What the elicitation handler is told about one field. */
export interface FieldContext {
  /**
   * `true` when the field's name, title or description suggests a secret (password, token, API
   * key, card number, …) and the field takes free input (text without a format or with `uri`,
   * numbers). The spec forbids servers to ask for secrets in form mode: warn the user.
   */
  readonly sensitiveSuspected: boolean;
}

/** A passing form check. */
export interface ElicitationFormPass {
  /** The compiled form, for {@linkcode checkElicitAnswer}. */
  readonly shape: FormShape;
  /** Per property name (a prototype-free object): what the handler is told about it. */
  readonly fields: Readonly<Record<string, FieldContext>>;
}

/** A compiled form check. */
export interface ElicitationFormCheck {
  /**
   * Checks a `requestedSchema`.
   *
   * @param requestedSchema The schema, untrusted; never modified.
   * @returns The compiled form and the field context, or a `-32602` refusal.
   */
  check(requestedSchema: unknown): Verdict<ElicitationFormPass>;
}

const SENSITIVE: FieldContext = Object.freeze({ sensitiveSuspected: true });
const ORDINARY: FieldContext = Object.freeze({ sensitiveSuspected: false });

/**
 * Builds the form-mode elicitation check, validating its options once.
 *
 * The root may hold `type: "object"`, `properties`, `required`, `$schema` (any string; never
 * fetched), and the harmless `title`, `description` and `additionalProperties: false` that
 * schema generators add. Every property must be one of the spec's primitive shapes, with no
 * other keyword.
 *
 * @param options Limits.
 * @returns A frozen check whose `check(requestedSchema)` is pure.
 * @throws {TypeError} When an option is not a positive integer, or is unknown.
 * @example
 * ```ts
 * import { createElicitationFormCheck } from "./elicitation-form.ts";
 * const forms = createElicitationFormCheck();
 * const verdict = forms.check({
 *   type: "object",
 *   properties: { name: { type: "string" }, apiKey: { type: "string" } },
 *   required: ["name"],
 * });
 * if (verdict.ok) console.log(verdict.value.fields.apiKey); // { sensitiveSuspected: true }
 * ```
 */
export function createElicitationFormCheck(options: ElicitationFormOptions = {}): ElicitationFormCheck {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `createElicitationFormCheck: options must be an object, received ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (key !== "maxFields" && key !== "maxEnumValues") {
      throw new TypeError(
        `createElicitationFormCheck: unknown option ${quote(key)}, expected one of maxFields, maxEnumValues`,
      );
    }
  }
  const maxFields = readLimit(options.maxFields, "maxFields", 100);
  const maxEnumValues = readLimit(options.maxEnumValues, "maxEnumValues", 500);

  function check(requestedSchema: unknown): Verdict<ElicitationFormPass> {
    try {
      return checkSchema(requestedSchema);
    } catch (error) {
      return refused(`expected plain JSON, reading it threw ${thrownName(error)}`);
    }
  }

  function checkSchema(requestedSchema: unknown): Verdict<ElicitationFormPass> {
    const schema = requestedSchema;
    if (!isObject(schema)) return refused(`expected an object, received ${describeValue(schema)}`);
    const rootReason = rootProblem(schema);
    if (rootReason !== undefined) return refused(rootReason);
    const properties = schema["properties"];
    if (!isObject(properties)) {
      return refused(`keyword "properties": expected an object, received ${describeValue(properties)}`);
    }
    const names = Object.keys(properties);
    if (names.length > maxFields) {
      return refused(
        `keyword "properties": expected at most ${maxFields} properties, received ${names.length}`,
      );
    }
    const required = readRequired(schema["required"], properties);
    if (typeof required === "string") return refused(required);
    const list: FieldShape[] = [];
    const fields: Record<string, FieldContext> = Object.create(null);
    for (const name of names) {
      if (name === "") return refused('property "": expected a non-empty name');
      const property = properties[name];
      const field = compileProperty(name, required.has(name), property, maxEnumValues);
      if (field.kind === "problem") return refused(propertyMessage(name, field));
      list.push(field);
      const sensitive = isFreeEntry(field) &&
        suggestsSecret(name, textOf(property, "title"), textOf(property, "description"));
      fields[name] = sensitive ? SENSITIVE : ORDINARY;
    }
    const shape: FormShape = Object.freeze({ fields: list });
    return pass({ shape, fields });
  }

  return Object.freeze({ check });
}

/** Fields whose value the user types freely: only these can carry a secret. */
function isFreeEntry(field: FieldShape): boolean {
  return field.kind === "number" ||
    (field.kind === "string" && (field.format === undefined || field.format === "uri"));
}

function textOf(schema: unknown, key: "title" | "description"): string | undefined {
  const text = (schema as Record<string, unknown>)[key];
  return typeof text === "string" ? text : undefined;
}

function propertyMessage(name: string, problem: KeywordProblem): string {
  const keyword = problem.keyword === undefined ? "" : `, keyword ${quote(problem.keyword)}`;
  return `property ${quote(name)}${keyword}: ${problem.reason}`;
}

function refused(reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InvalidParams, `Elicitation schema refused: ${reason}`);
}

function readLimit(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `createElicitationFormCheck: "${name}" must be a positive integer, received ${describeValue(value)}`,
    );
  }
  return value;
}
