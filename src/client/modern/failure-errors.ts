/**
 * Turns what can go wrong in a modern request into `ClientError`s with the right kind, in one
 * place: server errors, transport failures, deadlines and cancellations, and chain refusals.
 *
 * @module
 */
import type { ChainResult } from "../../chain/chain.ts";
import { ClientError } from "../../errors.ts";
import type { JsonObject, JsonRpcErrorObject } from "../../protocol/jsonrpc.ts";
import { quote } from "../../_internal/quote.ts";
import { isObject } from "../../_internal/is-object.ts";
import type { ResponseOutcome } from "../../transport/response-outcome.ts";
import { DeadlineReached } from "../../_internal/signals.ts";
import type { FetchFailure } from "../../transport/fetch-with-redirects.ts";

/**
 * How one leg of a request ended: its result, the server's JSON-RPC error, or what else the
 * response or the fetch came to; an abort carries the leg's signal's reason.
 */
export type LegOutcome =
  | { readonly kind: "result"; readonly result: JsonObject }
  | { readonly kind: "error"; readonly error: JsonRpcErrorObject }
  | { readonly kind: "aborted"; readonly reason: unknown }
  | Exclude<ResponseOutcome | FetchFailure, { kind: "response" | "aborted" }>;

/**
 * A JSON-RPC error the server answered with.
 *
 * @param serverId The server.
 * @param method The method called.
 * @param error The server's error.
 * @returns A `"server"` error carrying the server's code and data.
 */
export function serverError(serverId: string, method: string, error: JsonRpcErrorObject): ClientError {
  const needs = error.code === -32021 ? requiredCapabilities(error.data) : [];
  return new ClientError(
    "server",
    `Server "${serverId}" answered ${method} with error ${error.code}: ${quote(error.message, 200)}${
      needs.length === 0 ? "" : `; it needs the client capabilities ${needs.join(", ")}`
    }`,
    { code: error.code, data: error.data, serverId, cause: error },
  );
}

/**
 * The capabilities a `-32021`'s `data.requiredCapabilities` names, as quoted paths (`"elicitation.url"`),
 * which its message seldom says. At most 8, three levels deep.
 */
function requiredCapabilities(data: unknown): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, prefix: string, depth: number) => {
    if (!isObject(value)) return;
    for (const [key, inner] of Object.entries(value)) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const deeper = depth < 3 && typeof inner === "object" && inner !== null &&
        Object.keys(inner).length > 0;
      if (deeper) walk(inner, path, depth + 1);
      else if (paths.length < 8) paths.push(quote(path, 64));
    }
  };
  walk((data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities, "", 1);
  return paths;
}

/**
 * The error for a leg that brought no result: the server's JSON-RPC error, a transport failure
 * (a broken response stream is only failed once re-issued and broken again), a deadline or a
 * cancellation, or a server that broke the protocol.
 *
 * @param serverId The server.
 * @param method The method called.
 * @param outcome How the leg ended (anything but a result).
 * @returns The error, of the kind the outcome calls for.
 */
export function legError(
  serverId: string,
  method: string,
  outcome: Exclude<LegOutcome, { kind: "result" }>,
): ClientError {
  switch (outcome.kind) {
    case "error":
      return serverError(serverId, method, outcome.error);
    case "stream_broken":
      return new ClientError(
        "transport",
        `Server "${serverId}": the response to ${method} broke off twice (${outcome.reason})`,
        { serverId },
      );
    case "aborted":
      return abortError(serverId, method, outcome.reason);
    case "accepted":
      return new ClientError(
        "protocol",
        `Server "${serverId}" answered the ${method} request with 202 and no response`,
        { serverId },
      );
    case "http_error":
      return new ClientError(
        "transport",
        `Server "${serverId}" answered ${method} with HTTP ${outcome.status}`,
        { serverId, data: { status: outcome.status, body: outcome.body } },
      );
    case "protocol_error":
      return new ClientError(
        "protocol",
        `Server "${serverId}" broke the protocol in its answer to ${method}: ${outcome.message}`,
        { serverId },
      );
    case "network_error":
      return new ClientError("transport", `Server "${serverId}": ${outcome.message}`, {
        serverId,
        ...(outcome.cause === undefined ? {} : { cause: outcome.cause }),
      });
    case "redirect_refused":
      return new ClientError("transport", `Server "${serverId}": ${outcome.message}`, { serverId });
  }
}

/**
 * The error for a result that does not decode as its method's.
 *
 * @param serverId The server.
 * @param method The method whose result it is.
 * @param message What the decoder found wrong.
 * @returns A `"protocol"` error.
 */
export function invalidResult(serverId: string, method: string, message: string): ClientError {
  return new ClientError("protocol", `Server "${serverId}" sent an invalid ${method} result: ${message}`, {
    serverId,
  });
}

/**
 * The error of a task the server reports cancelled (its `tasks/get` status), in either era.
 *
 * @param serverId The server.
 * @param taskId The task.
 * @returns A `"cancelled"` error naming the task.
 */
export function taskCancelled(serverId: string, taskId: string): ClientError {
  return new ClientError("cancelled", `Task ${quote(taskId)} of server "${serverId}" was cancelled`, {
    serverId,
  });
}

/**
 * The error for an aborted request: a deadline (`"timeout"`) or the caller (`"cancelled"`).
 *
 * @param serverId The server.
 * @param method The method called.
 * @param reason The abort reason.
 * @returns The error.
 */
export function abortError(serverId: string, method: string, reason: unknown): ClientError {
  if (reason instanceof DeadlineReached) {
    const what = reason.which === "leg"
      ? `no response to ${method} within ${reason.ms} ms (callTimeout)`
      : reason.which === "total"
      ? `the call did not finish within ${reason.ms} ms (maxTotalTimeout)`
      : `the caller did not retry the call within ${reason.ms} ms (stateTtl)`;
    return new ClientError("timeout", `Server "${serverId}": ${what}`, { serverId, cause: reason });
  }
  return new ClientError("cancelled", `Call of ${method} to server "${serverId}" was cancelled`, {
    serverId,
    cause: reason,
  });
}

/**
 * The error for a failed input request of a multi round-trip call.
 *
 * @param serverId The server.
 * @param key The entry's key in `inputRequests`.
 * @param method The entry's method.
 * @param failure The chain's failure.
 * @returns `"protocol"` (undeclared kind), `"policy"` (a check refused), `"input_handler"` (the
 *   handler refused or threw), `"timeout"` (the handler's deadline) or `"cancelled"`.
 */
export function inputError(
  serverId: string,
  key: string,
  method: string,
  failure: Extract<ChainResult, { ok: false }>,
): ClientError {
  const entry = `Input request ${quote(key, 64)} (${method}) from server "${serverId}"`;
  const { code, message, data } = failure.refusal;
  const cause = failure.cause;
  const details = {
    code,
    serverId,
    ...(cause === undefined ? {} : { cause }),
    ...(data === undefined ? {} : { data }),
  };
  switch (failure.stage) {
    case "capability":
      return new ClientError(
        "protocol",
        `${entry} asks for a capability this client did not declare: ${message}`,
        details,
      );
    case "policy":
      return new ClientError("policy", `${entry} refused by policy: ${message}`, details);
    case "handler":
      return new ClientError("input_handler", `${entry} failed in the handler: ${message}`, details);
    case "timeout":
      return new ClientError("timeout", `${entry}: ${message}`, details);
    case "cancelled":
      return new ClientError("cancelled", `${entry} was cancelled`, details);
    case "deferred":
      return new ClientError(
        "input_handler",
        `${entry}: the handler deferred it, and no caller can answer it here`,
        details,
      );
  }
}
