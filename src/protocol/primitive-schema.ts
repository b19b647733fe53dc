/**
 * The restricted JSON Schema subset a form elicitation may ask for (digest §5.3): flat,
 * top-level, primitive properties only. These are types only: the wire model decodes
 * `requestedSchema` loosely and the policy check narrows each property to one of these.
 *
 * @module
 */

/** Fields every property schema may carry. */
export interface PropertySchemaBase {
  /** Display name. */
  readonly title?: string;
  /** Help text. */
  readonly description?: string;
}

/** A text field. */
export interface StringSchema extends PropertySchemaBase {
  /** Always `"string"`. */
  readonly type: "string";
  /** Shortest accepted length. */
  readonly minLength?: number;
  /** Longest accepted length. */
  readonly maxLength?: number;
  /** A format the value must have. */
  readonly format?: "email" | "uri" | "date" | "date-time";
  /** Pre-filled value (2025-11-25 and later). */
  readonly default?: string;
}

/** A number field. */
export interface NumberSchema extends PropertySchemaBase {
  /** `"integer"` admits whole numbers only. */
  readonly type: "number" | "integer";
  /** Smallest accepted value. */
  readonly minimum?: number;
  /** Largest accepted value. */
  readonly maximum?: number;
  /** Pre-filled value (2025-11-25 and later). */
  readonly default?: number;
}

/** A yes/no field. */
export interface BooleanSchema extends PropertySchemaBase {
  /** Always `"boolean"`. */
  readonly type: "boolean";
  /** Pre-filled value. */
  readonly default?: boolean;
}

/** One option of a titled enum. */
export interface EnumOption {
  /** The value sent back. */
  readonly const: string;
  /** What the user sees. */
  readonly title: string;
}

/** Pick one of plain values. */
export interface UntitledSingleSelectEnumSchema extends PropertySchemaBase {
  /** Always `"string"`. */
  readonly type: "string";
  /** The values. */
  readonly enum: readonly string[];
  /** Pre-selected value. */
  readonly default?: string;
}

/** Pick one of labelled values (2025-11-25 and later). */
export interface TitledSingleSelectEnumSchema extends PropertySchemaBase {
  /** Always `"string"`. */
  readonly type: "string";
  /** The options. */
  readonly oneOf: readonly EnumOption[];
  /** Pre-selected value. */
  readonly default?: string;
}

/** Pick several of plain values (2025-11-25 and later). */
export interface UntitledMultiSelectEnumSchema extends PropertySchemaBase {
  /** Always `"array"`. */
  readonly type: "array";
  /** Fewest selections. */
  readonly minItems?: number;
  /** Most selections. */
  readonly maxItems?: number;
  /** The values. */
  readonly items: { readonly type: "string"; readonly enum: readonly string[] };
  /** Pre-selected values. */
  readonly default?: readonly string[];
}

/** Pick several of labelled values (2025-11-25 and later). */
export interface TitledMultiSelectEnumSchema extends PropertySchemaBase {
  /** Always `"array"`. */
  readonly type: "array";
  /** Fewest selections. */
  readonly minItems?: number;
  /** Most selections. */
  readonly maxItems?: number;
  /** The options. */
  readonly items: { readonly anyOf: readonly EnumOption[] };
  /** Pre-selected values. */
  readonly default?: readonly string[];
}

/** Pick one, labelled by the deprecated `enumNames` (the only enum of 2025-06-18). */
export interface LegacyTitledEnumSchema extends PropertySchemaBase {
  /** Always `"string"`. */
  readonly type: "string";
  /** The values. */
  readonly enum: readonly string[];
  /** Labels, parallel to `enum`. */
  readonly enumNames?: readonly string[];
  /** Pre-selected value (2025-11-25 and later). */
  readonly default?: string;
}

/** Any property schema of the subset. */
export type PrimitiveSchemaDefinition =
  | StringSchema
  | NumberSchema
  | BooleanSchema
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema
  | LegacyTitledEnumSchema;
