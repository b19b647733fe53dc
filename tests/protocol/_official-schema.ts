// Validates wire messages against the official MCP JSON Schemas (copies in tests/fixtures), one
// `$defs`/`definitions` entry at a time. Validators are built once per (version, definition).
import { Validator } from "@cfworker/json-schema";
import schema20250618 from "../fixtures/schema/2025-06-18.json" with { type: "json" };
import schema20251125 from "../fixtures/schema/2025-11-25.json" with { type: "json" };
import schema20260728 from "../fixtures/schema/2026-07-28.json" with { type: "json" };
import type { ProtocolVersion } from "../../src/protocol/versions.ts";

const validators = new Map<string, Validator>();

function validatorFor(version: ProtocolVersion, definition: string): Validator {
  const id = `${version}#${definition}`;
  let validator = validators.get(id);
  if (validator === undefined) {
    const wrapped = version === "2025-06-18"
      ? { $ref: `#/definitions/${definition}`, definitions: schema20250618.definitions }
      : {
        $ref: `#/$defs/${definition}`,
        $defs: (version === "2025-11-25" ? schema20251125 : schema20260728).$defs,
      };
    validator = new Validator(wrapped as object, version === "2025-06-18" ? "7" : "2020-12", false);
    validators.set(id, validator);
  }
  return validator;
}

/**
 * Lists what the official schema of a version finds wrong with a value, as
 * `definition instanceLocation: error` lines (the deepest errors only).
 */
export function schemaErrors(version: ProtocolVersion, definition: string, value: unknown): string[] {
  const json: unknown = JSON.parse(JSON.stringify(value));
  const result = validatorFor(version, definition).validate(json);
  if (result.valid) return [];
  const lines = (errors: typeof result.errors) =>
    errors.map((error) => `${definition} ${error.instanceLocation}: ${error.error}`);
  const deepest = result.errors.filter((error) =>
    !["$ref", "properties", "anyOf", "allOf"].includes(error.keyword)
  );
  return lines(deepest.length > 0 ? deepest : result.errors);
}
