// Properties of the decoders of both eras: the wire (`parseMessage`, both eras), the legacy
// server→client requests (`decodeInputRequest`, as the legacy session's supervisor calls it), the
// modern results (`decodeModernResult`, as the multi-round loop calls it), and the sampling
// answers the client sends back (`decodeCreateMessageResult`, as the chain's answer check calls it). Inputs are well-formed values edited anywhere inside
// (see `mutated()`), JSON text with hostile strings, keys and numbers, and in-memory values JSON
// cannot hold.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Decoded } from "../../src/protocol/decode.ts";
import { decodeInputRequest } from "../../src/protocol/input-request.ts";
import { decodeModernResult, type MrtrMethod } from "../../src/protocol/input-required.ts";
import {
  decodeMessage,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  type JsonObject,
  parseMessage,
} from "../../src/protocol/jsonrpc.ts";
import { decodeCreateMessageResult } from "../../src/protocol/sampling.ts";
import { same } from "../_support/exact.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";
import { hostileKey, hostileString, jsonSafeValue, jsonText, objectOf, wireValue } from "./_arbitraries.ts";
import { anyValue, realise } from "./_js-only-values.ts";
import { mutated } from "./_mutated.ts";
import { inputRequest, modernResult, samplingResult, version } from "./_protocol-arbitraries.ts";

/** A failure is one well-formed line: `<JSONPath>: expected …, received …`. */
function assertWellFormed(decoded: Decoded<unknown>): void {
  assert.equal(typeof decoded.ok, "boolean");
  if (decoded.ok) return;
  assert.match(decoded.path, /^\$/);
  assert.equal(
    decoded.message,
    `${decoded.path}: expected ${decoded.expected}, received ${decoded.received}`,
  );
}

/** Near-valid input requests of every version: the version, the method and the params. */
const legacyRequest = version.chain((v) =>
  mutated(inputRequest(v), wireValue).map((request) =>
    [v, request as { method?: unknown; params?: unknown }] as const
  )
);

const METHODS: readonly MrtrMethod[] = ["tools/call", "resources/read", "prompts/get"];
const modern = fc.tuple(fc.constantFrom(...METHODS), fc.boolean(), mutated(modernResult, wireValue));

const id = fc.oneof(fc.nat(), hostileString(8));
const jsonObject = fc.array(fc.tuple(hostileKey, jsonSafeValue), { maxLength: 3 }).map(objectOf);
const messageValue = fc.oneof(
  fc.tuple(id, version.chain(inputRequest)).map(([i, { method, params }]) => ({
    jsonrpc: "2.0",
    id: i,
    method,
    ...(params === undefined ? {} : { params }),
  })),
  fc.tuple(hostileString(12), jsonObject).map(([method, params]) => ({ jsonrpc: "2.0", method, params })),
  fc.tuple(id, modernResult).map(([i, result]) => ({ jsonrpc: "2.0", id: i, result })),
  fc.tuple(fc.option(id), fc.integer(), hostileString(), jsonSafeValue).map(([i, code, message, data]) => ({
    jsonrpc: "2.0",
    id: i,
    error: { code, message, data },
  })),
);
/** Message text: near-valid messages, cut or spliced text, JSON text, and any string. */
const messageText = fc.oneof(
  mutated(messageValue, wireValue).map((value) => JSON.stringify(value) ?? "null"),
  fc.tuple(messageValue.map((value) => JSON.stringify(value)), fc.nat(), hostileString(4)).map((
    [text, at, insert],
  ) => text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1))),
  jsonText,
  hostileString(64),
);

describe("the decoders of both eras", () => {
  test(
    propertyName(
      "decodeInputRequest() of near-valid requests of every version is stable and a decoded request decodes to itself",
    ),
    () => {
      fc.assert(
        fc.property(legacyRequest, ([v, request]) => {
          const decoded = decodeInputRequest(v, request.method, request.params ?? {});
          assertWellFormed(decoded);
          same(decodeInputRequest(v, request.method, request.params ?? {}), decoded);
          if (!decoded.ok) return assert.match(decoded.path, /^\$\.(method|params)/);
          same(decodeInputRequest(v, decoded.value.method, decoded.value.params), decoded);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(propertyName("decodeInputRequest() of any method and params, JSON or not, returns a verdict"), () => {
    fc.assert(
      fc.property(version, anyValue, anyValue, (v, generatedMethod, generatedParams) => {
        const [method, params] = [realise(generatedMethod), realise(generatedParams)];
        assertWellFormed(decodeInputRequest(v, method, params));
        assertWellFormed(decodeInputRequest(v, "sampling/createMessage", params));
        assertWellFormed(decodeInputRequest(v, "elicitation/create", params));
        assertWellFormed(decodeInputRequest(v, "roots/list", params));
      }),
      PROPERTY_SETTINGS,
    );
  });

  test(propertyName("parseMessage() of any text is stable and a decoded message decodes to itself"), () => {
    fc.assert(
      fc.property(messageText, (text) => {
        const decoded = parseMessage(text);
        assertWellFormed(decoded);
        same(parseMessage(text), decoded);
        if (decoded.ok) same(decodeMessage(decoded.value), decoded);
      }),
      PROPERTY_SETTINGS,
    );
  });

  test(
    propertyName(
      "decodeModernResult() of near-valid results is stable and a decoded result decodes to itself",
    ),
    () => {
      fc.assert(
        fc.property(modern, ([method, tasks, value]) => {
          const decoded = decodeModernResult(method, value, { tasks });
          assertWellFormed(decoded);
          same(decodeModernResult(method, value, { tasks }), decoded);
          if (decoded.ok) same(decodeModernResult(method, decoded.value.result, { tasks }), decoded);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(propertyName("decodeModernResult() of any value, JSON or not, returns a verdict"), () => {
    fc.assert(
      fc.property(fc.constantFrom(...METHODS), fc.boolean(), anyValue, (method, tasks, value) => {
        assertWellFormed(decodeModernResult(method, realise(value), { tasks }));
      }),
      PROPERTY_SETTINGS,
    );
  });
});

/**
 * A message as decoding leaves it: `params` and `result` are passed through valibot's loose
 * object, which drops their own keys `__proto__`, `prototype` and `constructor`; deeper keys and
 * every other key are kept.
 */
function withoutUnsafeKeys(message: object): object {
  const copy: Record<string, unknown> = { ...message };
  for (const member of ["params", "result"]) {
    const inner = copy[member];
    if (typeof inner !== "object" || inner === null) continue;
    copy[member] = objectOf(
      Object.entries(inner).filter(([key]) => !["__proto__", "prototype", "constructor"].includes(key)),
    );
  }
  return copy;
}

describe("encode then decode", () => {
  test(
    propertyName(
      "encodeRequest(), encodeNotification(), encodeResult() and encodeError() survive JSON text and parseMessage()",
    ),
    () => {
      const params = fc.option(jsonObject, { nil: undefined });
      const message = fc.oneof(
        fc.tuple(id, hostileString(12), params).map(([i, method, p]) => encodeRequest(i, method, p)),
        fc.tuple(hostileString(12), params).map(([method, p]) => encodeNotification(method, p)),
        fc.tuple(id, jsonObject).map(([i, result]) => encodeResult(i, result as JsonObject)),
        fc.tuple(fc.option(id), fc.integer(), hostileString(), fc.option(jsonSafeValue, { nil: undefined }))
          .map((
            [i, code, text, data],
          ) => encodeError(i, data === undefined ? { code, message: text } : { code, message: text, data })),
      );
      fc.assert(
        fc.property(message, (encoded) => {
          // An error about no request is sent without an id and read back with id null.
          const read = "error" in encoded && !("id" in encoded) ? { ...encoded, id: null } : encoded;
          same(parseMessage(JSON.stringify(encoded)), { ok: true, value: withoutUnsafeKeys(read) });
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  const answers = version.chain((v) =>
    fc.tuple(fc.constant(v), fc.boolean()).chain(([w, edit]) => {
      const value = edit ? mutated(samplingResult(w), wireValue) : samplingResult(w);
      return value.map((answer) => [w, answer, !edit] as const);
    })
  );

  test(
    propertyName("decodeCreateMessageResult() gives a decoded answer back unchanged, through JSON too"),
    () => {
      fc.assert(
        fc.property(answers, ([v, answer, json]) => {
          const decoded = decodeCreateMessageResult(v, answer);
          assertWellFormed(decoded);
          if (!decoded.ok) return;
          same(decodeCreateMessageResult(v, decoded.value), decoded);
          if (json) same(decodeCreateMessageResult(v, JSON.parse(JSON.stringify(decoded.value))), decoded);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );
});
