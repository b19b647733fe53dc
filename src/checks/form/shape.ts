/**
 * The compiled description of an elicitation form, made by the form check from a server's
 * `requestedSchema` and used by the answer check. A bound or default the schema does not give is
 * `undefined`. The shape and its fields are frozen; the arrays inside are copies that nothing
 * modifies, `readonly` but not frozen.
 *
 * @module
 */

/** The string formats of the spec's primitive subset. */
export type StringFormat = "email" | "uri" | "date" | "date-time";

/** What every field has. */
export interface FieldBase {
  /** The property name (any string, `__proto__` included). */
  readonly name: string;
  /** Whether the schema's `required` lists it. */
  readonly required: boolean;
}

/** A free-text field (`type: "string"` without `enum`/`oneOf`). */
export interface StringField extends FieldBase {
  /** Discriminant. */
  readonly kind: "string";
  /** Smallest length, in Unicode code points. */
  readonly minLength: number | undefined;
  /** Largest length, in Unicode code points. */
  readonly maxLength: number | undefined;
  /** The required format. */
  readonly format: StringFormat | undefined;
  /** The server's default. */
  readonly default: string | undefined;
}

/** A number field (`type: "number"` or `"integer"`). */
export interface NumberField extends FieldBase {
  /** Discriminant. */
  readonly kind: "number";
  /** `true` for `type: "integer"`. */
  readonly integer: boolean;
  /** Smallest value, inclusive. */
  readonly minimum: number | undefined;
  /** Largest value, inclusive. */
  readonly maximum: number | undefined;
  /** The server's default. */
  readonly default: number | undefined;
}

/** A yes/no field. */
export interface BooleanField extends FieldBase {
  /** Discriminant. */
  readonly kind: "boolean";
  /** The server's default. */
  readonly default: boolean | undefined;
}

/** A single-select field: untitled `enum`, titled `oneOf`, or legacy `enum` + `enumNames`. */
export interface EnumField extends FieldBase {
  /** Discriminant. */
  readonly kind: "enum";
  /** The values that may be chosen, in the schema's order, unique. */
  readonly values: readonly string[];
  /** The server's default. */
  readonly default: string | undefined;
}

/** A multi-select field (`type: "array"` of enum strings, untitled or titled). */
export interface MultiSelectField extends FieldBase {
  /** Discriminant. */
  readonly kind: "multi";
  /** The values that may be chosen, in the schema's order, unique. */
  readonly values: readonly string[];
  /** Fewest values to choose. */
  readonly minItems: number | undefined;
  /** Most values to choose. */
  readonly maxItems: number | undefined;
  /** The server's default. */
  readonly default: readonly string[] | undefined;
}

/** One compiled form field. */
export type FieldShape = StringField | NumberField | BooleanField | EnumField | MultiSelectField;

/** The compiled form. */
export interface FormShape {
  /** The fields, in the order of the schema's `properties`, names unique. */
  readonly fields: readonly FieldShape[];
}
