/**
 * Client and server capabilities. `ClientCapabilities` is one superset type with a schema per
 * protocol version (each keeps only the keys its version defines); `ServerCapabilities` is one
 * loose schema for every version.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, wireObject, type WireSchema } from "./decode.ts";
import { type JsonObject, JsonObjectSchema } from "./jsonrpc.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";
import type { ProtocolVersion } from "./versions.ts";

/** What a client supports, across every version (see each field for the versions that have it). */
export interface ClientCapabilities {
  /** Experimental, non-standard capabilities, by name. */
  readonly experimental?: NullProtoRecord<JsonObject>;
  /** Present if the client answers `roots/list`. */
  readonly roots?: RootsCapability;
  /** Present if the client answers `sampling/createMessage`. */
  readonly sampling?: SamplingCapability;
  /** Present if the client answers `elicitation/create`; `{}` means form mode only. */
  readonly elicitation?: ElicitationCapability;
  /** 2025-11-25 only: the client hosts tasks for these requests. */
  readonly tasks?: ClientTasksCapability;
  /** 2026-07-28 only: extensions, by identifier (e.g. `io.modelcontextprotocol/tasks`). */
  readonly extensions?: NullProtoRecord<JsonObject>;
}

/** The `roots` capability. */
export interface RootsCapability {
  /** Legacy only: the client sends `notifications/roots/list_changed`. */
  readonly listChanged?: boolean;
}

/** The `sampling` capability. */
export interface SamplingCapability {
  /** 2025-11-25 and later: `includeContext` other than `"none"` is honoured. */
  readonly context?: JsonObject;
  /** 2025-11-25 and later: `tools` and `toolChoice` are supported. */
  readonly tools?: JsonObject;
}

/** The `elicitation` capability. */
export interface ElicitationCapability {
  /** 2025-11-25 and later: form mode is supported. */
  readonly form?: JsonObject;
  /** 2025-11-25 and later: URL mode is supported. */
  readonly url?: JsonObject;
}

/** The 2025-11-25 client `tasks` capability. */
export interface ClientTasksCapability {
  /** The client answers `tasks/list`. */
  readonly list?: JsonObject;
  /** The client answers `tasks/cancel`. */
  readonly cancel?: JsonObject;
  /** The requests the client accepts as tasks. */
  readonly requests?: {
    /** Sampling requests. */
    readonly sampling?: { readonly createMessage?: JsonObject };
    /** Elicitation requests. */
    readonly elicitation?: { readonly create?: JsonObject };
  };
}

/** What a server supports; unknown keys are kept. */
export interface ServerCapabilities {
  /** Experimental, non-standard capabilities, by name. */
  readonly experimental?: NullProtoRecord<JsonObject>;
  /** The server sends `notifications/message`. */
  readonly logging?: JsonObject;
  /** The server answers `completion/complete`. */
  readonly completions?: JsonObject;
  /** The server offers prompts. */
  readonly prompts?: { readonly listChanged?: boolean };
  /** The server offers resources. */
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
  /** The server offers tools. */
  readonly tools?: { readonly listChanged?: boolean };
  /** 2025-11-25 only: the server hosts tasks. */
  readonly tasks?: JsonObject;
  /** 2026-07-28: extensions, by identifier. */
  readonly extensions?: NullProtoRecord<JsonObject>;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

const opt = v.exactOptional;
const Settings = opt(JsonObjectSchema);
const NamedSettings = opt(objectMap(JsonObjectSchema));

/** Client capabilities per protocol version; keys the version does not define are dropped. */
export const ClientCapabilitiesSchemas: Readonly<Record<ProtocolVersion, WireSchema<ClientCapabilities>>> = {
  "2025-06-18": wireObject({
    experimental: NamedSettings,
    roots: opt(wireObject({ listChanged: opt(v.boolean()) })),
    sampling: opt(wireObject({})),
    elicitation: opt(wireObject({})),
  }),
  "2025-11-25": wireObject({
    experimental: NamedSettings,
    roots: opt(wireObject({ listChanged: opt(v.boolean()) })),
    sampling: opt(wireObject({ context: Settings, tools: Settings })),
    elicitation: opt(wireObject({ form: Settings, url: Settings })),
    tasks: opt(wireObject({
      list: Settings,
      cancel: Settings,
      requests: opt(wireObject({
        sampling: opt(wireObject({ createMessage: Settings })),
        elicitation: opt(wireObject({ create: Settings })),
      })),
    })),
  }),
  "2026-07-28": wireObject({
    experimental: NamedSettings,
    roots: opt(wireObject({})),
    sampling: opt(wireObject({ context: Settings, tools: Settings })),
    elicitation: opt(wireObject({ form: Settings, url: Settings })),
    extensions: NamedSettings,
  }),
};

/** Server capabilities, for every version; unknown keys are kept. */
export const ServerCapabilitiesSchema: WireSchema<ServerCapabilities> = wireLooseObject({
  experimental: NamedSettings,
  logging: Settings,
  completions: Settings,
  prompts: opt(wireLooseObject({ listChanged: opt(v.boolean()) })),
  resources: opt(wireLooseObject({ subscribe: opt(v.boolean()), listChanged: opt(v.boolean()) })),
  tools: opt(wireLooseObject({ listChanged: opt(v.boolean()) })),
  tasks: Settings,
  extensions: NamedSettings,
});

/**
 * Decodes client capabilities as a given protocol version defines them.
 *
 * @param version The protocol version.
 * @param value The untrusted value.
 * @returns The capabilities (unknown keys dropped), or a failure naming the path.
 */
export function decodeClientCapabilities(
  version: ProtocolVersion,
  value: unknown,
): Decoded<ClientCapabilities> {
  return decode(ClientCapabilitiesSchemas[version], value);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Projects the superset capabilities onto what one protocol version defines, as a fresh object;
 * in 2025-06-18 `elicitation: {}` means form mode, so elicitation is declared there only with it.
 *
 * @param version The protocol version the capabilities are sent in.
 * @param capabilities The capabilities the client has.
 * @returns New capabilities for that version; nested settings objects are shared.
 */
export function encodeClientCapabilities(
  version: ProtocolVersion,
  capabilities: ClientCapabilities,
): ClientCapabilities {
  const out: Mutable<ClientCapabilities> = {};
  const { experimental, roots, sampling, elicitation, tasks, extensions } = capabilities;
  if (experimental !== undefined) out.experimental = { ...experimental };
  if (roots !== undefined) {
    out.roots = version === "2026-07-28" || roots.listChanged === undefined
      ? {}
      : { listChanged: roots.listChanged };
  }
  if (version === "2025-06-18") {
    if (sampling !== undefined) out.sampling = {};
    if (elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)) {
      out.elicitation = {};
    }
    return out;
  }
  if (sampling !== undefined) out.sampling = pick(sampling, "context", "tools");
  if (elicitation !== undefined) out.elicitation = pick(elicitation, "form", "url");
  if (version === "2025-11-25" && tasks !== undefined) out.tasks = { ...tasks };
  if (version === "2026-07-28" && extensions !== undefined) out.extensions = { ...extensions };
  return out;
}

function pick<T extends object, K extends keyof T>(source: T, ...keys: K[]): Pick<T, K> {
  const out = {} as Mutable<Pick<T, K>>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
