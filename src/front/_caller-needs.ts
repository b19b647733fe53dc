/**
 * What a request passed down to the caller needs it to have declared: the one reading of an
 * input request that decides whether the caller can answer it and, when it cannot, what the
 * error names as missing.
 *
 * @module
 */
import type { InputRequest } from "../protocol/input-request.ts";

/**
 * A capability kind, and sampling's `tools` or `context`, or the elicitation mode, when the
 * request needs one.
 */
export type CallerNeed =
  | readonly ["roots"]
  | readonly ["sampling", ("tools" | "context")?]
  | readonly ["elicitation", "form" | "url"];

/**
 * What a deferred request needs of its caller.
 *
 * @param request The deferred request.
 * @returns The kind, with sampling's `tools` when the request has `tools` or `toolChoice`, else
 *   its `context` when it asks to include any (`includeContext` other than `"none"`), or the
 *   elicitation mode.
 */
export function neededBy(request: InputRequest): CallerNeed {
  switch (request.method) {
    case "roots/list":
      return ["roots"];
    case "sampling/createMessage": {
      const { tools, toolChoice, includeContext } = request.params;
      if (tools !== undefined || toolChoice !== undefined) return ["sampling", "tools"];
      return includeContext === undefined || includeContext === "none"
        ? ["sampling"]
        : ["sampling", "context"];
    }
    case "elicitation/create":
      return ["elicitation", "mode" in request.params && request.params.mode === "url" ? "url" : "form"];
  }
}
