/**
 * The task ids a gateway's callers see: the upstream's id sealed with the server and the caller
 * (its principal) under the state key, so a task answers only its own caller, on any isolate,
 * with nothing stored.
 *
 * @module
 */
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { openPayload, sealPayload, type StateKey } from "./_state-token.ts";

/** Whose a task id is: the server and the caller it is bound to, and the key that seals it. */
export interface TaskBinding {
  /** The server. */
  readonly serverId: string;
  /** The caller's key (`principalKey`). */
  readonly principal: string;
  /** The state key. */
  readonly key: StateKey;
}

/**
 * The task id a caller sees for an upstream task created by its call: the upstream's id, the
 * server and the caller, sealed under the state key.
 *
 * @param upstreamId The upstream's task id.
 * @param binding The server, the caller and the state key.
 * @returns The id to give the caller.
 */
export async function bindTaskId(upstreamId: string, binding: TaskBinding): Promise<string> {
  const { serverId, principal, key } = binding;
  return await sealPayload(encoder.encode(JSON.stringify({ task: upstreamId, serverId, principal })), key);
}

/**
 * The upstream's id of a task id the caller gave, when it was bound to this server and caller.
 *
 * @param taskId The id the caller gave.
 * @param binding The server of the request, the caller and the state key.
 * @returns The upstream's id, or `undefined` for an id bound elsewhere, or forged.
 */
export async function openTaskId(taskId: string, binding: TaskBinding): Promise<string | undefined> {
  const { serverId, principal, key } = binding;
  const opened = await openPayload(taskId, key);
  if (!opened.ok) return undefined;
  try {
    const bound = JSON.parse(decoder.decode(opened.payload)) as Record<string, unknown>;
    return bound.serverId === serverId && bound.principal === principal && typeof bound.task === "string"
      ? bound.task
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A result naming an upstream task (`CreateTaskResult`, `GetTaskResult`) with the caller's id
 * for it instead.
 *
 * @param result The upstream's result.
 * @param callerId The id the caller knows the task by.
 * @returns The result to send.
 */
export function withCallerTaskId(result: JsonObject, callerId: string): JsonObject {
  return typeof result.taskId === "string" ? { ...result, taskId: callerId } : result;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
