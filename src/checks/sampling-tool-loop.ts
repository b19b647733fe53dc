/**
 * Sampling check: a server can keep a model in a tool loop at the user's expense; a request whose
 * `messages` already hold more than `sampling.maxToolIterations` assistant turns with `tool_use`
 * blocks is refused.
 *
 * @module
 */
import { describeValue, thrownName } from "../_internal/quote.ts";
import { pass, refuse, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";
import { readBlockTypes } from "./_sampling-messages.ts";

/** The shape of a sampling message this check reads. */
export interface ToolLoopMessage {
  /** `"user"` or `"assistant"`. */
  readonly role: string;
  /** One content block or several. */
  readonly content: { readonly type: string } | readonly { readonly type: string }[];
}

/** The check built by {@linkcode createSamplingToolLoopCheck}. */
export interface SamplingToolLoopCheck {
  /**
   * Refuses with the rejection code when the assistant `tool_use` turns exceed the limit, and
   * with `-32602` when the messages are not a list of messages with content blocks.
   */
  check(messages: readonly ToolLoopMessage[]): Verdict<void>;
}

/**
 * Builds the check.
 *
 * @param options `maxToolIterations` and `rejectionCode` from the policy.
 * @returns The frozen check.
 * @throws {TypeError} When `maxToolIterations` is not a whole number.
 * @example
 * ```ts
 * import { createSamplingToolLoopCheck } from "./sampling-tool-loop.ts";
 * const { check } = createSamplingToolLoopCheck({ maxToolIterations: 5, rejectionCode: -1 });
 * console.log(check([{ role: "user", content: { type: "text" } }]).ok); // true
 * ```
 */
export function createSamplingToolLoopCheck(
  options: { readonly maxToolIterations: number; readonly rejectionCode: number },
): SamplingToolLoopCheck {
  const { maxToolIterations: limit, rejectionCode } = options;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(
      `"sampling.maxToolIterations" must be a whole number, received ${describeValue(limit)}`,
    );
  }
  return Object.freeze({
    check(messages: readonly ToolLoopMessage[]): Verdict<void> {
      let read: ReturnType<typeof readBlockTypes>;
      try {
        read = readBlockTypes(messages);
      } catch (error) {
        return samplingRefusal(`expected plain JSON messages, reading them threw ${thrownName(error)}`);
      }
      if (typeof read === "string") return samplingRefusal(read);
      // Plain arrays readBlockTypes built: counting them reads nothing of the request.
      let turns = 0;
      for (const { role, types } of read) {
        if (role === "assistant" && types.includes("tool_use")) turns++;
      }
      if (turns <= limit) return pass(undefined);
      return refuse(
        rejectionCode,
        `Sampling request refused: ${turns} assistant tool_use turns exceed the limit of ${limit}`,
      );
    },
  });
}
