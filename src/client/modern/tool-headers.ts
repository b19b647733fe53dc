/**
 * A tool's `x-mcp-header` annotations (2026-07-28, SEP-2243): compiled once from its `inputSchema`, then
 * turned into `Mcp-Param-{Name}` header values for each `tools/call`, or, in the front, checked against the
 * headers a caller sent.
 *
 * An annotation is valid when its value is a non-empty RFC 9110 token (no control character, space, colon or
 * non-ASCII), unique in any letter case within the tool, on a property reached from the root through
 * `properties` keys alone (never `items`, `allOf`, `$ref` or any other keyword), and that property declares
 * `type` `"string"`, `"integer"` or `"boolean"` (alone or with `"null"`). A tool with any invalid annotation
 * is excluded from `tools/list`. `$ref` is never followed.
 *
 * @module
 */
import { type HeaderAnnotations, readHeaderAnnotations, type ToolHeader } from "./_header-annotations.ts";
import { isObject } from "../../_internal/is-object.ts";
import { describeValue, thrownName } from "../../_internal/quote.ts";
import { decodeHeaderValue } from "../../protocol/header-value.ts";

export type { ToolHeader } from "./_header-annotations.ts";

/** The outcome of {@linkcode compileToolHeaders}. */
export type CompiledToolHeaders =
  | { readonly ok: true; readonly headers: readonly ToolHeader[] }
  | { readonly ok: false; readonly reason: string };

/** The outcome of {@linkcode filterListedTools}. */
export interface FilteredTools<T> {
  /** The valid tools, the very objects listed, in order. */
  readonly tools: T[];
  /** The excluded tools, each with why, for a warning. */
  readonly excluded: Array<{ readonly name: string; readonly reason: string }>;
}

/**
 * Compiles a tool's `x-mcp-header` annotations, refusing the tool if any is invalid.
 *
 * @param tool The tool as listed; only `inputSchema` is read, never modified.
 * @returns The headers to mirror (possibly none), or why the tool must be excluded (every
 *   problem found, joined by `"; "`).
 * @example
 * ```ts
 * import { compileToolHeaders } from "./tool-headers.ts";
 * const compiled = compileToolHeaders({
 *   name: "execute_sql",
 *   inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
 * });
 * // { ok: true, headers: [{ property: "region", path: ["region"], header: "Region", type: "string" }] }
 * ```
 */
export function compileToolHeaders(
  tool: { readonly name: string; readonly inputSchema: unknown },
): CompiledToolHeaders {
  let read: HeaderAnnotations;
  try {
    read = readHeaderAnnotations(tool.inputSchema);
  } catch (error) {
    return { ok: false, reason: `inputSchema could not be read (it threw ${thrownName(error)})` };
  }
  if (read.problems.length > 0) return { ok: false, reason: read.problems.join("; ") };
  return { ok: true, headers: Object.freeze(read.headers) };
}

/**
 * Turns a call's arguments into `[Name, value]` pairs for `mcpRequestHeaders`: strings as they are
 * (`mcpRequestHeaders` encodes them), integers in decimal, booleans as `true`/`false`; none when the value is
 * absent or `null`. A value of the wrong type, a non-integer or an integer beyond ±(2^53−1) for an integer
 * property, or a string with a lone surrogate is an error: the call must fail rather than send a header that
 * disagrees with the body.
 *
 * @param headers The tool's compiled headers.
 * @param args The call's `arguments` (`undefined` when there are none).
 * @returns The pairs in annotation order, or an error naming the argument.
 * @example
 * ```ts
 * import { toolParamHeaders } from "./tool-headers.ts";
 * const headers = [{ property: "n", path: ["n"], header: "Count", type: "integer" }] as const;
 * toolParamHeaders(headers, { n: 42 }); // [["Count", "42"]]
 * toolParamHeaders(headers, { n: null }); // []
 * ```
 */
export function toolParamHeaders(
  headers: readonly ToolHeader[],
  args: unknown,
): Array<readonly [string, string]> | { readonly error: string } {
  if (headers.length === 0 || args === undefined) return [];
  if (!isObject(args)) {
    return { error: `Tool arguments must be an object, received ${describeValue(args)}` };
  }
  const pairs: Array<readonly [string, string]> = [];
  for (const header of headers) {
    const value = valueAt(args, header.path);
    if (value === undefined || value === null) continue;
    const text = headerText(header, value);
    if (typeof text !== "string") return text;
    pairs.push([header.header, text]);
  }
  return pairs;
}

/**
 * Why a caller's `Mcp-Param-*` headers do not fit its `tools/call` body, as a server must check them
 * (2026-07-28, "Server Validation"): each annotated argument with a value needs its header, equal to the
 * value once decoded from `=?base64?…?=` (an integer compared as a number: `42.0` is `42`); an argument
 * absent or `null` must have none; a header neither visible ASCII nor valid Base64 of UTF-8 is refused.
 * Headers no annotation names are ignored; an argument of the wrong type is left to the call
 * ({@linkcode toolParamHeaders}).
 *
 * @param headers The tool's compiled headers.
 * @param args The call's `arguments` (`undefined` when there are none).
 * @param headerOf Reads one request header by name, `null` when absent (`Headers.get`).
 * @returns `undefined` when the headers fit, else the `-32020` message.
 * @example
 * ```ts
 * import { paramHeaderMismatch } from "./tool-headers.ts";
 * const headers = [{ property: "region", path: ["region"], header: "Region", type: "string" }] as const;
 * const sent = new Headers({ "Mcp-Param-Region": "us-west1" });
 * paramHeaderMismatch(headers, { region: "us-west1" }, (name) => sent.get(name)); // undefined
 * paramHeaderMismatch(headers, { region: "eu-west1" }, (name) => sent.get(name));
 * // 'Header mismatch: Mcp-Param-Region "us-west1" differs from the body\'s argument "region", "eu-west1"'
 * ```
 */
export function paramHeaderMismatch(
  headers: readonly ToolHeader[],
  args: unknown,
  headerOf: (name: string) => string | null,
): string | undefined {
  for (const header of headers) {
    const name = `Mcp-Param-${header.header}`;
    const sent = headerOf(name);
    const value = isObject(args) ? valueAt(args, header.path) : undefined;
    const argument = JSON.stringify(header.path.join("."));
    if (value === undefined || value === null) {
      if (sent === null) continue;
      return `Header mismatch: ${name} ${
        quoteHeader(sent)
      } was sent, but the body's argument ${argument} has no value`;
    }
    const expected = headerText(header, value);
    if (typeof expected !== "string") continue;
    if (sent === null) {
      return `Header mismatch: ${name} is missing, and the body's argument ${argument} has a value`;
    }
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) {
      return `Header mismatch: ${name} ${
        quoteHeader(sent)
      } is not a valid value: expected visible ASCII, or "=?base64?…?=" holding Base64 of UTF-8`;
    }
    const same = header.type === "integer" ? sameNumber(decoded, value as number) : decoded === expected;
    if (!same) {
      return `Header mismatch: ${name} ${quoteHeader(sent)} differs from the body's argument ${argument}, ${
        quoteHeader(expected)
      }`;
    }
  }
  return undefined;
}

/** A decimal number literal, as an integer header may carry one (`42`, `-7`, `42.0`, `4.2e1`). */
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function sameNumber(text: string, value: number): boolean {
  const trimmed = text.trim();
  return NUMBER.test(trimmed) && Number(trimmed) === value;
}

function quoteHeader(text: string): string {
  return JSON.stringify(text.slice(0, 128));
}

/**
 * Splits a `tools/list` page into the tools to offer and those to exclude for an invalid
 * `x-mcp-header` annotation.
 *
 * @param tools The listed tools; neither the array nor any tool is modified.
 * @returns The valid tools (the same objects) and, for each excluded one, its name and why.
 * @example
 * ```ts
 * import { filterListedTools } from "./tool-headers.ts";
 * const { tools, excluded } = filterListedTools([
 *   { name: "ok", inputSchema: { type: "object" } },
 *   { name: "bad", inputSchema: { type: "object", properties: { v: { type: "string", "x-mcp-header": "" } } } },
 * ]);
 * // tools: [the "ok" tool]; excluded: [{ name: "bad", reason: 'x-mcp-header at "$.properties.v" must not be empty' }]
 * ```
 */
export function filterListedTools<T extends { readonly name: string; readonly inputSchema: unknown }>(
  tools: readonly T[],
): FilteredTools<T> {
  const kept: T[] = [];
  const excluded: Array<{ readonly name: string; readonly reason: string }> = [];
  for (const tool of tools) {
    const compiled = compileToolHeaders(tool);
    if (compiled.ok) kept.push(tool);
    else excluded.push({ name: tool.name, reason: compiled.reason });
  }
  return { tools: kept, excluded };
}

function headerText(header: ToolHeader, value: unknown): string | { readonly error: string } {
  const what = `Argument "${header.path.join(".")}" (header "Mcp-Param-${header.header}")`;
  if (header.type === "string" && typeof value === "string") {
    if (value.isWellFormed()) return value;
    return { error: `${what} must be a well-formed string, received one with a lone surrogate` };
  }
  if (header.type === "boolean" && typeof value === "boolean") return value ? "true" : "false";
  if (header.type === "integer" && typeof value === "number") {
    if (Number.isSafeInteger(value)) return String(value);
    const range = Number.isInteger(value) ? " between -(2^53-1) and 2^53-1" : "";
    return { error: `${what} must be an integer${range}, received ${describeValue(value)}` };
  }
  const expected = header.type === "integer" ? "an integer" : `a ${header.type}`;
  return { error: `${what} must be ${expected}, received ${describeValue(value)}` };
}

function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}
