/**
 * Equality of compiled form fields, used by the form memo to reuse a remembered field only when
 * a newly compiled one is the same in every attribute.
 *
 * @module
 */
import type { EnumField, FieldShape, MultiSelectField, NumberField, StringField } from "./_form-shape.ts";

/**
 * Whether two compiled fields are equal in every attribute. Numbers are compared with
 * `Object.is` (so `0` and `-0` differ), lists element by element.
 *
 * Each kind has its own comparison function: the five kinds of field objects (frozen or not)
 * have ten V8 maps between them, and one function reading all of them makes every property load
 * megamorphic (about 80 ns per comparison on Node 20, against about 15 ns).
 *
 * @param a A field.
 * @param b Another field.
 * @returns `true` when they are interchangeable.
 */
export function sameField(a: FieldShape, b: FieldShape): boolean {
  switch (b.kind) {
    case "string":
      return a.kind === "string" && sameString(a, b);
    case "number":
      return a.kind === "number" && sameNumber(a, b);
    case "boolean":
      return a.kind === "boolean" && a.name === b.name && a.required === b.required &&
        a.default === b.default;
    case "enum":
      return a.kind === "enum" && sameEnum(a, b);
    case "multi":
      return a.kind === "multi" && sameMulti(a, b);
  }
}

function sameString(a: StringField, b: StringField): boolean {
  return a.name === b.name && a.required === b.required && a.default === b.default &&
    Object.is(a.minLength, b.minLength) && Object.is(a.maxLength, b.maxLength) && a.format === b.format;
}

function sameNumber(a: NumberField, b: NumberField): boolean {
  return a.name === b.name && a.required === b.required && Object.is(a.default, b.default) &&
    a.integer === b.integer && Object.is(a.minimum, b.minimum) && Object.is(a.maximum, b.maximum);
}

function sameEnum(a: EnumField, b: EnumField): boolean {
  return a.name === b.name && a.required === b.required && a.default === b.default &&
    sameList(a.values, b.values);
}

function sameMulti(a: MultiSelectField, b: MultiSelectField): boolean {
  return a.name === b.name && a.required === b.required && Object.is(a.minItems, b.minItems) &&
    Object.is(a.maxItems, b.maxItems) && sameList(a.values, b.values) &&
    (a.default === undefined
      ? b.default === undefined
      : b.default !== undefined && sameList(a.default, b.default));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
