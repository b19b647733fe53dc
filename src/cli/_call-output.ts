/**
 * What `sluice call` prints once the server has answered, and the exit code it ends with.
 *
 * @module
 */
import { ClientError } from "../errors.ts";
import { signInRequiredBy } from "../upstream-auth-error.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { safeJson } from "../_internal/safe-json.ts";
import { safeLines, type Screen } from "./_terminal.ts";

/** The exit codes of `sluice call` (and `sluice tools`, `sluice login`). */
export const CALL_EXIT = {
  /** The tool answered and did not report an error. */
  ok: 0,
  /** The tool reported an error (`isError: true`). */
  toolError: 1,
  /** A usage or configuration error, an unknown server or tool. */
  usage: 2,
  /** The policy refused an input request, or the server needed a kind the policy turned off. */
  refused: 3,
  /** The call failed: transport, connection, protocol, server error, timeout. */
  failed: 4,
  /** The person at the terminal declined or cancelled an input request (or refused sampling). */
  declined: 5,
  /** A prompt waited for an answer and stdin was closed. */
  stdinClosed: 6,
  /** Interrupted by SIGINT or SIGTERM. */
  interrupted: 130,
} as const;

/**
 * The exit code of a failed call.
 *
 * - `3`: kind `"policy"`, and a kind the policy turned off (this handler implements every kind):
 *   the server refusing the call with `-32021`, or asking for it anyway (`"protocol"`, `-32601`).
 * - `5`: kind `"input_handler"`: this handler fails a request only when the operator `:refuse`s.
 * - `130`: the command was interrupted (its signal fired).
 * - `4`: everything else: `"transport"`, `"protocol"`, `"server"`, `"timeout"`, `"cancelled"`,
 *   `"rounds_exceeded"`, `"config"`, or an error that is not a `ClientError`.
 *
 * @param error What the call rejected with.
 * @param interrupted Whether the command's own signal fired.
 * @returns The exit code.
 */
export function exitCodeOf(error: unknown, interrupted: boolean): number {
  if (interrupted) return CALL_EXIT.interrupted;
  if (!(error instanceof ClientError)) return CALL_EXIT.failed;
  if (error.kind === "policy") return CALL_EXIT.refused;
  if (error.kind === "input_handler") return CALL_EXIT.declined;
  if (error.kind === "server" && error.code === -32021) return CALL_EXIT.refused;
  if (error.kind === "protocol" && error.code === -32601) return CALL_EXIT.refused;
  return CALL_EXIT.failed;
}

/**
 * Describes a failed call in one line.
 *
 * @param error What the call rejected with.
 * @returns The message, with the kind and code of a `ClientError`.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof ClientError)) {
    return sanitizeText(error instanceof Error ? error.message : error, 2000);
  }
  const code = error.code === undefined ? "" : `, code ${error.code}`;
  return `${sanitizeText(error.message, 2000)} (${error.kind}${code})`;
}

/**
 * Describes a failed call or listing in one line; a server that needs a sign-in first is told
 * which command signs in.
 *
 * @param error What the call rejected with.
 * @param policies The command's `--policies` folder, when given: the command to run names it too.
 * @returns The message.
 */
export function describeCallFailure(error: unknown, policies?: string): string {
  const needed = signInRequiredBy(error);
  if (needed === undefined) return describeFailure(error);
  const folder = policies === undefined ? "" : ` --policies ${shellWord(policies)}`;
  const login = `\`sluice login ${needed.server}${folder}\``;
  // A step-up: `sluice login` asks for the policy's scopes, which the server found too few.
  if (needed.scopes !== undefined) {
    return `server "${needed.server}" needs a sign-in for the scopes ${
      JSON.stringify(needed.scopes.join(" "))
    }: list them in its policy's transport.auth.oauth.scopes, then run ${login}`;
  }
  return `server "${needed.server}" needs a sign-in: run ${login}`;
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Prints a tool's result: each text part as text (cleaned on a terminal, exact otherwise, as `cat`
 * prints), other parts as one line of JSON, then `structuredContent` unless a text part holds the
 * same JSON. JSON is always {@linkcode safeJson}'s, controls and invisible characters escaped.
 *
 * @param screen The screen.
 * @param result The result (a `CallToolResult`; anything else is printed as JSON).
 */
export function printResult(screen: Screen, result: unknown): void {
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) {
    screen.line(safeJson(result, 2));
    return;
  }
  for (const part of content as Record<string, unknown>[]) {
    if (part?.["type"] !== "text" || typeof part["text"] !== "string") {
      screen.line(safeJson(part));
    } else if (screen.io.isTTY) {
      for (const line of safeLines(part["text"], Infinity)) screen.line(line);
    } else {
      screen.line(part["text"].endsWith("\n") ? part["text"].slice(0, -1) : part["text"]);
    }
  }
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  if (structured === undefined) return;
  const json = JSON.stringify(structured);
  if (
    content.some((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" && sameJson(part.text, json)
    )
  ) {
    return;
  }
  screen.line("structuredContent:");
  screen.line(safeJson(structured, 2));
}

/** Whether a text part already holds the structured content (servers send both, as the spec advises). */
function sameJson(text: unknown, json: string): boolean {
  if (typeof text !== "string") return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/**
 * Renders a `notifications/progress`: a bar when the total is known.
 *
 * @param params The notification's params (`progress`, `total`, `message`).
 * @returns One line.
 */
export function progressLine(params: JsonObject): string {
  const { progress, total, message } = params as { progress?: unknown; total?: unknown; message?: unknown };
  const note = typeof message === "string" && message !== "" ? ` ${sanitizeText(message, 200)}` : "";
  const done = typeof progress === "number" && Number.isFinite(progress) ? progress : 0;
  if (typeof total !== "number" || !(total > 0)) return `progress ${done}${note}`;
  const share = Math.min(1, Math.max(0, done / total));
  const filled = Math.round(share * 20);
  return `[${"#".repeat(filled)}${"-".repeat(20 - filled)}] ${done}/${total} ${
    Math.round(share * 100)
  }%${note}`;
}
