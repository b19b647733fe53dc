/**
 * Era detection for an HTTP server whose policy says `era: "auto"` (digest §2.7): a `server/discover` through
 * the server's modern session.
 * - Modern: a `DiscoverResult` naming 2026-07-28, or a `-32020` or `-32021` error.
 * - `-32022`: the session handles it first; when it names a version sluice speaks in the modern era, the
 *   session asks once more with it and the era is read from that answer (a second `-32022` means legacy);
 *   otherwise the era is legacy if it names a 2025 version, else the call fails naming the versions (the
 *   spec: a modern error means a modern server, not to fall back).
 * - Legacy: another JSON-RPC error, a malformed answer, a version list without 2026-07-28, or HTTP 400, 404
 *   or 405 without a JSON-RPC answer (a 2025 server's answer outside its session). Fallback is never keyed to
 *   one error code.
 * - An error: no connection, or another HTTP status (5xx, 408, 429: an outage, not an era); the next call
 *   probes again.
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
