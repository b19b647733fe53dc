/**
 * `server/discover` (2026-07-28): the client asks which versions and capabilities a server has;
 * a dual-era client also uses it as the era probe.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type ServerCapabilities, ServerCapabilitiesSchema } from "./capabilities.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CacheScopeSchema, CompleteResultTypeSchema, TtlMsSchema } from "./result-type.ts";

/** What a modern server says of itself. */
export interface DiscoverResult {
  /** The protocol versions it speaks. */
  readonly supportedVersions: readonly string[];
  /** Its capabilities. */
  readonly capabilities: ServerCapabilities;
  /** Guidance for the model on using the server. */
  readonly instructions?: string;
  /** How long the answer may be cached, in ms (required of servers; accepted missing). */
  readonly ttlMs?: number;
  /** Who may share a cached copy (required of servers; accepted missing). */
  readonly cacheScope?: "public" | "private";
  /** `"complete"`. */
  readonly resultType?: "complete";
  /** Metadata, e.g. `io.modelcontextprotocol/serverInfo`. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** A `server/discover` result; unknown keys are kept. */
const DiscoverResultSchema: WireSchema<DiscoverResult> = wireLooseObject({
  supportedVersions: v.array(v.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: v.exactOptional(v.string()),
  // ttlMs and cacheScope are required of 2026 servers, but only hints to a client: accepted missing.
  ttlMs: TtlMsSchema,
  cacheScope: CacheScopeSchema,
  resultType: CompleteResultTypeSchema,
  _meta: v.exactOptional(MetaSchema),
});

/**
 * Decodes a `server/discover` result.
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeDiscoverResult(value: unknown): Decoded<DiscoverResult> {
  return decode(DiscoverResultSchema, value);
}
