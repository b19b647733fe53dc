/**
 * The caller's requests the front relays upstream as they are, in both eras (the calls that may
 * ask for input are `MRTR_METHODS` of `protocol/input-required.ts`).
 *
 * @module
 */

/** The requests relayed upstream as they are: nothing in them asks for input. */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "completion/complete",
]);
