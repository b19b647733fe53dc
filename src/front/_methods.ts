/**
 * The caller's requests the front handles by kind, in both eras: the calls that may ask for input,
 * and the requests relayed upstream as they are.
 *
 * @module
 */
import { MRTR_METHODS } from "../protocol/input-required.ts";

/** The calls that may ask for input (multi round-trip in 2026-07-28; server requests in 2025). */
export const CALL_METHODS: ReadonlySet<string> = MRTR_METHODS;

/** The requests relayed upstream as they are: nothing in them asks for input. */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "completion/complete",
]);
