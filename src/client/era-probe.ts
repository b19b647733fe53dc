/**
 * Era detection for an HTTP server whose policy says `era: "auto"` (digest §2.7): a modern
 * `server/discover` through the server's modern session. A `DiscoverResult` naming 2026-07-28,
 * or a `-32020` or `-32021` error, means modern. A `-32022` is the session's to handle first:
 * when the versions it names include one sluice speaks in the modern era, the session asks once
 * more with that version and the era is read from that answer by these same rules (a second
 * `-32022` means legacy); when it names no version sluice speaks in the modern era, the era is
 * legacy if it names a 2025 one, and otherwise the call fails with the session's error naming the
 * versions (the spec: a modern error means a modern server, not to fall back). Another JSON-RPC
 * error, a malformed answer, a version list without 2026-07-28, or HTTP 400, 404 or 405 without a
 * JSON-RPC answer (what a 2025 server answers a request outside its session) means legacy. Fallback is never keyed to one error code. A server that cannot be
 * reached, or answers another HTTP status (5xx, 408, 429: an outage, not an era), is an error:
 * the call fails with it, and the next call probes again.
 *
 * @module
 */
import { ClientError } from "../errors.ts";
import { decodeDiscoverResult } from "../protocol/discover.ts";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { ServerSession } from "./server-session.ts";

/** The HTTP statuses without a JSON-RPC answer that mean a legacy server (digest §2.7). */
const LEGACY_STATUSES: ReadonlySet<unknown> = new Set([400, 404, 405]);

/**
 * Probes a server with `server/discover` through its modern session.
 *
 * @param modern The server's modern session.
 * @param signal Aborts the probe.
 * @returns `"modern"` or `"legacy"`.
 * @throws {ClientError} `"transport"` when the server cannot be reached or answers another HTTP
 *   status than 400, 404 or 405 without a JSON-RPC answer; `"cancelled"` or `"timeout"`.
 */
export async function probeEra(modern: ServerSession, signal: AbortSignal): Promise<"modern" | "legacy"> {
  let result;
  try {
    result = await modern.request("server/discover", {}, { signal });
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    if (error.kind === "server") return [-32020, -32021].includes(error.code ?? 0) ? "modern" : "legacy";
    if (error.kind === "protocol" && error.code === -32022) {
      const supported = (error.data as { supported?: unknown } | undefined)?.supported;
      if (Array.isArray(supported) && supported.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))) {
        return "legacy";
      }
      throw error;
    }
    if (error.kind === "protocol") return "legacy";
    const status = (error.data as { status?: unknown } | undefined)?.status;
    if (error.kind === "transport" && LEGACY_STATUSES.has(status)) return "legacy";
    throw error;
  }
  const discovered = decodeDiscoverResult(result);
  return discovered.ok && discovered.value.supportedVersions.includes(MODERN_PROTOCOL_VERSION)
    ? "modern"
    : "legacy";
}
