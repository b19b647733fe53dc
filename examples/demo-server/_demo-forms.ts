/**
 * The forms the demo server asks the user to fill in, and how it reads the answers. Answers come
 * from the client, so every value is checked before use.
 *
 * @module
 */
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server";

/** A form elicitation's message and fields. */
export type Form = Pick<ElicitRequestFormParams, "message" | "requestedSchema">;

/** `book_trip`'s form: one field of every kind a form may hold. */
export const TRIP_FORM: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    traveller: { type: "string", title: "Traveller's name", minLength: 2 },
    email: { type: "string", title: "Email for the tickets", format: "email" },
    departure: { type: "string", title: "Departure date", format: "date" },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 30, default: 3 },
    budget: { type: "number", title: "Budget per night (EUR)", minimum: 0 },
    window: { type: "boolean", title: "Window seat", default: false },
    cabin: {
      type: "string",
      title: "Cabin",
      oneOf: [
        { const: "economy", title: "Economy" },
        { const: "premium", title: "Premium economy" },
        { const: "business", title: "Business" },
      ],
      default: "economy",
    },
    extras: {
      type: "array",
      title: "Extras",
      items: { type: "string", enum: ["breakfast", "late_checkout", "airport_transfer"] },
    },
  },
  required: ["traveller", "email", "departure", "nights", "cabin"],
};

/**
 * Sums up an accepted booking form.
 *
 * @param destination Where to.
 * @param content The form's answer.
 * @returns One sentence.
 */
export function describeTrip(destination: string, content: Readonly<Record<string, unknown>>): string {
  const value = (name: string, fallback: string): string => {
    const given = content[name];
    return typeof given === "string" || typeof given === "number" ? String(given) : fallback;
  };
  const extras = Array.isArray(content.extras) && content.extras.length > 0
    ? content.extras.map(String).join(", ")
    : "none";
  const budget = typeof content.budget === "number" ? `${content.budget} EUR a night` : "not given";
  return `Booked a trip to ${destination} for ${value("traveller", "(no name)")} ` +
    `<${value("email", "(no email)")}>: ${value("nights", "?")} night(s) from ${
      value("departure", "(no date)")
    }, ` +
    `cabin ${value("cabin", "economy")}, window seat: ${content.window === true ? "yes" : "no"}, ` +
    `budget: ${budget}, extras: ${extras}.`;
}

/** Something `plan_party` may celebrate, and the follow-up question it leads to. */
export interface Occasion {
  readonly id: string;
  readonly title: string;
  readonly followUp: Form;
  readonly plan: (detail: string) => string;
}

const detailForm = (message: string, title: string): Form => ({
  message,
  requestedSchema: {
    type: "object",
    properties: { detail: { type: "string", title, minLength: 1 } },
    required: ["detail"],
  },
});

const OCCASIONS: readonly Occasion[] = [
  {
    id: "birthday",
    title: "A birthday",
    followUp: detailForm("A birthday! Whose birthday is it?", "Name"),
    plan: (detail) => `a birthday party for ${detail}`,
  },
  {
    id: "launch",
    title: "A product launch",
    followUp: detailForm("A product launch! What are we launching?", "Product"),
    plan: (detail) => `a launch party for ${detail}`,
  },
  {
    id: "farewell",
    title: "A farewell",
    followUp: detailForm("A farewell! Who is leaving?", "Name"),
    plan: (detail) => `a farewell party for ${detail}`,
  },
];

/** `plan_party`'s first question. */
export const ROUND_ONE: Form = {
  message: "What are we celebrating?",
  requestedSchema: {
    type: "object",
    properties: {
      occasion: {
        type: "string",
        title: "Occasion",
        oneOf: OCCASIONS.map((occasion) => ({ const: occasion.id, title: occasion.title })),
      },
    },
    required: ["occasion"],
  },
};

/**
 * Finds an occasion by its id.
 *
 * @param id An answer to {@linkcode ROUND_ONE}, or a state's occasion.
 * @returns The occasion, or `undefined` when `id` is not one.
 */
export function findOccasion(id: unknown): Occasion | undefined {
  return OCCASIONS.find((occasion) => occasion.id === id);
}
