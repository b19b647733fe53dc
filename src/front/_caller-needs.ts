/**
 * What a request passed down to the caller needs it to have declared: the one reading of an
 * input request that decides whether the caller can answer it and, when it cannot, what the
 * error names as missing.
 *
 * @module
 */
import type { InputRequest } from "../protocol/input-request.ts";

/** A capability kind, and sampling's `tools` or the elicitation mode when the request needs one. */
export type CallerNeed =
  | readonly ["roots"]
  | readonly ["sampling", "tools"?]
  | readonly ["elicitation", "form" | "url"];

/**
 * What a deferred request needs of its caller. An `includeContext` needs nothing more: a client
 * may ignore it (2025-11-25), and 2025-06-18 has no `sampling.context` to declare.
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
