/**
 * A server's tools for a person: every page of `tools/list`, and each tool printed with its
 * arguments read from its input schema. `sluice call` also looks a rejected tool up here.
 *
 * @module
 */
import type { Client } from "../client/client-types.ts";
import type { ListToolsResult, Tool } from "../protocol/tools.ts";
import { safeLine, safeLines, type Screen } from "./_terminal.ts";

/** The most pages read: a server that keeps sending cursors is not followed forever. */
const MAX_PAGES = 100;

type Schema = Readonly<Record<string, unknown>>;

/** A server's tools as read from every page of its `tools/list`, or from as many as were read. */
export interface ToolPages {
  /** The first page's result with every read page's tools; a `nextCursor` only when reading stopped early. */
  readonly result: ListToolsResult;
  /** Why reading stopped before the last page; `undefined` when every page was read. */
  readonly stopped: string | undefined;
}

/**
 * Reads every page of a server's `tools/list`, up to 100 pages, and not a cursor twice.
 *
 * @param client The client.
 * @param server The server id.
 * @param signal Cancels the listing.
 * @returns The tools, and why reading stopped early if it did.
 */
export async function listAllTools(
  client: Client,
  server: string,
  signal?: AbortSignal,
): Promise<ToolPages> {
  const options = signal === undefined ? {} : { signal };
  const first = await client.listTools(server, options);
  const tools: Tool[] = [...first.tools];
  const seen = new Set<string>();
  let cursor = first.nextCursor;
  let pages = 1;
  for (; cursor !== undefined && pages < MAX_PAGES && !seen.has(cursor); pages++) {
    seen.add(cursor);
    const next = await client.listTools(server, { ...options, cursor });
    tools.push(...next.tools);
    cursor = next.nextCursor;
  }
  const { nextCursor: _, ...rest } = first;
  if (cursor === undefined) return { result: { ...rest, tools }, stopped: undefined };
  const why = seen.has(cursor)
    ? "the server sent a cursor it had sent before"
    : `${MAX_PAGES} pages is the most read`;
  return {
    result: { ...rest, tools, nextCursor: cursor },
    stopped:
      `the list may be incomplete: reading stopped after ${pages} pages (${tools.length} tools), as ${why}`,
  };
}

/**
 * Prints a server's tools, one block each: `name: title`, the description, then the arguments.
 *
 * @param screen The screen.
 * @param server The server id (for the heading and the example call).
 * @param tools The tools.
 */
export function printTools(screen: Screen, server: string, tools: readonly Tool[]): void {
  const { bold } = screen.style;
  if (tools.length === 0) {
    screen.line(`Server "${server}" has no tools.`);
    return;
  }
  screen.line(`Server "${server}" has ${tools.length === 1 ? "1 tool" : `${tools.length} tools`}:`);
  for (const tool of tools) {
    screen.line();
    const title = typeof tool.title === "string" && tool.title !== "" ? `: ${safeLine(tool.title)}` : "";
    screen.line(`${bold(safeLine(tool.name))}${title}`);
    if (typeof tool.description === "string") {
      for (const line of safeLines(tool.description)) screen.line(`  ${line}`);
    }
    const lines = argumentLines(tool.inputSchema as unknown as Schema);
    if (lines.length === 0) screen.line("  no arguments");
    else screen.line("  arguments:");
    for (const line of lines) screen.line(`    ${line}`);
  }
  screen.line();
  screen.line(`Call one with: sluice call ${server} <tool> '{"<argument>": <value>}'`);
}

/** One line per argument (and one per line of its description), in the schema's order. */
function argumentLines(schema: Schema): string[] {
  const properties = schema["properties"];
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return [];
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  const lines: string[] = [];
  for (const [name, value] of Object.entries(properties as Schema)) {
    const property = (typeof value === "object" && value !== null ? value : {}) as Schema;
    const facts = [typeOf(property), required.includes(name) ? "required" : "optional"];
    const choices = property["enum"] ?? (property["items"] as Schema | undefined)?.["enum"];
    if (Array.isArray(choices)) facts.push(`one of ${choices.map((choice) => json(choice)).join(", ")}`);
    if (property["default"] !== undefined) facts.push(`default ${json(property["default"])}`);
    lines.push(`${safeLine(name)} (${facts.join(", ")})`);
    const description = property["description"] ?? property["title"];
    if (typeof description === "string") lines.push(...safeLines(description).map((line) => `  ${line}`));
  }
  return lines;
}

/** The JSON Schema type in words: `string`, `integer or null`, `array of string`; `any` when untyped. */
function typeOf(property: Schema): string {
  const type = property["type"];
  const named = typeof type === "string"
    ? type
    : Array.isArray(type)
    ? type.filter((t) => typeof t === "string").join(" or ")
    : "any";
  const items = property["items"] as Schema | undefined;
  if (named === "array" && typeof items?.["type"] === "string") return `array of ${safeLine(items["type"])}`;
  return safeLine(named === "" ? "any" : named);
}

function json(value: unknown): string {
  return safeLine(JSON.stringify(value) ?? String(value), 200);
}
