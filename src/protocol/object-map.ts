/**
 * Maps with untrusted keys (`_meta`, `inputRequests`, tool `arguments`, …): `nullProtoRecord`
 * behind a guard whose failure reads `expected Object` when the value is not a JSON object
 * (the record's own guard reports `expected unknown`). Internal to the wire model.
 *
 * @module
 */
import * as v from "valibot";
import type { WireSchema } from "./decode.ts";
import { type NullProtoRecord, nullProtoRecord } from "./null-proto-record.ts";
import { isObject } from "../_internal/is-object.ts";

const JSON_OBJECT: v.GenericSchema = {
  ...v.custom(isObject),
  expects: "Object",
};

/**
 * A JSON object whose every value matches `value`, decoded into a prototype-free map that keeps
 * `__proto__`, `constructor` and `prototype` as ordinary keys.
 *
 * @param value The schema of each value.
 * @returns The map schema.
 */
export function objectMap<T>(value: WireSchema<T>): WireSchema<NullProtoRecord<T>> {
  return v.pipe(JSON_OBJECT, nullProtoRecord(value));
}
