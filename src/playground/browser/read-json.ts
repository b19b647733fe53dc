/**
 * Reading JSON that came from the gateway or a server: nothing in it is trusted to have the shape
 * the spec says, so every value is read through these guards, and shown only as text.
 *
 * @module
 */
import { isObject } from "../../_internal/is-object.ts";

export { isObject };

/** A JSON object read from the wire. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** An object's own property (never an inherited one), or `undefined`. */
export function own(object: unknown, key: string): unknown {
  return isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** An own property that should be an object, or an empty object. */
export function ownObject(object: unknown, key: string): JsonObject {
  const value = own(object, key);
  return isObject(value) ? value : {};
}

/** An own property that should be an array, or an empty array. */
export function ownArray(object: unknown, key: string): readonly unknown[] {
  const value = own(object, key);
  return Array.isArray(value) ? value : [];
}

/** A value that should be a string, or `""`. */
export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A value as indented JSON, or `(not JSON)`. */
export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return "(not JSON)";
  }
}
