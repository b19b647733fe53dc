/**
 * The legacy lifecycle: `initialize`, its result, and `notifications/initialized`.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import {
  type ClientCapabilities,
  encodeClientCapabilities,
  type ServerCapabilities,
  ServerCapabilitiesSchema,
} from "./capabilities.ts";
import { type Implementation, ImplementationSchema, type Meta, MetaSchema } from "./meta.ts";
import type { LegacyProtocolVersion } from "./versions.ts";

/** Params of `initialize`. */
export interface InitializeRequestParams {
  /** The version the client prefers. */
  readonly protocolVersion: string;
  /** The client's capabilities for the whole session. */
  readonly capabilities: ClientCapabilities;
  /** The client's implementation info. */
  readonly clientInfo: Implementation;
}

/** The server's answer to `initialize`. */
export interface InitializeResult {
  /** The version the server chose; the client disconnects if it does not support it. */
  readonly protocolVersion: string;
  /** The server's capabilities. */
  readonly capabilities: ServerCapabilities;
  /** The server's implementation info (self-reported). */
  readonly serverInfo: Implementation;
  /** Guidance for the model on using the server. */
  readonly instructions?: string;
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** The method of the notification that ends the handshake. */
export const INITIALIZED_NOTIFICATION = "notifications/initialized";

/** An `initialize` result; unknown keys are kept. */
const InitializeResultSchema: WireSchema<InitializeResult> = wireLooseObject({
  protocolVersion: v.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: v.exactOptional(v.string()),
  _meta: v.exactOptional(MetaSchema),
});

/**
 * Decodes an `initialize` result; the caller checks whether its `protocolVersion` is supported.
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeInitializeResult(value: unknown): Decoded<InitializeResult> {
  return decode(InitializeResultSchema, value);
}

/**
 * Builds fresh `initialize` params: capabilities projected onto the version, and client info
 * reduced to the fields the version has (2025-06-18: `name`, `version`, `title`).
 *
 * @param version The version offered.
 * @param capabilities The client's capabilities; never mutated.
 * @param clientInfo The client's implementation info; never mutated.
 * @returns New params.
 */
export function encodeInitializeParams(
  version: LegacyProtocolVersion,
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
): InitializeRequestParams {
  const info: { -readonly [K in keyof Implementation]: Implementation[K] } = {
    name: clientInfo.name,
    version: clientInfo.version,
  };
  if (clientInfo.title !== undefined) info.title = clientInfo.title;
  if (version === "2025-11-25") {
    if (clientInfo.description !== undefined) info.description = clientInfo.description;
    if (clientInfo.websiteUrl !== undefined) info.websiteUrl = clientInfo.websiteUrl;
    if (clientInfo.icons !== undefined) info.icons = clientInfo.icons.map((icon) => ({ ...icon }));
  }
  return {
    protocolVersion: version,
    capabilities: encodeClientCapabilities(version, capabilities),
    clientInfo: info,
  };
}
