/**
 * The `data` of the MCP errors a client acts on: `-32022` unsupported protocol version
 * (2026-07-28) and `-32042` URL elicitation required (2025-11-25); other errors' data reaches
 * `ClientError.data` as sent.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type LegacyUrlElicitParams, LegacyUrlElicitParamsSchema } from "./elicitation.ts";

/** `data` of `-32022` (also of a legacy `-32602` version error). */
export interface UnsupportedVersionData {
  /** The versions the server supports. */
  readonly supported: readonly string[];
  /** The version the client asked for. */
  readonly requested: string;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** `data` of `-32042` (2025-11-25). */
export interface UrlElicitationRequiredData {
  /** The URL elicitations to complete before retrying, each with its `elicitationId`. */
  readonly elicitations: readonly LegacyUrlElicitParams[];
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** `data` of `-32022`; unknown keys kept. */
const UnsupportedVersionDataSchema: WireSchema<UnsupportedVersionData> = wireLooseObject({
  supported: v.array(v.string()),
  requested: v.string(),
});

/** `data` of `-32042`; unknown keys kept. */
const UrlElicitationRequiredDataSchema: WireSchema<UrlElicitationRequiredData> = wireLooseObject({
  elicitations: v.array(LegacyUrlElicitParamsSchema),
});

/**
 * Decodes the `data` of `-32022` (unsupported protocol version).
 *
 * @param data The untrusted `error.data`.
 * @returns The data, or a failure naming the path.
 */
export function decodeUnsupportedVersionData(data: unknown): Decoded<UnsupportedVersionData> {
  return decode(UnsupportedVersionDataSchema, data);
}

/**
 * Decodes the `data` of `-32042` (URL elicitation required, 2025-11-25).
 *
 * @param data The untrusted `error.data`.
 * @returns The data, or a failure such as `$.elicitations[0].elicitationId`.
 */
export function decodeUrlElicitationRequiredData(data: unknown): Decoded<UrlElicitationRequiredData> {
  return decode(UrlElicitationRequiredDataSchema, data);
}
