/**
 * What a request passed down to the caller needs it to have declared, and what of it a caller
 * that did not declare `sampling.context` is not sent.
 *
 * @module
 */
import type { InputRequest } from "../protocol/input-request.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { ProtocolVersion } from "../protocol/versions.ts";
import { createSamplingContextCheck } from "../checks/sampling-context.ts";

/** A capability kind, and sampling's `tools` or the elicitation mode when the request needs one. */
export type CallerNeed =
  | readonly ["roots"]
  | readonly ["sampling", "tools"?]
  | readonly ["elicitation", "form" | "url"];

/**
 * What a deferred request needs of its caller: the one reading that decides whether it can answer
 * and, if not, what the error names as missing. An `includeContext` needs nothing: a client may
 * ignore it (2025-11-25), and 2025-06-18 has no `sampling.context` to declare.
 *
 * @param request The deferred request.
 * @returns The kind, with sampling's `tools` when the request has `tools` or `toolChoice`, or the
 *   elicitation mode.
 */
export function neededBy(request: InputRequest): CallerNeed {
  switch (request.method) {
    case "roots/list":
      return ["roots"];
    case "sampling/createMessage":
      return request.params.tools === undefined && request.params.toolChoice === undefined
        ? ["sampling"]
        : ["sampling", "tools"];
    case "elicitation/create":
      return ["elicitation", "mode" in request.params && request.params.mode === "url" ? "url" : "form"];
  }
}

/** The policy's context check with context never allowed: `includeContext` becomes `"none"`. */
const NO_CONTEXT = createSamplingContextCheck({ allow: false });

/**
 * A deferred request as its caller is sent it. 2025-11-25 and 2026-07-28 say a server SHOULD send
 * `includeContext` `"thisServer"` or `"allServers"` only to a client that declares
 * `sampling.context`, so a caller of those versions that did not gets `"none"`, on a copy (the
 * answer still goes upstream as given). 2025-06-18 has no `sampling.context`: its callers get the
 * request as it is.
 *
 * @param request The deferred request, as the checks left it.
 * @param caller The caller's protocol version and what it declared.
 * @returns `request`, or a copy with `includeContext: "none"`.
 */
export function withinCallerContext(
  request: InputRequest,
  caller: { readonly version: ProtocolVersion; readonly capabilities: ClientCapabilities },
): InputRequest {
  if (
    request.method !== "sampling/createMessage" || caller.version === "2025-06-18" ||
    caller.capabilities.sampling?.context !== undefined
  ) return request;
  const verdict = NO_CONTEXT.check(request.params);
  return verdict.ok && verdict.value !== request.params ? { ...request, params: verdict.value } : request;
}
