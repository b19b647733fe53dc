/**
 * Sampling check: a server can keep a model in a tool loop at the user's expense; a request whose
 * `messages` already hold more than `sampling.maxToolIterations` assistant turns with `tool_use`
 * blocks is refused.
 *
 * @module
 */
import { pass, refuse, type Verdict } from "../chain/verdict.ts";

/** The shape of a sampling message this check reads. */
export interface ToolLoopMessage {
  /** `"user"` or `"assistant"`. */
  readonly role: string;
  /** One content block or several. */
  readonly content: { readonly type: string } | readonly { readonly type: string }[];
}

/** The check built by {@linkcode createSamplingToolLoopCheck}. */
export interface SamplingToolLoopCheck {
  /** Refuses when the assistant `tool_use` turns exceed the limit. */
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
    throw new TypeError(`"sampling.maxToolIterations" must be a whole number, received ${String(limit)}`);
  }
  return Object.freeze({
    check(messages: readonly ToolLoopMessage[]): Verdict<void> {
      let turns = 0;
      for (const message of messages) {
        if (message.role === "assistant" && hasToolUse(message.content)) turns++;
      }
      if (turns <= limit) return pass(undefined);
      return refuse(
        rejectionCode,
        `Sampling request refused: ${turns} assistant tool_use turns exceed the limit of ${limit}`,
      );
    },
  });
}

function hasToolUse(content: ToolLoopMessage["content"]): boolean {
  if (!Array.isArray(content)) return (content as { readonly type: string }).type === "tool_use";
  for (const block of content) if (block.type === "tool_use") return true;
  return false;
}
