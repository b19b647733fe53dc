/**
 * Sampling check: the spec's rules on tool results. A user message with tool results "MUST contain
 * ONLY tool results", and every assistant `tool_use` message is followed by a user message of the
 * `tool_result`s answering each of its ids "before any other message", as providers demand. A
 * breach is refused with `-32602`, the spec's code for "Tool result missing in request" and "Tool
 * results mixed with other content". A last message that is an assistant `tool_use` passes.
 *
 * @module
 */
import { describeValue, thrownName } from "../_internal/quote.ts";
import { pass, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";
import { type MessageBlockTypes, readBlockTypes } from "./_sampling-messages.ts";
import type { ToolLoopMessage } from "./sampling-tool-loop.ts";

/**
 * Refuses with `-32602` a user message mixing `tool_result` blocks with other content, an
 * assistant `tool_use` message not followed by a user message answering each of its ids with
 * only `tool_result` blocks, a `tool_result` answering no `tool_use` of the message just before,
 * and messages that are not a list of messages with content blocks.
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
    problem = findToolResultProblem(messages);
  } catch (error) {
    problem = `expected plain JSON messages, reading them threw ${thrownName(error)}`;
  }
  return problem === undefined ? pass(undefined) : samplingRefusal(problem);
}

/** Why the messages are refused: unreadable, or the first message breaking a tool result rule. */
function findToolResultProblem(messages: unknown): string | undefined {
  const read = readBlockTypes(messages);
  if (typeof read === "string") return read;
  for (const [index, message] of read.entries()) {
    const problem = findBlockProblem(index, message, read[index - 1]);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Why a message breaks a tool result rule, given the message before it. */
function findBlockProblem(
  index: number,
  { role, types, ids }: MessageBlockTypes,
  previous: MessageBlockTypes | undefined,
): string | undefined {
  const uses = previous?.role === "assistant"
    ? previous.ids.filter((_, i) => previous.types[i] === "tool_use")
    : [];
  const where = `in "messages[${index}]"`;
  const answering = `answering the tool_use blocks of "messages[${index - 1}]"`;
  if (uses.length > 0 && role !== "user") {
    return `tool results missing ${where}: expected a user message ${answering}, received role ${
      describeValue(role)
    }`;
  }
  if (role !== "user") return undefined;
  const other = types.findIndex((type) => type !== "tool_result");
  if (other >= 0 && types.includes("tool_result")) {
    return `tool results mixed with other content ${where}: expected only tool_result blocks, received ${
      describeValue(types[other])
    } at index ${other}`;
  }
  if (uses.length > 0 && other >= 0) {
    return `tool results missing ${where}: expected only tool_result blocks ${answering}, received ${
      describeValue(types[other])
    } at index ${other}`;
  }
  const stray = types.findIndex((type, i) => type === "tool_result" && !uses.includes(ids[i]));
  if (stray >= 0) {
    return `tool results not matching a tool_use ${where}: expected a toolUseId naming a tool_use of ` +
      `the assistant message just before, received ${describeValue(ids[stray])} at index ${stray}`;
  }
  const unanswered = uses.findIndex((id) => !ids.includes(id));
  if (unanswered < 0) return undefined;
  return `tool results missing ${where}: expected a tool_result ${answering}, received none for ` +
    `the tool_use ${describeValue(uses[unanswered])}`;
}
