/**
 * `_meta`: the reserved keys, implementation info, and the modern per-request metadata every
 * `2026-07-28` request carries (protocol version, client capabilities, client info).
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, nestedIssue, wireLooseObject, type WireSchema } from "./decode.ts";
import {
  type ClientCapabilities,
  ClientCapabilitiesSchemas,
  encodeClientCapabilities,
} from "./capabilities.ts";
import { type Icon, IconsSchema } from "./icon.ts";
import { type JsonObject, RequestIdSchema } from "./jsonrpc.ts";
import { type LoggingLevel, LoggingLevelSchema } from "./logging-level.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";
import { MODERN_PROTOCOL_VERSION, type ModernProtocolVersion } from "./versions.ts";
import { copyOwn } from "../_internal/copy.ts";
import { isObject } from "../_internal/is-object.ts";

/** The reserved `_meta` keys sluice reads or writes. */
export const MetaKey = {
  /** Request: the protocol version (2026-07-28, required). */
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  /** Request: the client capabilities for this request (2026-07-28, required). */
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  /** Request: the client's implementation info (2026-07-28, sluice always sends it). */
  clientInfo: "io.modelcontextprotocol/clientInfo",
  /** Request: the log level wanted for this request (2026-07-28). */
  logLevel: "io.modelcontextprotocol/logLevel",
  /** Any message tied to a 2025-11-25 task: `{ taskId }`. */
  relatedTask: "io.modelcontextprotocol/related-task",
} as const;

/** A `_meta` object: any keys, kept as ordinary keys in a prototype-free map. */
export type Meta = NullProtoRecord<unknown>;

/** A `_meta` object; every key is kept, `__proto__` included. */
export const MetaSchema: WireSchema<Meta> = objectMap(v.unknown());

/** A progress token: a string or an integer, as a request id is. */
export type ProgressToken = string | number;

/** Describes an MCP implementation (`clientInfo`, `serverInfo`); self-reported, never trusted. */
export interface Implementation {
  /** Programmatic name. */
  readonly name: string;
  /** Version string. */
  readonly version: string;
  /** Display name. */
  readonly title?: string;
  /** What the implementation does (2025-11-25 and later). */
  readonly description?: string;
  /** Website URL (2025-11-25 and later). */
  readonly websiteUrl?: string;
  /** Icons (2025-11-25 and later). */
  readonly icons?: readonly Icon[];
}

/** Implementation info; unknown keys are kept. */
export const ImplementationSchema: WireSchema<Implementation> = wireLooseObject({
  name: v.string(),
  version: v.string(),
  title: v.exactOptional(v.string()),
  description: v.exactOptional(v.string()),
  websiteUrl: v.exactOptional(v.string()),
  icons: v.exactOptional(IconsSchema),
});

/** What sluice puts in the `_meta` of every modern request. */
export interface RequestMeta {
  /** The protocol version of the request. */
  readonly protocolVersion: ModernProtocolVersion;
  /** The capabilities declared for this request (`{}` for none). */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's implementation info. */
  readonly clientInfo: Implementation;
  /** The log level wanted; absent means no `notifications/message` for this request. */
  readonly logLevel?: LoggingLevel;
}

/** The `_meta` of a modern request as it is on the wire, reserved keys decoded. */
export interface RequestMetaObject {
  /** The protocol version. */
  readonly "io.modelcontextprotocol/protocolVersion": string;
  /** The client capabilities for this request. */
  readonly "io.modelcontextprotocol/clientCapabilities": ClientCapabilities;
  /** The client's implementation info. */
  readonly "io.modelcontextprotocol/clientInfo"?: Implementation;
  /** The log level wanted. */
  readonly "io.modelcontextprotocol/logLevel"?: LoggingLevel;
  /** Opts into `notifications/progress`. */
  readonly progressToken?: ProgressToken;
  /** Any other key, kept as sent. */
  readonly [key: string]: unknown;
}

const RESERVED_REQUEST_KEYS: ReadonlyArray<readonly [string, v.GenericSchema, boolean]> = [
  [MetaKey.protocolVersion, v.string(), true],
  [MetaKey.clientCapabilities, ClientCapabilitiesSchemas[MODERN_PROTOCOL_VERSION], true],
  [MetaKey.clientInfo, ImplementationSchema, false],
  [MetaKey.logLevel, LoggingLevelSchema, false],
  ["progressToken", RequestIdSchema, false],
];

/** The `_meta` of a modern request: protocol version and client capabilities required. */
const RequestMetaSchema: WireSchema<RequestMetaObject> = v.pipe(
  MetaSchema,
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const meta = dataset.value as Record<string, unknown>;
    for (const [key, schema, required] of RESERVED_REQUEST_KEYS) {
      const here: v.ObjectPathItem = { type: "object", origin: "value", input: meta, key, value: meta[key] };
      if (!(key in meta)) {
        if (!required) continue;
        addIssue({ expected: "a value (required)", received: "undefined", path: [here] });
        return NEVER;
      }
      const result = v.safeParse(schema, meta[key], { abortEarly: true });
      if (!result.success) {
        addIssue(nestedIssue(here, result.issues[0]));
        return NEVER;
      }
      meta[key] = result.output;
    }
    return meta as RequestMetaObject;
  }),
);

/**
 * Decodes the `_meta` of a modern request, as a modern server (or the sluice front) must.
 *
 * @param value The untrusted `params._meta`.
 * @returns The metadata, every key kept; a failure names the missing or malformed key.
 */
export function decodeRequestMeta(value: unknown): Decoded<RequestMetaObject> {
  return decode(RequestMetaSchema, value);
}

/**
 * Returns fresh params whose `_meta` carries the modern request metadata: the caller's other
 * `_meta` keys are kept, but the {@linkcode RequestMeta} keys come only from `meta`.
 *
 * @param params The request params, or `undefined` for none; never mutated.
 * @param meta The metadata to send.
 * @returns New params, copied one level, with a new `_meta`.
 * @example
 * ```ts
 * import { withRequestMeta } from "./meta.ts";
 * const params = withRequestMeta({ name: "echo" }, {
 *   protocolVersion: "2026-07-28",
 *   clientCapabilities: {},
 *   clientInfo: { name: "agent", version: "1.0.0" },
 * });
 * console.log(Object.keys(params._meta as object).length); // 3
 * ```
 */
export function withRequestMeta(params: JsonObject | undefined, meta: RequestMeta): JsonObject {
  const caller = params?._meta;
  const out = isObject(caller) ? copyOwn(caller) : {};
  // `delete` only when needed: it makes the object a slow dictionary for V8.
  if (Object.hasOwn(out, MetaKey.logLevel)) delete out[MetaKey.logLevel];
  out[MetaKey.protocolVersion] = meta.protocolVersion;
  out[MetaKey.clientCapabilities] = encodeClientCapabilities(meta.protocolVersion, meta.clientCapabilities);
  out[MetaKey.clientInfo] = { ...meta.clientInfo };
  if (meta.logLevel !== undefined) out[MetaKey.logLevel] = meta.logLevel;
  const copy = params === undefined ? {} : copyOwn(params);
  copy._meta = out;
  return copy;
}
