/**
 * Sampling check: the spec's rule that a user message holding tool results holds nothing else
 * ("When a user message contains tool results (type: "tool_result"), it MUST contain ONLY tool
 * results"), which lets a client map the message onto a provider's dedicated tool role. A request
 * breaking it is refused with `-32602`, the code the spec gives for "Tool results mixed with
 * other content".
 *
 * @module
 */
import { describeValue, thrownName } from "../_internal/quote.ts";
import { pass, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";
import { readBlockTypes } from "./_sampling-messages.ts";
import type { ToolLoopMessage } from "./sampling-tool-loop.ts";

/**
 * Refuses with `-32602` a user message mixing `tool_result` blocks with other content, and
 * messages that are not a list of messages with content blocks.
 *
 * @param messages The request's `messages`, untrusted; never modified.
 * @returns A passing verdict, or the refusal.
 * @example
 * ```ts
 * import { checkSamplingToolResults } from "./sampling-tool-results.ts";
 * const mixed = [{ role: "user", content: [{ type: "tool_result" }, { type: "text" }] }];
 * console.log(checkSamplingToolResults(mixed).ok); // false
 * ```
 */
export function checkSamplingToolResults(messages: readonly ToolLoopMessage[]): Verdict<void> {
  let problem: string | undefined;
  try {
    problem = findMixedMessage(messages);
  } catch (error) {
    problem = `expected plain JSON messages, reading them threw ${thrownName(error)}`;
  }
  return problem === undefined ? pass(undefined) : samplingRefusal(problem);
}

/** Why the messages are refused: unreadable, or the first user message mixing tool results. */
function findMixedMessage(messages: unknown): string | undefined {
  const read = readBlockTypes(messages);
  if (typeof read === "string") return read;
  for (const [index, { role, types }] of read.entries()) {
    if (role !== "user" || !types.includes("tool_result")) continue;
    const other = types.findIndex((type) => type !== "tool_result");
    if (other < 0) continue;
    return `tool results mixed with other content in "messages[${index}]": expected only ` +
      `tool_result blocks, received ${describeValue(types[other])} at index ${other}`;
  }
  return undefined;
}
