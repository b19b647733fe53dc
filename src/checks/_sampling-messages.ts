/**
 * Reading the `messages` of a sampling request for the checks that judge its tool blocks: each
 * message's role, and each block's `type` and tool id. What is not shaped so is refused by name.
 *
 * @module
 */
import { describeKind } from "../_internal/quote.ts";
import { isObject } from "../_internal/is-object.ts";

/** What the tool checks read of one message. */
export interface MessageBlockTypes {
  /** The message's `role`, as received. */
  readonly role: unknown;
  /** The `type` of each content block, as received, in order (one for a single block). */
  readonly types: readonly unknown[];
  /** Per block: the `id` of a `tool_use`, the `toolUseId` of a `tool_result`, else `undefined`. */
  readonly ids: readonly unknown[];
}

/**
 * Reads the role, block types and tool ids of every message. May throw what a hostile getter or
 * proxy throws; the caller turns that into a refusal.
 *
 * @param messages The request's `messages`, untrusted.
 * @returns One entry per message, or why the messages are not readable (a path and what was
 * received, for a message such as `"messages[1]" expected an object, received null`).
 */
export function readBlockTypes(messages: unknown): readonly MessageBlockTypes[] | string {
  if (!Array.isArray(messages)) return `"messages" expected an array, received ${describeKind(messages)}`;
  const out: MessageBlockTypes[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    const path = `messages[${i}]`;
    if (!isObject(message)) return `"${path}" expected an object, received ${describeKind(message)}`;
    const content = message["content"];
    if (!Array.isArray(content)) {
      if (!isObject(content)) {
        return `"${path}.content" expected a content block or an array of them, received ${
          describeKind(content)
        }`;
      }
      const type = content["type"];
      out.push({ role: message["role"], types: [type], ids: [readToolId(content, type)] });
      continue;
    }
    const types: unknown[] = [];
    const ids: unknown[] = [];
    for (let j = 0; j < content.length; j++) {
      const block: unknown = content[j];
      if (!isObject(block)) {
        return `"${path}.content[${j}]" expected a content block, received ${describeKind(block)}`;
      }
      const type = block["type"];
      types.push(type);
      ids.push(readToolId(block, type));
    }
    out.push({ role: message["role"], types, ids });
  }
  return out;
}

/** The id pairing a tool block with its partner (read only for the two tool types). */
function readToolId(block: Record<string, unknown>, type: unknown): unknown {
  if (type === "tool_use") return block["id"];
  if (type === "tool_result") return block["toolUseId"];
  return undefined;
}
