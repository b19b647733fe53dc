// Well-formed MCP values for the property tests, per protocol version: the messages and results
// a server sends and the answers a client sends back. `mutated()` (see _arbitraries.ts) turns
// them into the near-misses that reach deep into the decoders.
import fc from "fast-check";
import type { ProtocolVersion } from "../../src/protocol/versions.ts";
import { hostileKey, hostileString, jsonSafeValue, objectOf } from "./_arbitraries.ts";

/** Every protocol version sluice speaks. */
export const VERSIONS: readonly ProtocolVersion[] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/** A protocol version. */
export const version: fc.Arbitrary<ProtocolVersion> = fc.constantFrom(...VERSIONS);

const text = hostileString(16);
const role = fc.constantFrom("user", "assistant");
/** An object with hostile keys, as `_meta`, `metadata`, `input` or a loose record may be. */
const record = fc.array(fc.tuple(hostileKey, jsonSafeValue), { maxLength: 3 }).map(objectOf);

/** Adds optional fields, each present or not. */
function withOptional<T extends object>(
  base: fc.Arbitrary<T>,
  optional: Readonly<Record<string, fc.Arbitrary<unknown>>>,
): fc.Arbitrary<T & Record<string, unknown>> {
  return fc.tuple(base, fc.record(optional, { requiredKeys: [] })).map(([value, extra]) => ({
    ...value,
    ...extra,
  }));
}

const annotations = withOptional(fc.constant({}), {
  audience: fc.array(role, { maxLength: 2 }),
  priority: fc.double({ min: 0, max: 1, noNaN: true }),
  lastModified: text,
});
const extras = { annotations, _meta: record };

const textBlock = withOptional(text.map((value) => ({ type: "text", text: value })), extras);
const mediaBlock = withOptional(
  fc.tuple(fc.constantFrom("image", "audio"), fc.base64String({ maxLength: 12 }), text).map((
    [type, data, mimeType],
  ) => ({ type, data, mimeType })),
  extras,
);
/** A text, image or audio block (every version's sampling). */
export const basicBlock: fc.Arbitrary<unknown> = fc.oneof(textBlock, mediaBlock);

const toolUse = withOptional(
  fc.tuple(text, text, record).map(([id, name, input]) => ({ type: "tool_use", id, name, input })),
  { _meta: record },
);
const toolResult = withOptional(
  fc.tuple(text, fc.array(basicBlock, { maxLength: 2 })).map(([toolUseId, content]) => ({
    type: "tool_result",
    toolUseId,
    content,
  })),
  { isError: fc.boolean(), structuredContent: jsonSafeValue, _meta: record },
);
/** A sampling block of 2025-11-25 and later. */
export const samplingBlock: fc.Arbitrary<unknown> = fc.oneof(basicBlock, toolUse, toolResult);

const resourceLink = withOptional(
  fc.tuple(text, text).map(([uri, name]) => ({ type: "resource_link", uri, name })),
  { title: text, description: text, mimeType: text, size: fc.nat(), ...extras },
);
const embedded = withOptional(
  fc.tuple(text, fc.boolean(), text).map(([uri, isText, body]) => ({
    type: "resource",
    resource: isText ? { uri, text: body } : { uri, blob: body },
  })),
  extras,
);
/** A block of a tool result or prompt. */
export const contentBlock: fc.Arbitrary<unknown> = fc.oneof(basicBlock, resourceLink, embedded);

function messageOf(v: ProtocolVersion): fc.Arbitrary<unknown> {
  if (v === "2025-06-18") return fc.tuple(role, basicBlock).map(([r, content]) => ({ role: r, content }));
  const content = fc.oneof(samplingBlock, fc.array(samplingBlock, { maxLength: 3 }));
  return withOptional(fc.tuple(role, content).map(([r, c]) => ({ role: r, content: c })), { _meta: record });
}

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const modelPreferences = withOptional(fc.constant({}), {
  hints: fc.array(withOptional(fc.constant({}), { name: text }), { maxLength: 2 }),
  costPriority: unit,
  speedPriority: unit,
  intelligencePriority: unit,
});
const tool = withOptional(
  fc.tuple(text, record).map(([name, properties]) => ({ name, inputSchema: { type: "object", properties } })),
  { description: text, title: text },
);

/**
 * `sampling/createMessage` params of a version.
 *
 * @param v The version.
 * @returns The arbitrary.
 */
export function samplingParams(v: ProtocolVersion): fc.Arbitrary<unknown> {
  const optional: Record<string, fc.Arbitrary<unknown>> = {
    systemPrompt: text,
    modelPreferences,
    includeContext: fc.constantFrom("none", "thisServer", "allServers"),
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true }),
    stopSequences: fc.array(text, { maxLength: 2 }),
    metadata: record,
  };
  if (v !== "2025-06-18") {
    optional["tools"] = fc.array(tool, { maxLength: 2 });
    optional["toolChoice"] = withOptional(fc.constant({}), {
      mode: fc.constantFrom("auto", "required", "none"),
    });
  }
  if (v !== "2026-07-28") optional["_meta"] = record;
  const maxTokens = fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer());
  return withOptional(
    fc.tuple(fc.array(messageOf(v), { maxLength: 4 }), maxTokens).map(([messages, max]) => ({
      messages,
      maxTokens: max,
    })),
    optional,
  );
}

const fieldSchema: fc.Arbitrary<unknown> = fc.oneof(
  withOptional(fc.constant({ type: "string" }), {
    title: text,
    description: text,
    minLength: fc.nat(8),
    maxLength: fc.nat(64),
    format: fc.constantFrom("email", "uri", "date", "date-time"),
    default: text,
  }),
  withOptional(fc.constantFrom({ type: "number" }, { type: "integer" }), {
    title: text,
    minimum: fc.integer({ min: -100, max: 0 }),
    maximum: fc.integer({ min: 0, max: 100 }),
    default: fc.integer({ min: 0, max: 0 }),
  }),
  withOptional(fc.constant({ type: "boolean" }), { title: text, description: text, default: fc.boolean() }),
  fc.uniqueArray(text, { minLength: 1, maxLength: 4 }).chain((values) =>
    withOptional(fc.constant({ type: "string", enum: values }), {
      title: text,
      default: fc.constantFrom(...values),
      enumNames: fc.array(text, { minLength: values.length, maxLength: values.length }),
    })
  ),
  fc.uniqueArray(text, { minLength: 1, maxLength: 4 }).chain((values) =>
    withOptional(
      fc.array(text, { minLength: values.length, maxLength: values.length }).map((titles) => ({
        type: "string",
        oneOf: values.map((value, i) => ({ const: value, title: titles[i] })),
      })),
      { title: text, default: fc.constantFrom(...values) },
    )
  ),
  fc.uniqueArray(text, { minLength: 1, maxLength: 4 }).chain((values) =>
    withOptional(
      fc.boolean().map((titled) => ({
        type: "array",
        items: titled
          ? { anyOf: values.map((value) => ({ const: value, title: value })) }
          : { type: "string", enum: values },
      })),
      {
        title: text,
        minItems: fc.nat(1),
        maxItems: fc.integer({ min: 1, max: 4 }),
        default: fc.subarray(values, { maxLength: 1 }),
      },
    )
  ),
);

const fieldName = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "name",
      "email",
      "age",
      "apiKey",
      "pass\u200bword",
      "__proto__",
      "constructor",
    ),
  },
  { weight: 1, arbitrary: hostileKey },
);

/** A form `requestedSchema` of the spec's primitive subset (most compile; some break a rule). */
export const formSchema: fc.Arbitrary<Record<string, unknown>> = fc.uniqueArray(
  fc.tuple(fieldName, fieldSchema, fc.boolean()),
  { maxLength: 5, selector: ([name]) => name },
).chain((fields) =>
  withOptional(
    fc.constant({
      type: "object",
      properties: objectOf(fields.map(([name, schema]) => [name, schema])),
      required: fields.filter(([, , required]) => required).map(([name]) => name),
    }),
    { title: text, description: text, $schema: fc.constant("https://json-schema.org/draft/2020-12/schema") },
  )
);

/**
 * `elicitation/create` params of a version: a form, or (2025-11-25 and later) a URL.
 *
 * @param v The version.
 * @returns The arbitrary.
 */
export function elicitParams(v: ProtocolVersion): fc.Arbitrary<unknown> {
  const legacy = v === "2026-07-28" ? {} : { _meta: record };
  const form = withOptional(
    fc.tuple(text, formSchema).map(([message, requestedSchema]) => ({ message, requestedSchema })),
    v === "2025-06-18" ? legacy : { mode: fc.constant("form"), ...legacy },
  );
  if (v === "2025-06-18") return form;
  const url = fc.tuple(text, fc.oneof(text, fc.webUrl()), text).map(([message, address, id]) => ({
    mode: "url",
    message,
    url: address,
    ...(v === "2025-11-25" ? { elicitationId: id } : {}),
  }));
  return fc.oneof(form, withOptional(url, legacy));
}

/** `roots/list` params: none, `{}`, or `_meta`. */
export const rootsParams: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  withOptional(fc.constant({}), { _meta: record }),
);

/**
 * A server's input request of a version, as `{ method, params }`.
 *
 * @param v The version.
 * @returns The arbitrary.
 */
export function inputRequest(v: ProtocolVersion): fc.Arbitrary<{ method: string; params: unknown }> {
  return fc.oneof(
    samplingParams(v).map((params) => ({ method: "sampling/createMessage", params })),
    elicitParams(v).map((params) => ({ method: "elicitation/create", params })),
    rootsParams.map((params) => ({ method: "roots/list", params })),
  );
}

/** A modern result of `tools/call`, `resources/read` or `prompts/get`: complete, input_required or task. */
export const modernResult: fc.Arbitrary<unknown> = fc.oneof(
  withOptional(fc.array(contentBlock, { maxLength: 3 }).map((content) => ({ content })), {
    structuredContent: jsonSafeValue,
    isError: fc.boolean(),
    resultType: fc.constant("complete"),
    _meta: record,
    extra: jsonSafeValue,
  }),
  withOptional(
    fc.array(fc.tuple(hostileKey, inputRequest("2026-07-28")), { minLength: 1, maxLength: 3 }).map((
      entries,
    ) => ({
      resultType: "input_required",
      inputRequests: objectOf(entries),
    })),
    { requestState: text, _meta: record },
  ),
  fc.tuple(text, fc.constantFrom("working", "input_required", "completed", "failed", "cancelled")).map((
    [taskId, status],
  ) => ({
    resultType: "task",
    taskId,
    status,
    createdAt: "2026-07-28T00:00:00Z",
    lastUpdatedAt: "2026-07-28T00:00:01Z",
    ttlMs: 60_000,
  })),
  withOptional(
    fc.array(fc.record({ uri: text, text }), { maxLength: 2 }).map((contents) => ({ contents })),
    { _meta: record },
  ),
  withOptional(
    fc.array(fc.tuple(role, contentBlock).map(([r, content]) => ({ role: r, content })), { maxLength: 2 })
      .map((messages) => ({ messages })),
    { description: text },
  ),
);

/**
 * A client's sampling answer of a version.
 *
 * @param v The version.
 * @returns The arbitrary.
 */
export function samplingResult(v: ProtocolVersion): fc.Arbitrary<unknown> {
  const content = v === "2025-06-18"
    ? basicBlock
    : fc.oneof(samplingBlock, fc.array(samplingBlock, { maxLength: 3 }));
  return withOptional(
    fc.tuple(role, content, text).map(([r, c, model]) => ({ role: r, content: c, model })),
    { stopReason: fc.oneof(fc.constantFrom("endTurn", "maxTokens", "toolUse"), text), _meta: record },
  );
}
