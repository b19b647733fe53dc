/**
 * Turns what can go wrong in a modern request into `ClientError`s with the right kind, in one
 * place: server errors, transport failures, deadlines and cancellations, and chain refusals.
 *
 * @module
 */
import type { ChainResult } from "../../chain/chain.ts";
import { ClientError } from "../../errors.ts";
import type { JsonRpcErrorObject } from "../../protocol/jsonrpc.ts";
import { quote } from "../../_internal/quote.ts";
import { DeadlineReached } from "../../_internal/signals.ts";

/**
 * A JSON-RPC error the server answered with.
 *
 * @param serverId The server.
 * @param method The method called.
 * @param error The server's error.
 * @returns A `"server"` error carrying the server's code and data.
 */
export function serverError(serverId: string, method: string, error: JsonRpcErrorObject): ClientError {
  return new ClientError(
    "server",
    `Server "${serverId}" answered ${method} with error ${error.code}: ${quote(error.message, 200)}`,
    { code: error.code, data: error.data, serverId, cause: error },
  );
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
      : `the call did not finish within ${reason.ms} ms (maxTotalTimeout)`;
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
  const { code, message } = failure.refusal;
  const cause = failure.cause;
  const details = cause === undefined ? { code, serverId } : { code, serverId, cause };
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
