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
import type { FormShape } from "./_form-shape.ts";
import { compileProperty, readProperty } from "./_form-property.ts";
import { FieldKeywords } from "./_field-keywords.ts";
import { FormMemo } from "./_form-memo.ts";
import type { KnownField } from "./_field-known.ts";
import { readRequired, readRoot } from "./_form-root.ts";
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

/**
 * A passing form check. It is frozen, and so are its shape, fields and field contexts; a check
 * of a schema that compiles to the same form as an earlier one returns the same objects.
 */
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
 * A check remembers the forms it compiled (bounded, see `_form-memo.ts`), so a schema that
 * compiles to the same form as an earlier one gets the same frozen objects back, with no
 * compiling; the verdict is the same either way.
 *
 * @param options Limits.
 * @returns A frozen check whose `check(requestedSchema)` is pure apart from that memo.
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

  const memo = new FormMemo();

  function checkSchema(requestedSchema: unknown): Verdict<ElicitationFormPass> {
    const schema = requestedSchema;
    if (!isObject(schema)) return refused(`expected an object, received ${describeValue(schema)}`);
    const root = readRoot(schema);
    if (typeof root === "string") return refused(root);
    const properties = root.properties;
    if (!isObject(properties)) {
      return refused(`keyword "properties": expected an object, received ${describeValue(properties)}`);
    }
    // `for…in` rather than `Object.keys`: V8 reads `properties[name]` inside the loop through
    // the enum cache (about 25 ns for 13 properties, against 140 ns).
    let count = 0;
    for (const _name in properties) count++;
    if (count > maxFields) {
      return refused(`keyword "properties": expected at most ${maxFields} properties, received ${count}`);
    }
    const required = readRequired(root.required, properties);
    if (typeof required === "string") return refused(required);
    const keywords = new FieldKeywords();
    const known: KnownField[] = [];
    let first = "";
    let remember: boolean | undefined;
    for (const name in properties) {
      if (known.length === 0) first = name;
      if (name === "") return refused('property "": expected a non-empty name');
      const property = properties[name];
      const unreadable = readProperty(property, keywords);
      if (unreadable !== undefined) return refused(propertyMessage(name, unreadable));
      const isRequired = required.has(name);
      const remembered = memo.find(known.length, name, isRequired, keywords);
      if (remembered !== undefined) {
        known.push(remembered);
        continue;
      }
      const field = compileProperty(
        name,
        isRequired,
        property as Record<string, unknown>,
        keywords,
        maxEnumValues,
      );
      if (field.kind === "problem") return refused(propertyMessage(name, field));
      remember ??= memo.admits(first);
      known.push(memo.field(field, keywords, remember));
    }
    return pass(memo.form(known));
  }

  return Object.freeze({ check });
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
