/**
 * Tasks of modern callers through the front (the `io.modelcontextprotocol/tasks` extension,
 * 2026-07-28): a caller that declared the extension gets the task a modern upstream creates for its
 * `tools/call`, then polls `tasks/get`, answers with `tasks/update` and may `tasks/cancel` through the
 * front, which applies the server's policy to the task's input requests as it does to a call's:
 *
 * - `tasks/get`: input requests the front has not yet seen run once, as a call's round does
 *   (`answerRound`). Handler answers go upstream (`tasks/update`), unseen by the caller; what is passed
 *   down is shown as the checks left it (changes under `_meta["sluice/changes"]`); a refusal, or more
 *   than `maxInputRequests` requests at once, fails the poll and cancels the task upstream. While only
 *   the front's own answers are outstanding the caller sees `working`, also from a poll made while
 *   another poll's round runs them (it does not wait for that round).
 * - `tasks/update`: the caller's answers are post-checked against the task's outstanding requests
 *   (read upstream first) like a handler's; answers to keys not outstanding, or that the front
 *   answered or is answering, are dropped; one refused answer refuses the update.
 * - `tasks/cancel`: relayed.
 *
 * A poll that finds the task ended is the task's call event for the operator, once per task on each
 * isolate (named by the caller's task id, its `durationMs` the poll's): the front learns of the end
 * only from a poll, so a task whose caller never polls again has none.
 *
 * A caller that did not declare the extension on the request gets `-32021`, and every caller gets
 * `-32601` when the upstream does not offer the extension (its `server/discover`).
 *
 * A task belongs to the caller whose call created it: the id the caller sees is the upstream's sealed
 * with the server and the caller's principal under the state key (`bindTaskId`), so another caller's
 * request for it is answered as for an unknown task, on any isolate, with nothing stored.
 *
 * Which keys the front has handled is kept in memory per task (a bounded number of tasks), each
 * marked before its handler runs, so a handler runs once per key however often and concurrently the
 * caller polls; another isolate (Workers) runs the keys again, and the upstream ignores answers to
 * keys already answered.
 *
 * @module
 */
import { quote } from "../_internal/quote.ts";
import { isObject } from "../_internal/is-object.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { decodeGetTaskResult, type EndedTask, TASKS_EXTENSION } from "../protocol/tasks.ts";
import { isEnded } from "../protocol/task-status.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { decodeDiscoverResult } from "../protocol/discover.ts";
import { invalidResult, serverError, taskCancelled } from "../client/modern/failure-errors.ts";
import {
  answerRefusal,
  answerRefused,
  answerRound,
  callError,
  endDeferred,
  errorOutcome,
  type FrontCallInput,
  type FrontCallOutcome,
  unaskedOutcome,
} from "./front-call.ts";
import { tooManyInputRequests } from "../client/modern/input-round.ts";
import { principalKey } from "./principal.ts";
import { openTaskId, withCallerTaskId } from "./_task-ids.ts";
import { type CallReporter, reportCall } from "./_call-decision.ts";

/** The methods of the extension the front relays. */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

/** The most tasks whose handled keys are remembered; past it the oldest is forgotten. */
const MAX_TASKS = 1000;

/** What the front did with one key of a task's input requests, or does: `running` in a poll's round. */
type Handled =
  | { readonly kind: "running" }
  | { readonly kind: "answered" }
  | { readonly kind: "passed"; readonly request: InputRequest };

/** The mark of a key whose handler runs (one object: a key is unmarked only if still marked so). */
const RUNNING: Handled = { kind: "running" };

/** One task request through the front: what a call needs of it (its `stateKey` seals the task ids callers see). */
export type TaskCallInput = Pick<
  FrontCallInput,
  "server" | "session" | "request" | "signal" | "stateKey" | "fetch" | "assigns"
>;

/** The front's memory of the tasks it relays. */
export class FrontTasks {
  readonly #handled = new Map<string, Map<string, Handled>>();
  /** The tasks whose end was reported, the oldest forgotten past `MAX_TASKS`. */
  readonly #ended = new Set<string>();
  readonly #reporter: CallReporter;

  /** @param reporter Where a task's end is reported: the client's name, clock and decision sink. */
  constructor(reporter: CallReporter) {
    this.#reporter = reporter;
  }

  /**
   * Serves `tasks/get`, `tasks/update` or `tasks/cancel`.
   *
   * @param input The server, its session, the caller's request and the signal.
   * @returns The result or error for the caller; never rejects for anything upstream does.
   */
  async serve(input: TaskCallInput): Promise<FrontCallOutcome> {
    const { server, request } = input;
    const serverId = server.policy.server;
    // The extension's methods are for callers that negotiated it (SEP-2663), on this request.
    const declared = request.capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    const callerId = request.params.taskId;
    const startedAt = this.#reporter.clock.now();
    try {
      if (!declared || typeof callerId !== "string") return await this.#refusal(input, declared, callerId);
      const principal = principalKey(request.principal);
      const taskId = await openTaskId(callerId, { serverId, principal, key: input.stateKey });
      if (taskId === undefined) return await this.#refusal(input, declared, callerId);
      switch (request.message.method) {
        case "tasks/get":
          return withCallerId(await this.#get(input, taskId, startedAt), callerId);
        case "tasks/update":
          return withCallerId(await this.#update(input, taskId), callerId);
        default:
          return {
            kind: "result",
            result: withCallerTaskId(await this.#send(input, "tasks/cancel", { taskId }), callerId),
          };
      }
    } catch (failure) {
      return unaskedOutcome(failure, serverId);
    }
  }

  /**
   * Why a task request is refused. An upstream without the extension has no such method
   * (`-32601`, as the server would answer); only a refusal asks the upstream, since a task id
   * this gateway gave proves the upstream has tasks, so a task's polls cost no discovery.
   */
  async #refusal(input: TaskCallInput, declared: boolean, callerId: unknown): Promise<FrontCallOutcome> {
    const method = input.request.message.method;
    const raw = await input.session.request("server/discover", {}, {
      signal: input.signal,
      fetch: input.fetch,
    });
    const discovered = decodeDiscoverResult(raw);
    if (!discovered.ok) {
      throw invalidResult(input.server.policy.server, "server/discover", discovered.message);
    }
    if (discovered.value.capabilities.extensions?.[TASKS_EXTENSION] === undefined) {
      return callError(-32601, `Method not found: ${JSON.stringify(method)}`);
    }
    if (!declared) {
      return errorOutcome({
        code: -32021,
        message: `Missing required client capability: ${method} needs the ` +
          `"${TASKS_EXTENSION}" extension in the request's client capabilities`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    }
    if (typeof callerId !== "string") return callError(-32602, 'Invalid params: "taskId" must be a string');
    // Another caller's task, or an id this gateway never gave: not found, and nothing is told.
    return callError(-32602, `Invalid params: no task ${quote(callerId, 64)}`);
  }

  async #get(input: TaskCallInput, taskId: string, startedAt: number): Promise<FrontCallOutcome> {
    const raw = await this.#send(input, "tasks/get", { taskId });
    const task = this.#decode(input, raw);
    if (isEnded(task.status)) this.#reportEnd(input, taskId, task as EndedTask, startedAt);
    if (task.status !== "input_required") return { kind: "result", result: raw };
    const handled = this.#memory(input.server.policy.server, taskId);
    // What the front answered already is not asked again (the upstream may still list it); the
    // rest, passed-down entries included, is held to maxInputRequests, before any handler runs.
    const asked = Object.keys(task.inputRequests).filter((key) => handled.get(key)?.kind !== "answered");
    const tooMany = tooManyInputRequests(asked.length, input.server.policy);
    if (tooMany !== undefined) return await this.#cancel(input, taskId, callError(-32603, tooMany));
    const fresh: Record<string, InputRequest> = Object.create(null);
    for (const key of asked) {
      if (handled.get(key) === undefined) fresh[key] = task.inputRequests[key] as InputRequest;
    }
    // A round that ends without answering its keys unmarks them for the next poll.
    for (const key of Object.keys(fresh)) handled.set(key, RUNNING);
    const failed = await this.#answer(input, taskId, handled, fresh).finally(() => {
      for (const key of Object.keys(fresh)) if (handled.get(key) === RUNNING) handled.delete(key);
    });
    if (failed !== undefined) return failed;
    const shown: Record<string, InputRequest> = Object.create(null);
    for (const key of asked) {
      const known = handled.get(key);
      if (known?.kind === "passed") shown[key] = known.request;
    }
    const { inputRequests: _all, ...rest } = raw;
    if (Object.keys(shown).length === 0) return { kind: "result", result: { ...rest, status: "working" } };
    // Set on the copy (the key last, as after a spread): V8 builds a spread-then-key object slowly.
    (rest as Record<string, unknown>).inputRequests = shown;
    return { kind: "result", result: rest };
  }

  /**
   * Runs a poll's new entries as a call's round, sends the handlers' answers upstream
   * (`tasks/update`) and records what became of each key.
   *
   * @param input The task request.
   * @param taskId The upstream's task id.
   * @param handled The task's keys, these marked running.
   * @param fresh The entries to run.
   * @returns The poll's error when the round failed, else `undefined`.
   */
  async #answer(
    input: TaskCallInput,
    taskId: string,
    handled: Map<string, Handled>,
    fresh: Record<string, InputRequest>,
  ): Promise<FrontCallOutcome | undefined> {
    const round = await answerRound(input, fresh);
    // A caller that did not declare what an entry needs may declare it and poll again.
    if ("error" in round) {
      if (round.undeclared) return round.error;
      endDeferred(input, round);
      return await this.#cancel(input, taskId, round.error);
    }
    for (const [key, request] of Object.entries(round.pending)) handled.set(key, { kind: "passed", request });
    if (Object.keys(round.answers).length > 0) {
      await this.#send(input, "tasks/update", { taskId, inputResponses: round.answers });
      for (const key of Object.keys(round.answers)) handled.set(key, { kind: "answered" });
    }
    return undefined;
  }

  async #update(input: TaskCallInput, taskId: string): Promise<FrontCallOutcome> {
    const given = input.request.params.inputResponses;
    if (!isObject(given)) {
      return callError(-32602, 'Invalid params: "inputResponses" must be an object');
    }
    const task = this.#decode(input, await this.#send(input, "tasks/get", { taskId }));
    const outstanding = task.status === "input_required" ? task.inputRequests : {};
    const handled = this.#handled.get(memoryKey(input.server.policy.server, taskId));
    const checked: Record<string, unknown> = Object.create(null);
    for (const [key, answer] of Object.entries(given)) {
      const request = Object.hasOwn(outstanding, key) ? outstanding[key] as InputRequest : undefined;
      const front = handled?.get(key)?.kind;
      if (request === undefined || front === "answered" || front === "running") continue;
      const verdict = input.server.chain.checkAnswer(
        request,
        answer,
        MODERN_PROTOCOL_VERSION,
        input.request.principal,
        answerRefusal(key),
      );
      if (!verdict.ok) return answerRefused(key, verdict.refusal);
      checked[key] = verdict.value;
    }
    return {
      kind: "result",
      result: await this.#send(input, "tasks/update", { taskId, inputResponses: checked }),
    };
  }

  /** Tells the operator how a task ended, the first time a poll finds it so. */
  #reportEnd(input: TaskCallInput, taskId: string, task: EndedTask, startedAt: number): void {
    const serverId = input.server.policy.server;
    const key = memoryKey(serverId, taskId);
    if (this.#ended.has(key)) return;
    this.#ended.add(key);
    if (this.#ended.size > MAX_TASKS) this.#ended.delete(this.#ended.values().next().value as string);
    // The caller's id, as the task's other events name it.
    const callerId = String(input.request.params.taskId);
    const facts = { server: serverId, request: input.request, startedAt };
    if (task.status === "completed") {
      reportCall(this.#reporter, {
        ...facts,
        outcome: { kind: "result", result: task.result },
        failure: undefined,
      });
      return;
    }
    const failure = task.status === "failed"
      ? serverError(serverId, `task ${quote(callerId)}`, task.error)
      : taskCancelled(serverId, callerId);
    const error = task.status === "failed" ? task.error : { code: -32800, message: "Task cancelled" };
    reportCall(this.#reporter, { ...facts, outcome: errorOutcome(error), failure });
  }

  /** Within the policy the task cannot go on: it is cancelled upstream, and the caller told why. */
  async #cancel(input: TaskCallInput, taskId: string, why: FrontCallOutcome): Promise<FrontCallOutcome> {
    await this.#send(input, "tasks/cancel", { taskId }).catch(() => {});
    return why;
  }

  #send(input: TaskCallInput, method: string, params: JsonObject): Promise<JsonObject> {
    return input.session.request(method, params, {
      signal: input.signal,
      capabilities: input.server.capabilitiesFor(input.request.capabilities),
      fetch: input.fetch,
    });
  }

  #decode(input: TaskCallInput, raw: JsonObject) {
    const decoded = decodeGetTaskResult(raw);
    if (decoded.ok) return decoded.value;
    throw invalidResult(input.server.policy.server, "tasks/get", decoded.message);
  }

  #memory(serverId: string, taskId: string): Map<string, Handled> {
    const key = memoryKey(serverId, taskId);
    let handled = this.#handled.get(key);
    if (handled === undefined) {
      handled = new Map();
      this.#handled.set(key, handled);
      if (this.#handled.size > MAX_TASKS) this.#handled.delete(this.#handled.keys().next().value as string);
    }
    return handled;
  }
}

function withCallerId(outcome: FrontCallOutcome, callerId: string): FrontCallOutcome {
  return outcome.kind === "result"
    ? { kind: "result", result: withCallerTaskId(outcome.result, callerId) }
    : outcome;
}

/** Task ids are the server's: two servers may use the same one. */
function memoryKey(serverId: string, taskId: string): string {
  return `${serverId}\u0000${taskId}`;
}
