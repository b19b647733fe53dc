// Every official 2026-07-28 example (tests/fixtures/examples-2026-07-28.json, copied from the
// spec repository's schema/2026-07-28/examples) either decodes with the decoder sluice applies
// to that type, to exactly the example, or is listed below as not decoded by sluice.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import examples from "../fixtures/examples-2026-07-28.json" with { type: "json" };
import { decodeClientCapabilities, ServerCapabilitiesSchema } from "../../src/protocol/capabilities.ts";
import {
  ContentBlockSchema,
  ResourceContentsSchema,
  SamplingContentBlockSchema,
} from "../../src/protocol/content.ts";
import { decode, type Decoded, nestFailure } from "../../src/protocol/decode.ts";
import { decodeDiscoverResult } from "../../src/protocol/discover.ts";
import { decodeElicitParams } from "../../src/protocol/elicitation.ts";
import { decodeUnsupportedVersionData } from "../../src/protocol/error-data.ts";
import {
  type InputRequest,
  InputRequestSchema,
  InputRequestsSchema,
} from "../../src/protocol/input-request.ts";
import { decodeModernResult, type MrtrMethod } from "../../src/protocol/input-required.ts";
import { decodeMessage, ErrorObjectSchema } from "../../src/protocol/jsonrpc.ts";
import { decodeRequestMeta } from "../../src/protocol/meta.ts";
import { decodeListPromptsResult } from "../../src/protocol/prompts.ts";
import { decodeCompleteResult } from "../../src/protocol/completion.ts";
import {
  decodeListResourcesResult,
  decodeListResourceTemplatesResult,
  ResourceSchema,
} from "../../src/protocol/resources.ts";
import { decodeCreateMessageParams, decodeCreateMessageResult } from "../../src/protocol/sampling.ts";
import { decodeListToolsResult, ToolSchema } from "../../src/protocol/tools.ts";
import { sanitizeLogParams } from "../../src/notify/sanitize-log.ts";
import { createChain } from "../../src/chain/chain.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import { same } from "../_support/exact.ts";

type Decoder = (example: unknown) => Decoded<unknown>;
type Json = Record<string, unknown>;

const M = "2026-07-28";
const ALL: Record<string, Record<string, unknown>> = examples;

/** Decodes a JSON-RPC message, then its params, result or error data with `inner`. */
function framed(part: "params" | "result" | "data", inner: Decoder): Decoder {
  return (example) => {
    const message = decodeMessage(example);
    if (!message.ok) return message;
    const value = message.value as unknown as Json;
    if (part === "data") {
      const error = value.error as Json;
      const data = inner(error.data);
      if (!data.ok) return nestFailure("$.error.data", data);
      return {
        ok: true,
        value: { ...value, error: data.value === undefined ? error : { ...error, data: data.value } },
      };
    }
    const inside = inner(value[part]);
    return inside.ok
      ? { ok: true, value: { ...value, [part]: inside.value } }
      : nestFailure(`$.${part}`, inside);
  };
}

/** Decodes a value placed inside a larger message, then takes it back out. */
function inside(
  wrap: (x: unknown) => unknown,
  decoder: Decoder,
  unwrap: (decoded: Json) => unknown,
): Decoder {
  return (example) => {
    const decoded = decoder(wrap(example));
    return decoded.ok ? { ok: true, value: unwrap(decoded.value as Json) } : decoded;
  };
}

function modern(method: MrtrMethod): Decoder {
  return (example) => {
    const decoded = decodeModernResult(method, example, { tasks: false });
    return decoded.ok ? { ok: true, value: decoded.value.result } : decoded;
  };
}

const property = (decoded: Json) => ((decoded.requestedSchema as Json).properties as Json).field;
const asProperty = (x: unknown) => ({
  message: "m",
  requestedSchema: { type: "object", properties: { field: x } },
});

/**
 * A chain whose handler declares every kind, both elicitation modes: the front checks a caller's
 * answers with it (`checkAnswer`), as the client checks its handler's before sending them.
 */
const chain = createChain({
  policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }),
  handler: {
    sampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
    elicitationModes: ["form", "url"],
    elicitation: () => ({ action: "cancel" }),
    roots: () => ({ roots: [] }),
  },
  client: "agent",
  store: createMemoryStore(),
});

/** Checks an answer to `request` as sluice checks any answer before it is sent. */
function answerTo(request: InputRequest): Decoder {
  return (answer) => {
    const checked = chain.checkAnswer(request, answer, M);
    return checked.ok ? checked : { ok: false, message: checked.refusal.message } as Decoded<unknown>;
  };
}

/** A form whose fields are the keys of an accepted answer's content, typed by their values. */
function formFor(answer: unknown): InputRequest {
  const properties: Record<string, Json> = {};
  for (const [name, value] of Object.entries((answer as { content?: Json }).content ?? {})) {
    properties[name] = { type: typeof value === "number" ? "number" : "string" };
  }
  return {
    method: "elicitation/create",
    params: { message: "m", requestedSchema: { type: "object", properties } },
  };
}

const URL_REQUEST: InputRequest = {
  method: "elicitation/create",
  params: { mode: "url", message: "m", url: "https://example.com/", elicitationId: "e" },
};
const ROOTS_REQUEST: InputRequest = { method: "roots/list", params: {} };

const elicitAnswer: Decoder = (answer) =>
  answerTo((answer as Json).content === undefined ? URL_REQUEST : formFor(answer))(answer);
const requests = decode(
  InputRequestsSchema,
  ALL.InputRequests?.["elicitation-and-sampling-input-requests.json"],
);
const block = (x: unknown) => decode(ContentBlockSchema, x);
const samplingBlock = (x: unknown) => decode(SamplingContentBlockSchema, x);
const elicitProperty = inside(asProperty, (x) => decodeElicitParams(M, x), property);
const notification: Decoder = decodeMessage;
/**
 * A downstream request's params as the front reads them (`readDownstreamRequest`): `_meta`
 * decoded, every other key passed upstream as sent.
 */
const downstreamParams: Decoder = (x) => {
  const meta = decodeRequestMeta((x as Json)._meta);
  return meta.ok ? { ok: true, value: { ...(x as Json), _meta: meta.value } } : nestFailure("$._meta", meta);
};
/** A server log entry's params as the `log` callback receives them. */
const logParams: Decoder = (x) => ({ ok: true, value: sanitizeLogParams(x) });

/** The decoder sluice applies to each example type, and the value it must give when not the example. */
const DECODERS: Record<
  string,
  { readonly decoder: Decoder; readonly expected?: (example: Json) => unknown }
> = {
  AudioContent: { decoder: block },
  BlobResourceContents: { decoder: (x) => decode(ResourceContentsSchema, x) },
  BooleanSchema: { decoder: elicitProperty },
  CallToolRequest: { decoder: framed("params", downstreamParams) },
  CallToolRequestParams: { decoder: downstreamParams },
  CallToolResult: { decoder: modern("tools/call") },
  CallToolResultResponse: { decoder: framed("result", modern("tools/call")) },
  // The front relays a completion only once it fits.
  CompleteResult: { decoder: decodeCompleteResult },
  CompleteResultResponse: { decoder: framed("result", decodeCompleteResult) },
  // Framing only: a legacy session reads `requestId` and `reason` where it cancels the job.
  CancelledNotification: { decoder: notification },
  ClientCapabilities: { decoder: (x) => decodeClientCapabilities(M, x) },
  CreateMessageRequest: { decoder: (x) => decode(InputRequestSchema, x) },
  CreateMessageRequestParams: { decoder: (x) => decodeCreateMessageParams(M, x) },
  CreateMessageResult: { decoder: (x) => decodeCreateMessageResult(M, x) },
  DiscoverRequest: { decoder: framed("params", downstreamParams) },
  DiscoverResult: { decoder: decodeDiscoverResult },
  DiscoverResultResponse: { decoder: framed("result", decodeDiscoverResult) },
  ElicitRequest: { decoder: (x) => decode(InputRequestSchema, x) },
  ElicitRequestFormParams: { decoder: (x) => decodeElicitParams(M, x) },
  ElicitRequestURLParams: { decoder: (x) => decodeElicitParams(M, x) },
  ElicitResult: { decoder: elicitAnswer },
  EmbeddedResource: { decoder: block },
  GetPromptRequest: { decoder: framed("params", downstreamParams) },
  GetPromptRequestParams: { decoder: downstreamParams },
  GetPromptResult: { decoder: modern("prompts/get") },
  GetPromptResultResponse: { decoder: framed("result", modern("prompts/get")) },
  // Framing only: the error's data reaches ClientError.data as the server sent it.
  HeaderMismatchError: { decoder: notification },
  ImageContent: { decoder: block },
  InputRequests: { decoder: (x) => decode(InputRequestsSchema, x) },
  InputRequiredResult: { decoder: modern("tools/call") },
  // A downstream caller's answers, each checked against the request it answers, as the front does.
  InputResponses: {
    decoder: (x) => {
      if (!requests.ok) return requests;
      const checked: Json = {};
      for (const [key, answer] of Object.entries(x as Json)) {
        const one = answerTo(requests.value[key]!)(answer);
        if (!one.ok) return one;
        checked[key] = one.value;
      }
      return { ok: true, value: checked };
    },
  },
  InternalError: { decoder: (x) => decode(ErrorObjectSchema, x) },
  InvalidParamsError: { decoder: (x) => decode(ErrorObjectSchema, x) },
  ListPromptsRequest: { decoder: framed("params", downstreamParams) },
  ListPromptsResult: { decoder: decodeListPromptsResult },
  ListPromptsResultResponse: { decoder: framed("result", decodeListPromptsResult) },
  ListResourceTemplatesRequest: { decoder: framed("params", downstreamParams) },
  ListResourceTemplatesResult: { decoder: decodeListResourceTemplatesResult },
  ListResourceTemplatesResultResponse: { decoder: framed("result", decodeListResourceTemplatesResult) },
  ListResourcesRequest: { decoder: framed("params", downstreamParams) },
  ListResourcesResult: { decoder: decodeListResourcesResult },
  ListResourcesResultResponse: { decoder: framed("result", decodeListResourcesResult) },
  // An inputRequests entry: no `id` (the example has one), absent params decode as {}.
  ListRootsRequest: {
    decoder: (x) => decode(InputRequestSchema, x),
    expected: (x) => ({ method: x.method, params: {} }),
  },
  ListRootsResult: { decoder: answerTo(ROOTS_REQUEST) },
  ListToolsRequest: { decoder: framed("params", downstreamParams) },
  ListToolsResult: { decoder: decodeListToolsResult },
  ListToolsResultResponse: { decoder: framed("result", decodeListToolsResult) },
  LoggingMessageNotification: { decoder: framed("params", logParams) },
  LoggingMessageNotificationParams: { decoder: logParams },
  MethodNotFoundError: { decoder: (x) => decode(ErrorObjectSchema, x) },
  // Framing only: the error's data reaches ClientError.data as the server sent it.
  MissingRequiredClientCapabilityError: { decoder: notification },
  ModelPreferences: {
    decoder: inside(
      (x) => ({ messages: [], maxTokens: 1, modelPreferences: x }),
      (x) => decodeCreateMessageParams(M, x),
      (d) => d.modelPreferences,
    ),
  },
  NumberSchema: { decoder: elicitProperty },
  PaginatedRequestParams: { decoder: downstreamParams },
  ParseError: { decoder: (x) => decode(ErrorObjectSchema, x) },
  // Framing only: a session reads `progressToken` to find the call's progress listener.
  ProgressNotification: { decoder: notification },
  // Framing only: the params of list-changed notifications reach the notification callback as is.
  PromptListChangedNotification: { decoder: notification },
  ReadResourceRequest: { decoder: framed("params", downstreamParams) },
  ReadResourceResult: { decoder: modern("resources/read") },
  ReadResourceResultResponse: { decoder: framed("result", modern("resources/read")) },
  Resource: { decoder: (x) => decode(ResourceSchema, x) },
  ResourceLink: { decoder: block },
  ResourceListChangedNotification: { decoder: notification },
  ResourceUpdatedNotification: { decoder: notification },
  Root: {
    decoder: inside(
      (x) => ({ roots: [x] }),
      answerTo(ROOTS_REQUEST),
      (d) => (d.roots as unknown[])[0],
    ),
  },
  SamplingMessage: {
    decoder: inside(
      (x) => ({ messages: [x], maxTokens: 1 }),
      (x) => decodeCreateMessageParams(M, x),
      (d) => (d.messages as unknown[])[0],
    ),
  },
  ServerCapabilities: { decoder: (x) => decode(ServerCapabilitiesSchema, x) },
  StringSchema: { decoder: elicitProperty },
  TextContent: { decoder: block },
  TextResourceContents: { decoder: (x) => decode(ResourceContentsSchema, x) },
  TitledMultiSelectEnumSchema: { decoder: elicitProperty },
  TitledSingleSelectEnumSchema: { decoder: elicitProperty },
  Tool: { decoder: (x) => decode(ToolSchema, x) },
  ToolListChangedNotification: { decoder: notification },
  ToolResultContent: { decoder: samplingBlock },
  ToolUseContent: { decoder: samplingBlock },
  UnsupportedProtocolVersionError: { decoder: framed("data", decodeUnsupportedVersionData) },
  UntitledMultiSelectEnumSchema: { decoder: elicitProperty },
  UntitledSingleSelectEnumSchema: { decoder: elicitProperty },
};

/** Example types sluice never decodes, with the reason. */
const NOT_DECODED: Record<string, string> = {
  CancelledNotificationParams: "no params model: a legacy session reads requestId and reason as is",
  CompleteRequest: "completion/complete is not part of sluice's client API",
  CompleteRequestParams: "completion/complete is not part of sluice's client API",
  ProgressNotificationParams: "no params model: progress reaches the call's listener as is",
  ResourceUpdatedNotificationParams:
    "no params model: notifications/resources/updated reaches the callback as is",
  SubscriptionsAcknowledgedNotification: "sluice opens no subscriptions/listen stream yet",
  SubscriptionsListenRequest: "sluice opens no subscriptions/listen stream yet",
  SubscriptionsListenResult: "sluice opens no subscriptions/listen stream yet",
  SubscriptionsListenResultResponse: "sluice opens no subscriptions/listen stream yet",
};

describe("official 2026-07-28 examples", () => {
  test("every example type is either decoded or listed as not decoded by sluice, never both", () => {
    const types = Object.keys(ALL);
    same(types.filter((type) => !(type in DECODERS) && !(type in NOT_DECODED)), []);
    same(types.filter((type) => type in DECODERS && type in NOT_DECODED), []);
    same(Object.keys(DECODERS).filter((type) => !(type in ALL)), []);
    same(Object.keys(NOT_DECODED).filter((type) => !(type in ALL)), []);
  });

  for (const [type, files] of Object.entries(ALL)) {
    const entry = DECODERS[type];
    if (entry === undefined) continue;
    for (const [file, example] of Object.entries(files)) {
      test(`${type}/${file} decodes to exactly the example`, () => {
        const decoded = entry.decoder(example);
        assert.equal(decoded.ok ? "ok" : decoded.message, "ok");
        const expected = entry.expected === undefined ? example : entry.expected(example as Json);
        same(decoded.ok ? JSON.parse(JSON.stringify(decoded.value)) : undefined, expected);
      });
    }
  }
});
