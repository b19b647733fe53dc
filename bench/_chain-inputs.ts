/**
 * The inputs of the chain bench: the four kind cases, generated forms of any size with a valid
 * answer, and sampling conversations of any length.
 *
 * @module
 */
import type { InputRequest } from "../src/protocol/input-request.ts";
import everythingForm from "../tests/fixtures/server-everything-elicitation-schema.json" with {
  type: "json",
};

/** One case of the kind group. */
export interface KindCase {
  readonly name: string;
  readonly request: InputRequest & { readonly params: { readonly message?: string } };
  /** The handler's answer, for a form. */
  readonly answer?: unknown;
}

/**
 * A value as a connection's `JSON.parse` makes it. (On Deno, the objects of a JSON module
 * import enumerate several times slower than parsed ones: the form checks read the schemas
 * with `for…in`, so the cases must hold parsed copies, as the wire gives them.)
 */
function decoded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The kind group: one request of each kind, and one the policy refuses. */
export const KIND_CASES: readonly KindCase[] = decoded([
  {
    name: "sampling request (clamped)",
    request: {
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "Summarise" } }],
        maxTokens: 999_999,
      },
    },
  },
  {
    name: "13-field form elicitation",
    request: {
      method: "elicitation/create",
      params: { message: "Please provide inputs", requestedSchema: everythingForm as never },
    },
    answer: {
      action: "accept",
      content: {
        name: "Ada Lovelace",
        check: true,
        email: "ada@example.com",
        homepage: "https://example.com/ada",
        birthdate: "1815-12-10",
        untitledSingleSelectEnum: "Joey",
        untitledMultipleSelectEnum: ["Piano"],
        titledSingleSelectEnum: "hero-2",
        titledMultipleSelectEnum: ["fish-1", "fish-3"],
        legacyTitledEnum: "pet-2",
      },
    },
  },
  {
    name: "URL elicitation",
    request: {
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://login.example.com/start?x=1" },
    },
  },
  {
    name: "denied request (http URL)",
    request: {
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "http://login.example.com/" },
    },
  },
]);

/** Field `i` of a generated form: five kinds in turn, every other one required. */
function field(i: number): Record<string, unknown> {
  switch (i % 5) {
    case 0:
      return { type: "string", title: `Text ${i}`, minLength: 1, maxLength: 64 };
    case 1:
      return { type: "integer", title: `Count ${i}`, minimum: 0, maximum: 1000 };
    case 2:
      return { type: "boolean", title: `Flag ${i}`, default: false };
    case 3:
      return { type: "string", title: `Choice ${i}`, enum: ["a", "b", "c", "d"] };
    default:
      return { type: "string", title: `Email ${i}`, format: "email" };
  }
}

function value(i: number): unknown {
  return [`value ${i}`, 42, true, "b", "ada@example.com"][i % 5];
}

/**
 * A form of `size` fields named `<prefix><i>`, as freshly decoded JSON.
 *
 * @param size The field count.
 * @param prefix The field names' prefix (distinct prefixes make distinct forms).
 * @returns The `requestedSchema`.
 */
export function formOf(size: number, prefix: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let i = 0; i < size; i++) {
    properties[`${prefix}${i}`] = field(i);
    if (i % 2 === 0) required.push(`${prefix}${i}`);
  }
  return decoded({ type: "object", properties, required });
}

/**
 * A valid accepted answer to {@linkcode formOf}`(size, prefix)`, every field filled.
 *
 * @param size The field count.
 * @param prefix The field names' prefix.
 * @returns The `ElicitResult`.
 */
export function formAnswerOf(size: number, prefix: string): unknown {
  const content: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) content[`${prefix}${i}`] = value(i);
  return { action: "accept", content };
}

/**
 * A conversation of `count` text messages, user and assistant in turn.
 *
 * @param count The message count.
 * @returns The `messages` of a sampling request.
 */
export function messagesOf(count: number): unknown[] {
  return decoded(Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: { type: "text", text: `Message ${i}: the quick brown fox jumps over the lazy dog.` },
  })));
}
