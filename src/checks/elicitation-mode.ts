/**
 * Elicitation check: the mode (missing means `"form"`) must be one the client declared; the
 * spec's error for an undeclared mode is `-32602`.
 *
 * @module
 */
import { pass, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import { describeValue } from "../_internal/quote.ts";

/** An elicitation mode. */
export type ElicitationMode = "form" | "url";

/** The check built by {@linkcode createElicitationModeCheck}. */
export interface ElicitationModeCheck {
  /** Returns the effective mode, or refuses an undeclared or unknown one. */
  check(mode: unknown): Verdict<ElicitationMode>;
}

/**
 * Builds the check.
 *
 * @param modes The declared modes (the handler's `elicitationModes` within the policy's).
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createElicitationModeCheck } from "./elicitation-mode.ts";
 * const { check } = createElicitationModeCheck(["form"]);
 * console.log(check(undefined), check("url").ok); // { ok: true, value: "form" } false
 * ```
 */
export function createElicitationModeCheck(modes: readonly ElicitationMode[]): ElicitationModeCheck {
  const declared = new Set(modes);
  return Object.freeze({
    check(mode: unknown): Verdict<ElicitationMode> {
      const effective = mode ?? "form";
      if ((effective === "form" || effective === "url") && declared.has(effective)) return pass(effective);
      return refuse(
        RefusalCode.InvalidParams,
        `Elicitation request refused: mode ${describeValue(effective)} is not one this client declared (${
          [...declared].map((m) => `"${m}"`).join(", ") || "none"
        })`,
      );
    },
  });
}
