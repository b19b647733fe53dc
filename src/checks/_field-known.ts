/**
 * A compiled form field as the form memo keeps it: the frozen field, what the handler is told
 * about it, and what it was compiled from.
 *
 * @module
 */
import type { FieldShape } from "./_form-shape.ts";
import { FieldKeywords } from "./_field-keywords.ts";
import type { FieldContext } from "./elicitation-form.ts";
import { suggestsSecret } from "./_sensitive-words.ts";
import { sameListKeywords } from "./_field-match.ts";

const SENSITIVE: FieldContext = Object.freeze({ sensitiveSuspected: true });
const ORDINARY: FieldContext = Object.freeze({ sensitiveSuspected: false });

/** A compiled field, with what decides its secret verdict and the keywords it came from. */
export class KnownField {
  /** The frozen field. */
  readonly field: FieldShape;
  /** What the handler is told about it: one of two shared frozen objects. */
  readonly context: FieldContext;
  /** The field's name, read without touching `field` (whose V8 map depends on its kind). */
  readonly name: string;
  /** Whether the field is required. */
  readonly required: boolean;
  /** Whether the user types its value freely, so that its texts decide its context. */
  readonly free: boolean;
  /** The schema's `title`, if a string. */
  readonly title: string | undefined;
  /** The schema's `description`, if a string. */
  readonly description: string | undefined;
  /** Whether name, title or description suggest a secret; `undefined` when never needed. */
  readonly textsSuggestSecret: boolean | undefined;
  /** The primitive keywords it was compiled from; set when the memo remembers it. */
  keywords: FieldKeywords | undefined = undefined;
  /** The memo generation that remembers it, or -1. */
  generation = -1;
  /** The next older remembered field of the same name. */
  next: KnownField | undefined = undefined;

  /**
   * Wraps a compiled field, scanning its texts for secret words when it takes free input and
   * the verdict is not known yet.
   *
   * @param field The frozen field.
   * @param keywords The keywords it was compiled from.
   * @param texts The verdict on the same name, title and description, if known.
   */
  constructor(field: FieldShape, keywords: FieldKeywords, texts: boolean | undefined) {
    const free = isFreeEntry(field);
    this.field = field;
    this.name = field.name;
    this.required = field.required;
    this.free = free;
    this.title = keywords.titleText;
    this.description = keywords.descriptionText;
    this.textsSuggestSecret = free
      ? texts ?? suggestsSecret(field.name, this.title, this.description)
      : texts;
    this.context = free && this.textsSuggestSecret === true ? SENSITIVE : ORDINARY;
  }
}

/**
 * Whether the user types a field's value freely (text without a format or with `uri`,
 * numbers): only such a field can carry a secret.
 *
 * @param field The field.
 * @returns `true` for a free-entry field.
 */
export function isFreeEntry(field: FieldShape): boolean {
  return field.kind === "number" ||
    (field.kind === "string" && (field.format === undefined || field.format === "uri"));
}

/**
 * The UTF-16 code units a remembered field keeps alive, plus 64 for itself and 16 per option.
 *
 * @param known The field.
 * @returns Its weight.
 */
export function weightOf(known: KnownField): number {
  const field = known.field;
  let weight = 64 + field.name.length + (known.title?.length ?? 0) + (known.description?.length ?? 0);
  if (field.kind === "enum" || field.kind === "multi") {
    for (const value of field.values) weight += value.length + 16;
  }
  const fallback = field.default;
  if (typeof fallback === "string") weight += fallback.length;
  else if (Array.isArray(fallback)) { for (const value of fallback) weight += value.length + 16; }
  return weight;
}

/**
 * Whether a property with these keywords compiles to a remembered field: the same `required`,
 * primitive keywords matching the field's snapshot, and the same option lists.
 *
 * @param known The remembered field.
 * @param required Whether the property is required.
 * @param keywords The property's keywords.
 * @returns `true` when compiling the property would give `known.field`.
 */
export function compilesTo(known: KnownField, required: boolean, keywords: FieldKeywords): boolean {
  return known.keywords !== undefined && known.required === required &&
    matchesSnapshot(keywords, known.keywords, known.free) && sameListKeywords(keywords, known.field);
}

/** Stands for an array `default` in a snapshot. */
const LIST: unique symbol = Symbol("list");

/**
 * A copy of a compiled property's primitive keywords, to compare later properties with.
 * List-valued keywords (`enum`, `enumNames`, `oneOf`, `items`, an array `default`) are not kept:
 * their owner could change them, and they are compared with the compiled field's lists instead.
 *
 * @param keywords The keywords of a property that compiled.
 * @returns The copy.
 */
export function snapshotOf(keywords: FieldKeywords): FieldKeywords {
  const copy = new FieldKeywords();
  copy.type = keywords.type;
  copy.title = keywords.title;
  copy.description = keywords.description;
  copy.default = Array.isArray(keywords.default) ? LIST : keywords.default;
  copy.minLength = keywords.minLength;
  copy.maxLength = keywords.maxLength;
  copy.format = keywords.format;
  copy.minimum = keywords.minimum;
  copy.maximum = keywords.maximum;
  copy.minItems = keywords.minItems;
  copy.maxItems = keywords.maxItems;
  copy.present = keywords.present;
  return copy;
}

/**
 * Whether a property's keywords have the keys of a snapshot and the same primitive values
 * (`Object.is`); list-valued keywords are left to the caller. Title and description are compared
 * as text only when `texts` is set: they decide a free-entry field's context, and for other
 * fields only need to be strings (or absent) again.
 *
 * @param keywords The property's keywords.
 * @param snapshot A snapshot made by {@linkcode snapshotOf}.
 * @param texts Whether title and description must be the same text.
 * @returns `true` when the primitive keywords match.
 */
export function matchesSnapshot(keywords: FieldKeywords, snapshot: FieldKeywords, texts: boolean): boolean {
  const k = keywords;
  const s = snapshot;
  return k.present === s.present && !k.foreign && k.type === s.type &&
    (texts
      ? k.title === s.title && k.description === s.description
      : typeof k.title === typeof s.title && typeof k.description === typeof s.description) &&
    (s.default === LIST || Object.is(k.default, s.default)) && Object.is(k.minLength, s.minLength) &&
    Object.is(k.maxLength, s.maxLength) && k.format === s.format && Object.is(k.minimum, s.minimum) &&
    Object.is(k.maximum, s.maximum) && Object.is(k.minItems, s.minItems) && Object.is(k.maxItems, s.maxItems);
}
