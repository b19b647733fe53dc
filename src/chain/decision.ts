/**
 * Decision events: what the policy did with each input request a server sent, and how each call went. One
 * plain object per input request and per call, for the operator's logs (the gateway writes them as JSON
 * lines), a console, or a person's prompt.
 *
 * @module
 */
import type { InputChange } from "../handler/handler.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import {
  withoutEmbeddedUrlSecrets,
  withoutQuotedUrlSecrets,
  withoutUrlSecrets,
} from "../_internal/url-query.ts";
import { shortened } from "../_internal/quote.ts";
import { safeJson } from "../_internal/safe-json.ts";
import { errorText } from "../_internal/error-text.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";

/** A value the checks changed in the request before the handler (or the caller) saw it. */
export type DecisionChange = InputChange;

/**
 * How an input request ended: answered, or where the chain stopped.
 * - `"policy"`: refused by the budget or a check of its kind, or a legacy server's request refused before the
 *   chain ran (over `maxServerRequests`, `-32000`; params not valid, `-32602`).
 * - `"timeout"`: the handler's deadline, or the call's `maxTotalTimeout` (a parked call's `stateTtl`) reached
 *   while it was being answered; a legacy server is answered the chain's `CALL_ENDED`.
 * - `"cancelled"`: the server's cancellation (nothing is answered), or the call's end otherwise (a legacy
 *   server is answered `CALL_ENDED`).
 * - `"deferred"`: the gateway passed the request to its caller; a second event tells how the caller's answer
 *   ended once checked (`"answered"`, `"policy"`, or for a 2025 host `"timeout"`, `"cancelled"`,
 *   `"handler"`), or `"capability"` when the caller did not declare what it needs (a legacy server is answered as by
 *   a client without it).
 */
export type InputOutcome =
  | "answered"
  | "capability"
  | "policy"
  | "handler"
  | "timeout"
  | "cancelled"
  | "deferred";

/** What happened to one input request (`sampling/createMessage`, `elicitation/create`, `roots/list`). */
export interface InputDecision {
  /** Always `"input"`. */
  readonly type: "input";
  /** When it was decided (ISO 8601). */
  readonly time: string;
  /** The client's name. */
  readonly client: string;
  /** The server that asked. */
  readonly server: string;
  /** The gateway's caller (its subject), when there is one. */
  readonly caller?: string;
  /** The protocol era of the request. */
  readonly era: "modern" | "legacy";
  /** The request's method. */
  readonly method: InputRequest["method"];
  /** An elicitation's mode. */
  readonly mode?: "form" | "url";
  /** `"answered"`, or the stage where the chain stopped. */
  readonly outcome: InputOutcome;
  /**
   * What the checks changed (clamped, coerced, normalised), and the roots the roots check dropped
   * (`to: null`) or rewrote (`{ field: "roots[1].uri", from: "file:///srv/../etc", to: "file:///etc" }`).
   */
  readonly changes: readonly DecisionChange[];
  /**
   * How many changes past the first 100 the event leaves out, so that an event stays one log line (a URL in a
   * change is likewise cut at 1024 characters, marked `…`).
   */
  readonly changesLeftOut?: number;
  /** Why it was not answered: the code and message the server was (or the call is) told. */
  readonly refusal?: { readonly code: number; readonly message: string };
  /**
   * What the handler threw, when it threw (at most 500 characters, a URL's password and query
   * values left out): the server is told only that answering failed.
   */
  readonly cause?: string;
  /** How long the handler took, when it ran (ms). */
  readonly handlerMs?: number;
  /** How long the whole chain took (ms). */
  readonly durationMs: number;
}

/**
 * How one call to a server ended: a tool call, a resource read, a prompt, or the client's wait
 * for a task (`awaitTask`, method `"tasks/get"`, named by the task's id); lists make no event.
 */
export interface CallDecision {
  /** Always `"call"`. */
  readonly type: "call";
  /** When it ended (ISO 8601). */
  readonly time: string;
  /** The client's name. */
  readonly client: string;
  /** The server called. */
  readonly server: string;
  /** The gateway's caller (its subject), when there is one. */
  readonly caller?: string;
  /** The JSON-RPC method. */
  readonly method: string;
  /** The tool, prompt or resource named, when there is one. */
  readonly name?: string;
  /**
   * `"completed"`, `"tool_error"` (a result with `isError`), `"input_required"` (passed down to
   * the caller), `"task"` (the call became a task its caller holds: `detachTask`, or a gateway
   * caller's own; the wait for it is an event of its own) or `"failed"`.
   */
  readonly outcome: "completed" | "tool_error" | "input_required" | "task" | "failed";
  /** The id of the task the call became (outcome `"task"`), as its caller holds it: its waits are named by it. */
  readonly task?: string;
  /** Why it failed: the client error's kind, code and message (the upstream's real cause). */
  readonly error?: { readonly kind: string; readonly code?: number; readonly message: string };
  /** How many requests a modern call took (1 when the server asked nothing; absent when unknown). */
  readonly rounds?: number;
  /** How long it took (ms). */
  readonly durationMs: number;
}

/** A decision event. */
export type Decision = InputDecision | CallDecision;

/** Hears decision events; what it returns or throws is ignored. */
export type DecisionListener = (decision: Decision) => unknown;

/**
 * Where the client's decision events go. A call or an input request builds its event only if
 * someone is `listening`: without a listener, it costs no event at all.
 */
export interface DecisionSink {
  /** Whether any listener would hear an event now. */
  readonly listening: boolean;
  /** Tells every listener; what a listener throws or rejects with is its own. */
  decide(decision: Decision): void;
}

/**
 * What the checks changed in an input request: a clamped `maxTokens`, a coerced
 * `includeContext`, a normalised URL.
 *
 * @param asked The request as the server sent it.
 * @param checked The request as the checks left it.
 * @returns The changes, in that order.
 */
export function changesOf(asked: InputRequest, checked: InputRequest | undefined): DecisionChange[] {
  if (checked === undefined || checked === asked) return [];
  const before = asked.params as Record<string, unknown>;
  const after = checked.params as Record<string, unknown>;
  const changes: DecisionChange[] = [];
  for (const field of ["maxTokens", "includeContext", "url"]) {
    if (field in before && before[field] !== after[field]) {
      changes.push({ field, from: before[field], to: after[field] });
    }
  }
  return changes;
}

/** The most changes one decision event lists (see `InputDecision.changesLeftOut`). */
const MAX_EVENT_CHANGES = 100;

/** The most UTF-16 code units of a URL an event's change keeps: a caller's root may be 4 MiB long. */
const CHANGE_URL_MAX = 1024;

/** A change's URL as an event keeps it: without its secrets, and cut to {@linkcode CHANGE_URL_MAX}. */
const shownUrl = (value: unknown): unknown =>
  typeof value === "string" ? shortened(withoutUrlSecrets(value), CHANGE_URL_MAX) : value;

/**
 * The event of one input request.
 *
 * @param facts Who, what, the chain's result, what the checks changed and the timings.
 * @returns The event.
 */
export function inputDecision(facts: {
  readonly client: string;
  readonly server: string;
  readonly caller: string | undefined;
  readonly era: "modern" | "legacy";
  readonly request: Pick<InputRequest, "method"> & { readonly params?: unknown };
  readonly changes: readonly DecisionChange[];
  readonly result:
    | { readonly ok: true }
    | {
      readonly ok: false;
      readonly stage: Exclude<InputOutcome, "answered">;
      readonly refusal: { readonly code: number; readonly message: string };
      readonly cause?: unknown;
    };
  readonly handlerMs: number | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
}): InputDecision {
  const { request, result } = facts;
  const mode = request.method === "elicitation/create" ? modeOf(request.params) : undefined;
  return {
    type: "input",
    time: new Date(facts.endedAt).toISOString(),
    client: facts.client,
    server: facts.server,
    ...(facts.caller === undefined ? {} : { caller: facts.caller }),
    era: facts.era,
    method: request.method,
    ...(mode === undefined ? {} : { mode }),
    outcome: result.ok ? "answered" : result.stage,
    // A URL's query may carry a token and events go to logs: its values are left out of changes and
    // refusals here (the handler and the caller still see the URL whole).
    changes: facts.changes.slice(0, MAX_EVENT_CHANGES).map((change) =>
      change.field === "url" || change.field.endsWith(".uri")
        ? { field: change.field, from: shownUrl(change.from), to: shownUrl(change.to) }
        : change
    ),
    ...(facts.changes.length > MAX_EVENT_CHANGES
      ? { changesLeftOut: facts.changes.length - MAX_EVENT_CHANGES }
      : {}),
    // A deferral refuses nothing: the server waits for the caller's answer.
    ...(result.ok || result.stage === "deferred" ? {} : {
      refusal: { code: result.refusal.code, message: withoutQuotedUrlSecrets(result.refusal.message) },
    }),
    ...(result.ok || result.stage !== "handler" || result.cause === undefined
      ? {}
      : { cause: withoutEmbeddedUrlSecrets(errorText(result.cause)).slice(0, 500) }),
    ...(facts.handlerMs === undefined ? {} : { handlerMs: facts.handlerMs }),
    durationMs: facts.endedAt - facts.startedAt,
  };
}

/**
 * An elicitation's mode, from its params as decoded or, for a request refused before it decoded,
 * as sent: a mode that is neither (or params that are no object) gives none.
 *
 * @param params The request's params.
 * @returns `"url"`, `"form"` (also when the mode is left out and there is no URL), or `undefined`.
 */
function modeOf(params: unknown): "form" | "url" | undefined {
  const { mode, url } = (typeof params === "object" && params !== null ? params : {}) as {
    readonly mode?: unknown;
    readonly url?: unknown;
  };
  if (mode === "url" || (mode === undefined && typeof url === "string")) return "url";
  return mode === undefined || mode === "form" ? "form" : undefined;
}

/** The most UTF-16 code units of one field that a decision's text line shows. */
const SHOWN_FIELD_MAX = 1024;

/**
 * One line for a person: `sluice input demo sampling/createMessage answered (maxTokens 100000 → 1024) 12 ms`.
 * Each field is cleaned by `sanitizeText` (controls, escapes, line breaks, bidi and invisible characters
 * removed; at most 1024 code units), since a caller or a server chose it and the line goes to a terminal or a
 * log.
 *
 * @param decision The event.
 * @returns The line.
 */
export function describeDecision(decision: Decision): string {
  const who = decision.caller === undefined ? "" : ` caller ${shown(decision.caller)}`;
  const where = `${shown(decision.server)}${who} ${shown(decision.method)}`;
  if (decision.type === "input") {
    const changes = decision.changes.map((c) => `${shown(c.field)} ${shown(c.from)} → ${shown(c.to)}`);
    if (decision.changesLeftOut !== undefined) changes.push(`and ${decision.changesLeftOut} more`);
    const refusal = decision.refusal === undefined
      ? ""
      : `: ${decision.refusal.code} ${shown(decision.refusal.message)}${
        decision.cause === undefined ? "" : ` (${shown(decision.cause)})`
      }`;
    return `input ${where}${decision.mode === undefined ? "" : ` (${shown(decision.mode)})`} ${
      shown(decision.outcome)
    }${refusal}${changes.length === 0 ? "" : ` [${changes.join(", ")}]`} ${decision.durationMs} ms`;
  }
  const error = decision.error === undefined
    ? ""
    : `: ${shown(decision.error.kind)}${decision.error.code === undefined ? "" : ` ${decision.error.code}`} ${
      shown(decision.error.message)
    }`;
  const rounds = decision.rounds !== undefined && decision.rounds > 1 ? ` in ${decision.rounds} rounds` : "";
  return `call ${where}${decision.name === undefined ? "" : ` ${shown(decision.name)}`} ${
    shown(decision.outcome)
  }${rounds}${error} ${decision.durationMs} ms`;
}

/**
 * One JSON line for a log: the event whole, with every character a terminal acts on or does not show (C1
 * controls, bidi and other format characters, line separators) escaped as `\uXXXX`, as `JSON.stringify`
 * already does the C0 controls.
 *
 * @param decision The event.
 * @returns The JSON text, on one line.
 */
export function decisionJson(decision: Decision): string {
  return safeJson(decision);
}

/**
 * A field of a decision as text for its line: a string as it is, another value as JSON, then
 * cleaned by `sanitizeText`.
 *
 * @param value The field's value.
 * @returns The text to show.
 */
function shown(value: unknown): string {
  return sanitizeText(
    typeof value === "string" ? value : JSON.stringify(value) ?? "undefined",
    SHOWN_FIELD_MAX,
  );
}
