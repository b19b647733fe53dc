/**
 * Supervision of a legacy server's requests (`sampling/createMessage`, `elicitation/create`, `roots/list`):
 * each runs through the chain as its own job, so the connection's read loop never waits for a handler. At
 * most `maxServerRequests` run at once; `notifications/cancelled` aborts a job and nothing is sent; a request
 * tied to a call pauses that call's deadline while it runs and gets its assigns and principal; one tied to no
 * call runs as the session's own principal, whose input budget it spends. A request refused before its job
 * starts (busy, or params answered `-32602`) still gives its decision event, outcome `"policy"`.
 *
 * The transport ties a request to a call (on HTTP, the call's stream carried it); on stdio, where a request
 * names no call, the tie is a guess: the one call in flight, if exactly one. The answerer is told which
 * (`DeferredTie`): a guessed `roots/list` may be the server asking on its own (server-everything does after
 * the handshake), and the front refuses it upstream rather than fail its caller's call. With several calls in
 * flight on stdio the request is tied to none, yet each pauses its deadline while it runs, and it is
 * cancelled once all have ended.
 *
 * @module
 */
import type { Principal } from "../../handler/handler.ts";
import {
  CALL_ENDED,
  type Chain,
  type ChainResult,
  HANDLER_THREW,
  type RefusedRequest,
} from "../../chain/chain.ts";
import type { Refusal } from "../../checks/verdict.ts";
import type { InputRequest } from "../../protocol/input-request.ts";
import { decodeInputRequest } from "../../protocol/input-request.ts";
import {
  encodeError,
  encodeResult,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResultResponse,
  type RequestId,
} from "../../protocol/jsonrpc.ts";
import { MetaKey } from "../../protocol/meta.ts";
import type { LegacyProtocolVersion } from "../../protocol/versions.ts";
import { quote } from "../../_internal/quote.ts";
import { sanitizeText } from "../../notify/sanitize-text.ts";
import { DATA_LIMITS } from "../../notify/data-limits.ts";
import type { PausableDeadline } from "./pausable-deadline.ts";
import { whenAborted } from "../../_internal/signals.ts";
import { answerDeferral, type DeferredAnswerer, type DeferredTie } from "../server-session.ts";

/** A call of the client's in flight to this server. */
export interface CallRecord {
  /** Its JSON-RPC id. */
  readonly id: RequestId;
  /** Its assigns, handed to the handlers of requests tied to it. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The front's caller, handed to the handlers of requests tied to it. @default none */
  readonly principal?: Principal | undefined;
  /** Its deadline, paused while requests tied to it run (none for `tasks/result`). */
  readonly deadline?: PausableDeadline;
  /** Answers the requests the handler defers (the front parks them for its caller). */
  readonly onDeferred?: DeferredAnswerer | undefined;
  /** Takes the server's notifications tied to this call (the front relays them to its caller). */
  readonly onNotification?: ((notification: JsonRpcNotification) => void) | undefined;
  /**
   * The call's signal: when it fires the requests tied to the call are cancelled too, so no handler or
   * passed-down request outlives it.
   */
  readonly signal?: AbortSignal;
}

/** What the supervisor needs from its session. */
export interface SupervisorOptions {
  readonly chain: Chain;
  readonly version: LegacyProtocolVersion;
  readonly maxServerRequests: number;
  /** The client's assigns, for requests tied to no call. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /**
   * The front's caller the session belongs to, for requests tied to no call.
   * @default none (the client's own session)
   */
  readonly principal?: Principal | undefined;
  /**
   * Whether a request that names no call is tied to the one call in flight, if exactly one: on
   * stdio (one channel), and in a session the front pools for 2026 calls (no other channel).
   */
  readonly tieToOnlyCall: boolean;
  /** The calls in flight, by id key (see {@linkcode idKey}). */
  readonly calls: ReadonlyMap<string, CallRecord>;
  /** Sends the client's answer; a failure to send is dropped (the connection is gone). */
  readonly respond: (message: JsonRpcResultResponse | JsonRpcErrorResponse) => Promise<void>;
  /** Answers deferred requests tied to no call (the front asks its caller's session); else they fail. */
  readonly onDeferred?: DeferredAnswerer | undefined;
}

/**
 * The call a server message is tied to: on HTTP the call whose stream carried it; else, when
 * `toOnlyCall`, the one call in flight, if there is exactly one.
 *
 * @param calls The calls in flight, by id key.
 * @param related The id of the request whose stream carried the message, if any.
 * @param toOnlyCall Whether a message that names no call ties to the one call in flight (stdio).
 * @returns The call, or `undefined`.
 */
export function callFor(
  calls: ReadonlyMap<string, CallRecord>,
  related: RequestId | undefined,
  toOnlyCall: boolean,
): CallRecord | undefined {
  if (related !== undefined) return calls.get(idKey(related));
  if (toOnlyCall && calls.size === 1) return calls.values().next().value;
  return undefined;
}

/**
 * Calls `onAllEnded` once each of `candidates` has ended (its signal fired, or it was answered), checked when
 * a signal fires and on `recheck`. Never for no candidates.
 *
 * @param candidates The calls.
 * @param calls The calls in flight, by id key.
 * @param onAllEnded What to do then, with the reason of a cancelled one.
 * @returns `recheck`, and `stop`, which stops waiting.
 */
function whenAllEnded(
  candidates: readonly CallRecord[],
  calls: ReadonlyMap<string, CallRecord>,
  onAllEnded: (reason: unknown) => void,
): { readonly recheck: () => void; readonly stop: () => void } {
  const ended = (call: CallRecord) => call.signal?.aborted === true || calls.get(idKey(call.id)) !== call;
  const recheck = () => {
    if (candidates.length === 0 || !candidates.every(ended)) return;
    const cancelled = candidates.find((call) => call.signal?.aborted === true)?.signal;
    onAllEnded(cancelled?.reason ?? "the call was cancelled");
  };
  const stops = candidates.flatMap(({ signal }) =>
    signal === undefined ? [] : [whenAborted(signal, recheck)]
  );
  recheck();
  return { recheck, stop: () => stops.forEach((stop) => stop()) };
}

/** A map key that tells the id `1` from the id `"1"`. */
export function idKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** Runs a legacy server's requests as supervised jobs. */
export class ServerRequestSupervisor {
  readonly #options: SupervisorOptions;
  readonly #jobs = new Map<string, AbortController>();
  /** Jobs nothing is sent for once aborted: the server cancelled them, or the connection ended. */
  readonly #unanswered = new WeakSet<AbortController>();
  /** Each running job's check of whether every call it may belong to has ended. */
  readonly #waiting = new Set<() => void>();

  /** @param options The chain, version, limits, calls and the answer channel. */
  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** How many jobs are running. */
  get active(): number {
    return this.#jobs.size;
  }

  /**
   * Starts a job for one server request without waiting for it. If its call ends first, the job is aborted
   * and the server, which still waits, is answered `-32603` {@linkcode CALL_ENDED}; the decision event says
   * `"timeout"` when the call's `maxTotalTimeout` ended it, else `"cancelled"`.
   *
   * @param request The server's request.
   * @param related The call its transport tied it to, if any.
   */
  handle(request: JsonRpcRequest, related: RequestId | undefined): void {
    const { chain, version } = this.#options;
    const { calls, tieToOnlyCall } = this.#options;
    const call = callFor(calls, related, tieToOnlyCall);
    const input = this.#admitted(request, call);
    if (input === undefined) return;
    const key = idKey(request.id);
    const controller = new AbortController();
    this.#jobs.set(key, controller);
    // Several calls in flight on stdio: each counts as the request's call for what must not fail it.
    const candidates = call !== undefined
      ? [call]
      : related === undefined && tieToOnlyCall
      ? [...calls.values()]
      : [];
    const waiting = whenAllEnded(candidates, calls, (reason) => controller.abort(reason));
    // A call answered ends a guess only: a request tied to its call may outlive its answer.
    if (candidates.length > 1) this.#waiting.add(waiting.recheck);
    for (const candidate of candidates) candidate.deadline?.pause();
    // A deferred request waits for its answer from elsewhere, the call's deadline still paused; the request
    // as the checks left it is what gets answered.
    const answerer = call === undefined ? this.#options.onDeferred : call.onDeferred;
    const tie: DeferredTie = {
      guessed: call !== undefined && related === undefined,
      asked: input,
    };
    const onDeferred = answerer &&
      ((deferred: InputRequest, signal: AbortSignal) => answerer(deferred, signal, tie));
    const job = chain.run(input, {
      version,
      assigns: call?.assigns ?? this.#options.assigns,
      relatedRequestId: call?.id ?? null,
      principal: this.#principalOf(call),
      callInFlight: this.#options.calls.size > 0,
      signal: controller.signal,
    }).then((result) => answerDeferral(result, onDeferred, controller.signal))
      .then((result) => this.#untaken(result, input, call));
    void job.then((result) => {
      waiting.stop();
      this.#waiting.delete(waiting.recheck);
      this.#jobs.delete(key);
      for (const candidate of candidates) candidate.deadline?.resume();
      // One whose call ended is still answered, with CALL_ENDED.
      if (this.#unanswered.has(controller)) return;
      const answer = !result.ok && result.stage === "cancelled"
        ? encodeError(request.id, { code: -32603, message: CALL_ENDED })
        : this.#answer(request, input, result);
      if (answer !== undefined) this.#send(answer);
    });
  }

  /**
   * Answers a deferred request no one here can take as a client without the capability would, the deferral's
   * second event saying so.
   */
  #untaken(result: ChainResult, input: InputRequest, call: CallRecord | undefined): ChainResult {
    if (result.ok || result.stage !== "deferred") return result;
    const refusal = {
      code: -32601,
      message:
        `Method not found: the handler deferred ${input.method} to a caller, and no caller with a call in flight here can take it`,
    };
    const { chain, version } = this.#options;
    chain.refused(result.request ?? input, refusal, { version, principal: this.#principalOf(call) });
    return { ok: false, stage: "capability", refusal };
  }

  /**
   * Aborts the job of a request the server cancelled; nothing will be sent for it.
   *
   * @param requestId The id from `notifications/cancelled`; unknown ids are ignored.
   * @param reason The server's reason.
   */
  cancel(requestId: unknown, reason?: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const job = this.#jobs.get(idKey(requestId));
    if (job === undefined) return;
    this.#unanswered.add(job);
    // The handler reads the reason from its signal and may show it: server text, cleaned as any.
    job.abort(
      typeof reason === "string"
        ? sanitizeText(reason, DATA_LIMITS.maxStringLength)
        : "cancelled by the server",
    );
  }

  /** Tells the jobs a call has ended: one whose calls have all ended is cancelled. */
  callEnded(): void {
    for (const recheck of [...this.#waiting]) recheck();
  }

  /**
   * Aborts every job (the connection ended).
   *
   * @param reason Why.
   */
  abortAll(reason: unknown): void {
    for (const controller of this.#jobs.values()) {
      this.#unanswered.add(controller);
      controller.abort(reason);
    }
  }

  #answer(
    request: JsonRpcRequest,
    input: InputRequest,
    result: ChainResult,
  ): JsonRpcResultResponse | JsonRpcErrorResponse | undefined {
    if (result.ok) {
      return encodeResult(request.id, withRelatedTask(result.answer as unknown as JsonObject, input));
    }
    switch (result.stage) {
      case "cancelled":
        return undefined;
      case "capability":
        return encodeError(request.id, { code: -32601, message: result.refusal.message });
      case "handler":
        return encodeError(
          request.id,
          result.cause === undefined ? result.refusal : { code: -32603, message: HANDLER_THREW },
        );
      default:
        return encodeError(request.id, result.refusal);
    }
  }

  /**
   * Decodes a server request and makes room for its job, else answers it: an unknown method
   * `-32601`, params that are not valid `-32602`, and over `maxServerRequests` (or an id already
   * being answered) `-32000` busy.
   *
   * @param request The server's request.
   * @param call The call it is tied to, if any.
   * @returns The input request to run, or `undefined` when it was answered.
   */
  #admitted(request: JsonRpcRequest, call: CallRecord | undefined): InputRequest | undefined {
    const params = request.params ?? {};
    const decoded = decodeInputRequest(this.#options.version, request.method, params);
    if (!decoded.ok && decoded.path === "$.method") {
      this.#send(
        encodeError(request.id, { code: -32601, message: `Method not found: ${quote(request.method, 64)}` }),
      );
      return undefined;
    }
    if (!decoded.ok) {
      // Refused before the chain, and heard of as the checks' -32602 refusals are.
      const input = { method: request.method as InputRequest["method"], params };
      const refusal = { code: -32602, message: `Invalid params: ${decoded.message}` };
      this.#refuse(request.id, { input, call, refusal });
      return undefined;
    }
    const key = idKey(request.id);
    if (this.#jobs.size < this.#options.maxServerRequests && !this.#jobs.has(key)) return decoded.value;
    const message = this.#jobs.has(key)
      ? "Busy: a request with this id is already being answered"
      : `Busy: ${this.#jobs.size} server requests are already being answered`;
    this.#refuse(request.id, { input: decoded.value, call, refusal: { code: -32000, message } });
    return undefined;
  }

  /**
   * Answers a request refused before its job started, once the decision listeners have heard of it.
   *
   * @param id The request's id.
   * @param refused Its method and params as sent, its call (whose caller the event names) and the refusal.
   */
  #refuse(id: RequestId, refused: {
    readonly input: RefusedRequest;
    readonly call: CallRecord | undefined;
    readonly refusal: Refusal;
  }): void {
    const { version } = this.#options;
    this.#options.chain.refused(refused.input, refused.refusal, {
      version,
      principal: this.#principalOf(refused.call),
    });
    this.#send(encodeError(id, refused.refusal));
  }

  /**
   * Whom a server request runs as: its call's principal, else the session's.
   *
   * @param call The call it is tied to, if any.
   * @returns The principal, or `undefined` when neither the call nor the session has one.
   */
  #principalOf(call: CallRecord | undefined): Principal | undefined {
    return call?.principal ?? this.#options.principal;
  }

  #send(message: JsonRpcResultResponse | JsonRpcErrorResponse): void {
    this.#options.respond(message).catch(() => {});
  }
}

/** Echoes `io.modelcontextprotocol/related-task` on the answer to a task's request (2025-11-25). */
function withRelatedTask(answer: JsonObject, input: InputRequest): JsonObject {
  const related = (input.params as { _meta?: Record<string, unknown> } | undefined)?._meta
    ?.[MetaKey.relatedTask];
  if (related === undefined) return answer;
  const meta = typeof answer._meta === "object" && answer._meta !== null ? answer._meta : {};
  return Object.assign({}, answer, { _meta: Object.assign({}, meta, { [MetaKey.relatedTask]: related }) });
}
