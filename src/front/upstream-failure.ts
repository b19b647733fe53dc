/**
 * What the front tells its caller when the upstream server fails: the upstream's own JSON-RPC
 * error (its code, its text and data sanitized) when it answered with one, else one stable code,
 * {@linkcode UPSTREAM_UNAVAILABLE}, with the class of the cause and the server's id. Never a URL,
 * a header, a path or a stack: a transport message may quote the policy's URL, which may carry a
 * credential, so only its class leaves the gateway.
 *
 * | `data.cause`          | when                                                              |
 * | --------------------- | ----------------------------------------------------------------- |
 * | `"connection_refused"`| nothing listens at the server's address                           |
 * | `"not_found"`         | its host name does not resolve, its command does not exist, HTTP 404 |
 * | `"timed_out"`         | a leg passed `callTimeout`, or the call `maxTotalTimeout`          |
 * | `"protocol"`          | it broke the protocol (invalid message, too big over HTTP)          |
 * | `"http_error"`        | it answered another HTTP error (`data.status`)                     |
 * | `"sign_in_failed"`    | signing in to it failed (discovery, registration, a refused token) |
 * | `"sign_in_required"`  | a 2026 caller must sign in first, on a request that cannot ask it (`data.url`) |
 * | `"connection_failed"` | anything else on the way (reset, TLS, a process that died, a stdio line past `maxMessageBytes`, which ends the process) |
 *
 * An upstream that needs its caller to sign in first is not a failure: the caller is sent to the
 * gateway's sign-in page, as its version allows ({@linkcode forHost}, {@linkcode signInFirst}).
 *
 * @module
 */
import { ClientError } from "../errors.ts";
import type { JsonRpcErrorObject } from "../protocol/jsonrpc.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { sanitizeData } from "../notify/sanitize-data.ts";
import { signInRequiredBy, type SignInRequiredError, UpstreamAuthError } from "../upstream-auth-error.ts";
import type { FrontServer } from "./front-server.ts";
import { isObject } from "../_internal/is-object.ts";

/** The code of the URL-elicitation-required error (2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** A sign-in the gateway started: its start page's URL and the flow's `state`. */
export type StartedSignIn = SignInRequiredError & { readonly url: string; readonly state: string };

/**
 * The sign-in a failure needs, when the gateway started one (a client without a redirect URI starts
 * none, and its failure is a failed sign-in).
 *
 * @param failure What the call failed with.
 * @returns The sign-in, or `undefined`.
 */
export function startedSignIn(failure: unknown): StartedSignIn | undefined {
  const signIn = signInRequiredBy(failure);
  return signIn?.url !== undefined && signIn.state !== undefined ? signIn as StartedSignIn : undefined;
}

/**
 * The URL elicitation that asks the caller's person to sign in at the gateway.
 *
 * @param signIn The sign-in, its `url` the gateway's start page.
 * @returns The params of a URL-mode `elicitation/create` (with the 2025-11-25 `elicitationId`).
 */
export function signInElicitation(
  signIn: StartedSignIn,
): { mode: "url"; message: string; url: string; elicitationId: string } {
  return {
    mode: "url",
    message: `Sign in to ${
      JSON.stringify(signIn.server.slice(0, 64))
    } to continue: open the link, then retry`,
    url: signIn.url,
    elicitationId: `sign-in-${signIn.state.slice(0, 16)}`,
  };
}

/**
 * The `-32042` error for a caller whose upstream needs a sign-in.
 *
 * @param signIn The sign-in.
 * @returns The error object, `data.elicitations` holding the one URL elicitation.
 */
export function signInRequired(signIn: StartedSignIn): JsonRpcErrorObject {
  return {
    code: URL_ELICITATION_REQUIRED,
    message: `Upstream server ${JSON.stringify(signIn.server.slice(0, 64))} needs you to sign in first`,
    data: { elicitations: [signInElicitation(signIn)] },
  };
}

/**
 * The JSON-RPC code of every answer whose upstream server could not serve it (from the range
 * JSON-RPC leaves to implementations, outside MCP's reserved -32020..-32099).
 */
export const UPSTREAM_UNAVAILABLE = -32010;

/**
 * The error for a 2026-07-28 caller whose request cannot carry `input_required` (discovery, a
 * list, a task's request) when the upstream needs its person to sign in first: `-32010`
 * `"sign_in_required"` with the gateway's sign-in page. Declaring URL elicitation would not help
 * such a request (`-32021` would say it does), and 2026-07-28 forbids `-32042`. A 2025 host that
 * cannot take `-32042` is told the same ({@linkcode forHost}).
 *
 * @param failure What the request failed with.
 * @param asked Whether the caller would be asked to sign in by calling a tool (a 2026 caller).
 * @returns The error object, `data.url` the start page; `undefined` when the failure needs no
 *   sign-in the gateway started.
 * @example
 * ```ts
 * import { signInFirst } from "./upstream-failure.ts";
 * console.log(signInFirst(new Error("connect ECONNREFUSED"))); // undefined
 * ```
 */
export function signInFirst(failure: unknown, asked = true): JsonRpcErrorObject | undefined {
  const signIn = startedSignIn(failure);
  if (signIn === undefined) return undefined;
  const serverId = signIn.server;
  return {
    code: UPSTREAM_UNAVAILABLE,
    message: `Upstream server ${
      JSON.stringify(serverId.slice(0, 64))
    } needs you to sign in first: sign in at ${signIn.url}${
      asked ? " (or call one of its tools to be asked)" : ""
    }, then retry`,
    data: { serverId, cause: "sign_in_required", url: signIn.url },
  };
}

/**
 * An error for a 2025 host as it can take it: a sign-in is asked with `-32042` only of a
 * 2025-11-25 host that declared URL elicitation; 2025-06-18 has no such code, and a host without
 * URL elicitation would show its message alone, which has no link. Such a host is told `-32010`
 * `sign_in_required`, the link in its message.
 *
 * @param error The error {@linkcode upstreamFailure} or {@linkcode callerFailure} made.
 * @param failure What the request failed with.
 * @param version The host's protocol version.
 * @param capabilities What the host declared.
 * @returns The error to send.
 */
export function forHost(
  error: JsonRpcErrorObject,
  failure: unknown,
  version: string,
  capabilities: { readonly elicitation?: { readonly url?: unknown } | undefined },
): JsonRpcErrorObject {
  if (error.code !== URL_ELICITATION_REQUIRED) return error;
  if (version === "2025-11-25" && capabilities.elicitation?.url !== undefined) return error;
  return signInFirst(failure, false) ?? error;
}

/** The classes of upstream failure, as `data.cause` says them. */
export type UpstreamCause =
  | "connection_refused"
  | "not_found"
  | "timed_out"
  | "protocol"
  | "http_error"
  | "sign_in_failed"
  | "sign_in_required"
  | "connection_failed";

const WORDS: Readonly<Record<UpstreamCause, string>> = {
  connection_refused: "connection refused",
  not_found: "not found",
  timed_out: "timed out",
  protocol: "it broke the protocol",
  http_error: "HTTP error",
  sign_in_failed: "sign-in failed",
  sign_in_required: "sign-in required",
  connection_failed: "connection failed",
};

/**
 * The JSON-RPC error for the caller when an upstream request failed.
 *
 * @param failure What the client's session threw.
 * @param serverId The server's id.
 * @returns The error object: for a `"server"` failure the upstream's own code, message and data
 *   (sanitized); for a policy or handler refusal of an input request, its code and message; `-32603`
 *   for a cancelled call, `maxRounds` reached, an input request not answered within its
 *   `handlerTimeout`, or a legacy `-32042` of more URL elicitations than `maxInputRequests`; else
 *   {@linkcode UPSTREAM_UNAVAILABLE} with `data.serverId` and `data.cause` (and `data.status` for
 *   `"http_error"`).
 * @example
 * ```ts
 * import { upstreamFailure } from "./upstream-failure.ts";
 * import { ClientError } from "../errors.ts";
 * const failure = new ClientError("transport", 'Server "docs": request to https://docs.example/mcp failed: fetch failed (connect ECONNREFUSED 127.0.0.1:9)');
 * console.log(upstreamFailure(failure, "docs"));
 * // { code: -32010, message: 'Upstream server "docs" is unavailable: connection refused', data: { serverId: "docs", cause: "connection_refused" } }
 * ```
 */
export function upstreamFailure(failure: unknown, serverId: string): JsonRpcErrorObject {
  const signIn = startedSignIn(failure);
  if (signIn !== undefined) return signInRequired(signIn);
  if (failure instanceof ClientError) {
    if (failure.kind === "server") {
      // Sanitized as its notifications are; the data stays, as a caller needs it (-32021's
      // requiredCapabilities, SEP-2164's missing resource uri).
      const upstream = failure.cause as Partial<JsonRpcErrorObject> | undefined;
      const message = sanitizeText(upstream?.message ?? "Upstream error", 512);
      const data = failure.data === undefined ? {} : { data: sanitizeData(failure.data) };
      return { code: failure.code ?? -32603, message, ...data };
    }
    if (failure.kind === "cancelled") return { code: -32603, message: "The call was cancelled" };
    // A limit of the gateway's own ended the call, not a server fault, so the caller hears which (a
    // modern round of too many gets the same, front-call.ts). A handlerTimeout carries the
    // refusal's code; a deadline of the call's own requests carries none.
    if (
      (failure.kind === "protocol" && failure.code === URL_ELICITATION_REQUIRED) ||
      failure.kind === "rounds_exceeded" || (failure.kind === "timeout" && failure.code !== undefined)
    ) {
      return { code: -32603, message: failure.message };
    }
    // The gateway's checks or handlers refused an input request, or its client refused the call as
    // given (invalid x-mcp-header rules, an argument that does not fit its header: -32602): their
    // code and words, never the upstream's or the transport's.
    if (
      failure.kind === "policy" || failure.kind === "input_handler" ||
      (failure.kind === "config" && failure.code !== undefined)
    ) {
      return { code: failure.code ?? -32603, message: failure.message };
    }
  }
  const cause = causeOf(failure);
  const status = cause === "http_error" ? statusOf(failure) : undefined;
  return {
    code: UPSTREAM_UNAVAILABLE,
    message: `Upstream server ${JSON.stringify(serverId.slice(0, 64))} is unavailable: ${WORDS[cause]}${
      status === undefined ? "" : ` ${status}`
    }`,
    data: { serverId, cause, ...(status === undefined ? {} : { status }) },
  };
}

/**
 * The JSON-RPC error for a caller whose call failed upstream: {@linkcode upstreamFailure}, except
 * that an upstream `-32021` asking for a capability the caller declared, and which this gateway
 * withholds from the server (its policy neither handles that kind nor passes it down), says so.
 * The upstream's own words ("the request's client capabilities do not declare…") would send the
 * caller after its own declaration, which is not what is missing.
 *
 * @param failure What the client's session threw.
 * @param server The upstream server, as the front sees it.
 * @param caller What the caller declared.
 * @returns The error object.
 */
export function callerFailure(
  failure: unknown,
  server: FrontServer,
  caller: ClientCapabilities,
): JsonRpcErrorObject {
  const error = upstreamFailure(failure, server.policy.server);
  if (error.code !== -32021) return error;
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  const withheld = server.withheld(caller, required);
  if (withheld === undefined) return error;
  const id = JSON.stringify(server.policy.server.slice(0, 64));
  return {
    ...error,
    message:
      `Server ${id} needs ${withheld} for this call, and this gateway does not offer it: the policy of ${id} ${
        whyWithheld(server.policy, withheld)
      }`,
  };
}

/**
 * Why the policy offers none of `withheld` (`"sampling, elicitation (url)"`): for one kind, "it";
 * for several, each named with its own reason.
 */
function whyWithheld(policy: FrontServer["policy"], withheld: string): string {
  const names = withheld.split(", ");
  const clauses = names.map((name) => {
    const [kind = "", mode] = name.replace(/[()]/g, "").split(" ");
    const what = names.length === 1 ? "it" : name;
    if ((kind === "sampling" || kind === "elicitation" || kind === "roots") && !policy[kind].enabled) {
      return `turns ${what} off ("${kind}": false)`;
    }
    if (kind === "elicitation" && mode !== undefined && !policy.elicitation.modes.includes(mode as "form")) {
      return `leaves ${names.length === 1 ? "that mode" : what} out ("elicitation.modes")`;
    }
    return `neither handles ${what} nor passes it down to callers ("passDown")`;
  });
  return clauses.join(", and ");
}

/**
 * Classifies an upstream failure. Transport messages differ by runtime (`ECONNREFUSED` on Node,
 * `Connection refused (os error 111)` on Deno, `ConnectionRefused` on Bun), so the words of each
 * are matched.
 *
 * @param failure What the client's session threw.
 * @returns The class.
 */
export function causeOf(failure: unknown): UpstreamCause {
  if (!(failure instanceof ClientError)) return "connection_failed";
  switch (failure.kind) {
    case "timeout":
      return "timed_out";
    case "protocol":
    case "rounds_exceeded":
      return "protocol";
    case "transport": {
      if (signInFailed(failure)) return "sign_in_failed";
      const status = statusOf(failure);
      if (status === 404) return "not_found";
      if (status !== undefined) return "http_error";
      const text = describeChain(failure);
      if (/ECONNREFUSED|connection refused|ConnectionRefused/i.test(text)) return "connection_refused";
      if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|ENOENT|failed to lookup|dns error|not found/i.test(text)) {
        return "not_found";
      }
      if (/timed? ?out|ETIMEDOUT/i.test(text)) return "timed_out";
      return "connection_failed";
    }
    default:
      return "connection_failed";
  }
}

/**
 * Whether the upstream cannot have run the request that failed so: nothing listened at its
 * address, it answered `503` or `429`, or the gateway could not sign in to send it. Such a
 * request may be sent again without running a tool twice.
 *
 * @param failure What the client's session threw.
 * @returns `true` when the request did not run upstream.
 */
export function notRun(failure: unknown): boolean {
  switch (causeOf(failure)) {
    case "connection_refused":
    case "sign_in_failed":
      return true;
    case "http_error":
      return statusOf(failure) === 503 || statusOf(failure) === 429;
    default:
      return false;
  }
}

/** Whether an {@linkcode UpstreamAuthError} is on the failure's cause chain. */
function signInFailed(failure: unknown): boolean {
  for (let at: unknown = failure, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at instanceof UpstreamAuthError) return true;
  }
  return false;
}

function statusOf(failure: unknown): number | undefined {
  const data = failure instanceof ClientError ? failure.data : undefined;
  const status = isObject(data) ? data.status : undefined;
  return typeof status === "number" ? status : undefined;
}

/** The messages of an error and its causes, joined (the class words may sit in any of them). */
function describeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      parts.push(current.message);
      const code = (current as { code?: unknown }).code;
      if (typeof code === "string") parts.push(code);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(" | ");
}
