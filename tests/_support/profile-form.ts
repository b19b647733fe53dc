/**
 * The form the modern peer's `ask_form` tool asks for (`tests/peers/_modern-tools.ts`): the peer
 * sends it, and the tests of every host and gateway in front of the peer compare what reached
 * the caller with it.
 *
 * @module
 */

/** The form `ask_form` sends: one field of each primitive kind, `name` required. */
export const PROFILE_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2 },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150 },
    subscribe: { type: "boolean", title: "Subscribe", default: false },
    color: { type: "string", title: "Colour", enum: ["red", "green", "blue"] },
  },
  required: ["name"],
} as const;
