/**
 * Valibot schemas for maps whose keys come from an untrusted peer: unlike valibot's `record`, which
 * drops `__proto__`, `constructor` and `prototype`, they keep every key in a prototype-free object.
 *
 * @module
 */
import * as v from "valibot";
import { nestedIssue, type WireSchema } from "./decode.ts";
import { isObject } from "../_internal/is-object.ts";

/** A map from untrusted string keys to values, with no prototype. */
export type NullProtoRecord<T> = Readonly<Record<string, T>>;

/**
 * Builds a schema for a JSON object whose every value must match `value`.
 *
 * @param value The schema of each value.
 * @returns A schema whose output is a prototype-free copy with decoded values.
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { decode } from "./decode.ts";
 * import { nullProtoRecord } from "./null-proto-record.ts";
 * const map = decode(nullProtoRecord(v.number()), JSON.parse('{"__proto__": 1}'));
 * if (map.ok) console.log(Object.keys(map.value)); // ["__proto__"]
 * ```
 */
export function nullProtoRecord<T>(value: WireSchema<T>): WireSchema<NullProtoRecord<T>> {
  return v.pipe(
    v.custom<Record<string, unknown>>(isObject, "Invalid type: Expected Object"),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const input = dataset.value;
      const output: Record<string, T> = Object.create(null);
      for (const key of Object.keys(input)) {
        const item = input[key];
        const result = v.safeParse(value, item, { abortEarly: true });
        if (!result.success) {
          const here: v.ObjectPathItem = { type: "object", origin: "value", input, key, value: item };
          addIssue(nestedIssue(here, result.issues[0]));
          return NEVER;
        }
        output[key] = result.output;
      }
      return output;
    }),
  );
}

const JSON_OBJECT: v.GenericSchema = {
  ...v.custom(isObject),
  expects: "Object",
};

/**
 * {@linkcode nullProtoRecord} behind a guard whose failure reads `expected Object` when the value
 * is not a JSON object (the record's own guard reports `expected unknown`).
 *
 * @param value The schema of each value.
 * @returns The map schema.
 */
export function objectMap<T>(value: WireSchema<T>): WireSchema<NullProtoRecord<T>> {
  return v.pipe(JSON_OBJECT, nullProtoRecord(value));
}
