/**
 * The form-mode elicitation check: a server's `requestedSchema` must be the spec's flat primitive
 * subset, and nothing else. A passing schema is compiled into a frozen {@linkcode FormShape} for
 * the answer check, each field flagged when it looks like it asks for a secret.
 *
 * @module
 */
import { pass, type Refusal, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import type { FieldShape, FormShape } from "./form/shape.ts";
import { isObject } from "../_internal/is-object.ts";
import { keywordOf, type KeywordProblem, readField } from "./form/read-field.ts";
import { suggestsSecret } from "./form/secret-words.ts";
import { describeValue, quote, thrownName } from "../_internal/quote.ts";

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
} from "./form/shape.ts";

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

/** A passing form check. It is frozen, and so are its shape, fields and field contexts. */
export interface ElicitationFormPass {
  /** The compiled form, for {@linkcode checkElicitAnswer}. */
  readonly shape: FormShape;
  /** Per property name (a frozen, prototype-free object): what the handler is told about it. */
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

  function checkSchema(schema: unknown): Verdict<ElicitationFormPass> {
    if (!isObject(schema)) return refused(`expected an object, received ${describeValue(schema)}`);
    const rootProblem = readRoot(schema);
    if (rootProblem !== undefined) return refused(rootProblem);
    const properties = keywordOf(schema, "properties");
    if (!isObject(properties)) {
      return refused(`keyword "properties": expected an object, received ${describeValue(properties)}`);
    }
    const names = Object.keys(properties);
    if (names.length > maxFields) {
      return refused(
        `keyword "properties": expected at most ${maxFields} properties, received ${names.length}`,
      );
    }
    const required = readRequired(keywordOf(schema, "required"), properties);
    if (typeof required === "string") return refused(required);
    const shapes: FieldShape[] = [];
    // Untrusted names: a record that inherits nothing.
    const fields: Record<string, FieldContext> = Object.create(null);
    for (const name of names) {
      if (name === "") return refused('property "": expected a non-empty name');
      const property = properties[name];
      const field = readField(name, required.has(name), property, maxEnumValues);
      if (field.kind === "problem") return refused(propertyMessage(name, field));
      shapes.push(field);
      fields[name] = contextOf(field, property as Record<string, unknown>);
    }
    return pass(Object.freeze({ shape: Object.freeze({ fields: shapes }), fields: Object.freeze(fields) }));
  }

  return Object.freeze({ check });
}

const SENSITIVE: FieldContext = Object.freeze({ sensitiveSuspected: true });
const ORDINARY: FieldContext = Object.freeze({ sensitiveSuspected: false });

/** What the handler is told about a field (see {@linkcode FieldContext}). */
function contextOf(field: FieldShape, schema: Record<string, unknown>): FieldContext {
  const free = field.kind === "number" ||
    (field.kind === "string" && (field.format === undefined || field.format === "uri"));
  if (!free) return ORDINARY;
  // A compiled field's title and description are strings or absent.
  const title = keywordOf(schema, "title") as string | undefined;
  const description = keywordOf(schema, "description") as string | undefined;
  return suggestsSecret(field.name, title, description) ? SENSITIVE : ORDINARY;
}

/** Checks the root keywords of a form schema, all but `properties` and `required`. */
function readRoot(schema: Record<string, unknown>): string | undefined {
  const type = keywordOf(schema, "type");
  if (type !== "object") return `keyword "type": expected "object", received ${describeValue(type)}`;
  for (const key of Object.keys(schema)) {
    if (!ROOT_KEYWORDS.has(key)) return `keyword ${quote(key)}: not supported at the root of a form`;
  }
  for (const key of ROOT_TEXTS) {
    const text = keywordOf(schema, key);
    if (text !== undefined && typeof text !== "string") {
      return `keyword ${quote(key)}: expected a string, received ${describeValue(text)}`;
    }
  }
  const extra = keywordOf(schema, "additionalProperties");
  if (extra !== undefined && extra !== false) {
    return `keyword "additionalProperties": expected false, received ${describeValue(extra)}`;
  }
  return undefined;
}

const ROOT_TEXTS = ["$schema", "title", "description"];
const ROOT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  ...ROOT_TEXTS,
  "additionalProperties",
]);

/** Reads `required`: unique names of existing properties. */
function readRequired(value: unknown, properties: Record<string, unknown>): ReadonlySet<string> | string {
  const names = new Set<string>();
  if (value === undefined) return names;
  if (!Array.isArray(value)) {
    return `keyword "required": expected an array of property names, received ${describeValue(value)}`;
  }
  for (let i = 0; i < value.length; i++) {
    const name: unknown = value[i];
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) {
      const received = describeValue(name);
      return `keyword "required": expected names listed in "properties", received ${received} at index ${i}`;
    }
    if (names.has(name)) return `keyword "required": expected unique names, received ${quote(name)} twice`;
    names.add(name);
  }
  return names;
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
