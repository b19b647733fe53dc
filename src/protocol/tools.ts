/**
 * Tools as servers list them (`tools/list`) and as they appear inside sampling requests.
 * A tool's `inputSchema` and `outputSchema` are kept as sent: never dereferenced, never rewritten.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, wireObject, type WireSchema } from "./decode.ts";
import { type Icon, IconsSchema } from "./icon.ts";
import { type JsonObject, JsonObjectSchema } from "./jsonrpc.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CacheScopeSchema, CompleteResultTypeSchema, TtlMsSchema } from "./result-type.ts";

/** A tool's input schema: a JSON Schema object whose root `type` is `"object"`. */
export interface ToolInputSchema {
  /** Always `"object"`. */
  readonly type: "object";
  /** The JSON Schema dialect; 2020-12 when absent. */
  readonly $schema?: string;
  /** Any other keyword, kept as sent (`$ref` is never followed). */
  readonly [keyword: string]: unknown;
}

/** Hints about a tool's behaviour; never trusted for decisions. */
export interface ToolAnnotations {
  /** Display name. */
  readonly title?: string;
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy data. */
  readonly destructiveHint?: boolean;
  /** Repeated calls have no further effect. */
  readonly idempotentHint?: boolean;
  /** The tool talks to an open world of external entities. */
  readonly openWorldHint?: boolean;
}

/** How a tool runs (2025-11-25). */
export interface ToolExecution {
  /** Whether the tool may or must be called as a task; `"forbidden"` when absent. */
  readonly taskSupport?: "forbidden" | "optional" | "required";
}

/** A tool a server offers. */
export interface Tool {
  /** Programmatic name, used in `tools/call`. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  /** What the tool does, for the model. */
  readonly description?: string;
  /** The JSON Schema of its arguments. */
  readonly inputSchema: ToolInputSchema;
  /** The JSON Schema of its `structuredContent`. */
  readonly outputSchema?: JsonObject;
  /** Behaviour hints. */
  readonly annotations?: ToolAnnotations;
  /** Task support (2025-11-25). */
  readonly execution?: ToolExecution;
  /** Icons. */
  readonly icons?: readonly Icon[];
  /** Metadata. */
  readonly _meta?: Meta;
}

/** The result of `tools/list`. */
export interface ListToolsResult {
  /** The tools on this page. */
  readonly tools: readonly Tool[];
  /** Cursor of the next page, if any. */
  readonly nextCursor?: string;
  /** 2026-07-28: always `"complete"` here. */
  readonly resultType?: "complete";
  /** 2026-07-28: how long the list may be cached, in ms. */
  readonly ttlMs?: number;
  /** 2026-07-28: who may share a cached copy. */
  readonly cacheScope?: "public" | "private";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

const opt = v.exactOptional;

const InputSchemaSchema: WireSchema<ToolInputSchema> = wireLooseObject({
  type: v.literal("object"),
  $schema: opt(v.string()),
});

const AnnotationsSchema: WireSchema<ToolAnnotations> = wireLooseObject({
  title: opt(v.string()),
  readOnlyHint: opt(v.boolean()),
  destructiveHint: opt(v.boolean()),
  idempotentHint: opt(v.boolean()),
  openWorldHint: opt(v.boolean()),
});

const toolEntries = {
  name: v.string(),
  title: opt(v.string()),
  description: opt(v.string()),
  inputSchema: InputSchemaSchema,
  outputSchema: opt(JsonObjectSchema),
  annotations: opt(AnnotationsSchema),
  execution: opt(wireLooseObject({ taskSupport: opt(v.picklist(["forbidden", "optional", "required"])) })),
  icons: opt(IconsSchema),
  _meta: opt(MetaSchema),
};

/** A tool as listed; unknown keys are kept. */
export const ToolSchema: WireSchema<Tool> = wireLooseObject(toolEntries);

/** A tool inside a sampling request; unknown keys dropped, its schemas kept as sent. */
export const SamplingToolSchema: WireSchema<Tool> = wireObject(toolEntries);

/** The result of `tools/list` before its tools are read one by one; unknown keys are kept. */
const ListToolsResultSchema = wireLooseObject({
  tools: v.array(v.unknown()),
  nextCursor: opt(v.string()),
  resultType: CompleteResultTypeSchema,
  // ttlMs and cacheScope are required of 2026 servers, but only hints to a client: accepted missing.
  ttlMs: TtlMsSchema,
  cacheScope: CacheScopeSchema,
  _meta: opt(MetaSchema),
});

/**
 * Decodes a `tools/list` result (any era), leaving out a listed tool that is not valid, so it
 * cannot hide the others.
 *
 * @param value The untrusted result.
 * @returns The result with the valid tools, or a failure naming the path.
 */
export function decodeListToolsResult(value: unknown): Decoded<ListToolsResult> {
  const read = readToolsPage(value);
  return read.ok ? { ok: true, value: read.value.page } : read;
}

/** A listed entry that is not a valid tool but names one: a call of that name must be refused. */
export interface InvalidTool {
  /** The name the entry gives. */
  readonly name: string;
  /** Why it is not a valid tool (`$.title: expected string, received 5`). */
  readonly reason: string;
}

/**
 * As {@linkcode decodeListToolsResult}, also telling which entries left out name a tool (calls of
 * them must be refused).
 *
 * @param value The untrusted result.
 * @returns The result with the valid tools, and the named entries left out; or a failure.
 */
export function readToolsPage(
  value: unknown,
): Decoded<{ readonly page: ListToolsResult; readonly invalid: readonly InvalidTool[] }> {
  const page = decode(ListToolsResultSchema, value);
  if (!page.ok) return page;
  const tools: Tool[] = [];
  const invalid: InvalidTool[] = [];
  for (const entry of page.value.tools) {
    const tool = decode(ToolSchema, entry);
    if (tool.ok) tools.push(tool.value);
    else if (typeof (entry as { name?: unknown } | null)?.name === "string") {
      invalid.push({ name: (entry as { name: string }).name, reason: tool.message });
    }
  }
  return { ok: true, value: { page: { ...page.value, tools } as ListToolsResult, invalid } };
}
