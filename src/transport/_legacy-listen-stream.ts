/**
 * The legacy standalone GET stream: the channel a server uses for requests and notifications
 * unrelated to any request in flight. It is opened once the version is negotiated, reopened
 * after the server's `retry` when it ends (with `Last-Event-ID` when an event id was seen), and
 * given up when the server offers none (405), the connection ends, or it keeps failing to open.
 *
 * @module
 */
import { pause } from "../_internal/signals.ts";
import { ConnectionError } from "./legacy-connection.ts";
import type { LegacyHttpWire } from "./_legacy-http-wire.ts";
import { DEFAULT_RETRY_MS, moveCursor, type ResumeCursor } from "./_legacy-request-stream.ts";
import { readResponse } from "./read-response.ts";
import { discardBody } from "./body-reader.ts";

/**
 * How one opening of the stream went: it brought an event (`progress`), opened and ended or broke
 * with none (`ended`), did not open (`failed`), or must not be tried again (`stop`).
 */
type Round = "progress" | "ended" | "failed" | "stop";

/** Statuses worth retrying: the server may answer differently later. */
const TRANSIENT: readonly number[] = [408, 409, 425, 429];

/**
 * Keeps the standalone GET stream open until the connection ends; never rejects.
 *
 * Reopens after {@linkcode backoffMs}. A stream that opened and ended is reopened however often it
 * ends (2025-11-25 lets a server close it to be polled); `maxResumeAttempts` failed openings in a
 * row (a network error, a 5xx or {@linkcode TRANSIENT} status, a body failing before any byte) end
 * it, and so does at once any other error status or a protocol error.
 *
 * @param wire The connection.
 */
export async function listen(wire: LegacyHttpWire): Promise<void> {
  const { timers, maxRetryMs, maxResumeAttempts } = wire.settings;
  const signal = wire.lifetime;
  const cursor: ResumeCursor = { lastEventId: undefined, retryMs: undefined };
  let failures = 0;
  let quiet = 0;
  while (!signal.aborted) {
    // A quiet round that outlasts its would-be wait (a long stream cut by a proxy) restarts the
    // backoff: only streams that end quickly back off further.
    const outlast = { passed: false };
    const watch = quiet === 0 ? undefined : timers.setTimeout(() => {
      outlast.passed = true;
    }, backoffMs(quiet + 1, cursor.retryMs, maxRetryMs));
    let round: Round;
    try {
      round = await listenOnce(wire, cursor);
    } catch {
      // The session's onServerMessage threw: nothing here can report it; the stream stops.
      round = "stop";
    } finally {
      if (watch !== undefined) timers.clearTimeout(watch);
    }
    if (round === "stop") return;
    failures = round === "failed" ? failures + 1 : 0;
    quiet = round === "progress" ? 0 : outlast.passed ? 1 : quiet + 1;
    if (failures >= maxResumeAttempts && failures > 0) return;
    if (!await pause(backoffMs(quiet, cursor.retryMs, maxRetryMs), timers, signal)) return;
  }
}

/**
 * How long to wait before the next opening: the `retry` (default {@linkcode DEFAULT_RETRY_MS}) in
 * full after a round that brought an event, as 2025-11-25 requires; after `quiet` rounds without
 * one, the larger of both, doubled each round up to `maxRetryMs` but never below the `retry`.
 *
 * @param quiet How many rounds in a row brought no event.
 * @param retryMs The server's last `retry`, if any.
 * @param maxRetryMs The longest backoff.
 * @returns The wait in milliseconds.
 */
function backoffMs(quiet: number, retryMs: number | undefined, maxRetryMs: number): number {
  const base = retryMs ?? DEFAULT_RETRY_MS;
  const first = Math.max(base, DEFAULT_RETRY_MS);
  return quiet === 0 ? base : Math.max(base, Math.min(first * 2 ** (quiet - 1), maxRetryMs));
}

async function listenOnce(wire: LegacyHttpWire, cursor: ResumeCursor): Promise<Round> {
  const signal = wire.lifetime;
  let response: Response;
  try {
    const lastEventId = cursor.lastEventId;
    response = await wire.send("GET", lastEventId === undefined ? { signal } : { lastEventId, signal });
  } catch (error) {
    // A network failure may pass; an abort or an expired session ends the connection anyway.
    return error instanceof ConnectionError && error.kind === "http" ? "failed" : "stop";
  }
  const { status } = response;
  if (status < 200 || status > 299) {
    void discardBody(response);
    return status >= 500 || TRANSIENT.includes(status) ? "failed" : "stop";
  }
  let delivered = 0;
  const outcome = await readResponse(response, {
    requestId: undefined,
    signal,
    ...wire.settings.limits,
    onMessage: (message) => {
      delivered++;
      wire.deliver(message, undefined);
    },
  });
  if (outcome.kind !== "stream_broken") return "stop";
  if (moveCursor(cursor, outcome) || delivered > 0) return "progress";
  return outcome.nothingArrived === true ? "failed" : "ended";
}
