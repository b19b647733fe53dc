/**
 * The form the benchmark peers ask for in each input round: the fast peer over HTTP
 * (`fast-peer.ts`) and the in-process fake behind the MRTR memory measure (`_memory-mrtr.ts`).
 *
 * @module
 */

/** A three-field form: a string with a minimum length, a bounded integer, a boolean default. */
export const PEER_FORM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2 },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150 },
    subscribe: { type: "boolean", title: "Subscribe", default: false },
  },
  required: ["name"],
} as const;
