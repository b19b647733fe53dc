/// <reference types="node" />
/**
 * Loads a user's module (a policy file, a handler) by path, on every runtime: Deno and Bun import
 * TypeScript natively; Node imports `.ts` and `.js` through tsx's `tsImport`, so no loader flag is
 * needed and `export default` works without `"type": "module"`. JSON files are read and parsed. A
 * file that does not parse throws a {@linkcode SourceSyntaxError} with its line and column.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findJsonSyntaxError, type JsonSyntaxError } from "./_json-syntax-error.ts";

/** The runtime the command runs on. */
export type RuntimeName = "node" | "deno" | "bun";

/**
 * Names the runtime from its globals.
 *
 * @returns `"deno"`, `"bun"`, or `"node"` for anything else.
 */
export function runtimeName(): RuntimeName {
  const global = globalThis as { Deno?: unknown; Bun?: unknown };
  if (global.Deno !== undefined) return "deno";
  if (global.Bun !== undefined) return "bun";
  return "node";
}

/** A file that does not parse: where, and what its parser said. */
export class SourceSyntaxError extends SyntaxError {
  /** The file, an absolute path (the module's or one it imports). */
  readonly file: string;
  /** The line, from 1. */
  readonly line: number;
  /** The column, from 1, in UTF-16 code units. */
  readonly column: number;
  /** The text of the line. */
  readonly lineText: string;
  /** The parser's words, e.g. `Expected identifier but found ","`. */
  readonly what: string;

  /**
   * Creates the error; its message is `what (file:line:column)`.
   *
   * @param at Where and what.
   * @param cause What the parser threw, if anything.
   */
  constructor(
    at: { file: string; line: number; column: number; lineText: string; what: string },
    cause?: unknown,
  ) {
    super(`${at.what} (${at.file}:${at.line}:${at.column})`, cause === undefined ? {} : { cause });
    this.name = "SyntaxError";
    this.file = at.file;
    this.line = at.line;
    this.column = at.column;
    this.lineText = at.lineText;
    this.what = at.what;
  }
}

/** Thrown on Node for a `.ts` or `.js` file when tsx (an optional peer dependency) is not installed. */
export class TsxMissingError extends Error {
  /** @param cause What importing tsx threw. */
  constructor(cause: unknown) {
    super(
      'Node loads .ts and .js files with tsx, an optional peer dependency, and it is not installed: expected it in the project ("npm install tsx")',
      { cause },
    );
    this.name = "TsxMissingError";
  }
}

/**
 * Imports a module file, or reads a JSON file as `{ default: value }`.
 *
 * @param path An absolute path.
 * @returns The module's namespace.
 * @throws {SourceSyntaxError} When the file (or one it imports) does not parse.
 * @throws {TsxMissingError} On Node, for a module file, when tsx is not installed.
 * @throws {unknown} What importing or reading threw otherwise.
 */
export async function loadModule(path: string): Promise<Readonly<Record<string, unknown>>> {
  if (path.endsWith(".json")) return { default: parseJsonFile(path, utf8Text(path, await readFile(path))) };
  try {
    return await importModule(path);
  } catch (error) {
    const found = syntaxErrorOf(error);
    if (found === undefined) throw error;
    const lineText = await lineOf(found.file, found.line);
    const column = lineText === undefined ? found.column : columnIn(lineText, found);
    throw new SourceSyntaxError({ ...found, column, lineText: lineText ?? "" }, error);
  }
}

async function importModule(path: string): Promise<Readonly<Record<string, unknown>>> {
  const url = pathToFileURL(path).href;
  // An .mjs file is an ES module wherever it is: Node imports it without tsx.
  if (runtimeName() !== "node" || path.endsWith(".mjs")) return await import(url) as Record<string, unknown>;
  // Without `"type": "module"` tsx turns `export default` into CommonJS (Node 20 would refuse it in
  // a .js file), and the namespace wraps the exports once more.
  const { tsImport } = await import("tsx/esm/api").catch((error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    throw code === "ERR_MODULE_NOT_FOUND" && String(error).includes("'tsx'")
      ? new TsxMissingError(error)
      : error;
  });
  const namespace = await tsImport(url, import.meta.url) as Record<string, unknown>;
  const wrapped = namespace["default"] as { __esModule?: unknown } | null | undefined;
  return typeof wrapped === "object" && wrapped?.__esModule === true
    ? wrapped as Record<string, unknown>
    : namespace;
}

/**
 * A JSON file's text, UTF-8 by RFC 8259: other bytes would become U+FFFD and change a command or a
 * name unseen, so they fail at the first of them.
 */
function utf8Text(path: string, bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const text = new TextDecoder().decode(bytes);
    throw syntaxErrorAt(path, text, {
      offset: text.indexOf("\uFFFD"),
      what: "the file is not UTF-8 text, expected JSON in UTF-8",
    });
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function parseJsonFile(path: string, text: string): unknown {
  // A byte order mark is no JSON, but editors write it.
  const json = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const found = findJsonSyntaxError(json);
    if (found === undefined) throw error;
    throw syntaxErrorAt(path, json, found, error);
  }
  // A name given twice would keep only its last value: a limit a reviewer read would not apply.
  const repeated = findJsonSyntaxError(json, { duplicates: true });
  if (repeated !== undefined) throw syntaxErrorAt(path, json, repeated);
  return value;
}

const JSON_LINE_BREAK = /\r\n|\r|\n/;

function syntaxErrorAt(
  path: string,
  json: string,
  found: JsonSyntaxError,
  cause?: unknown,
): SourceSyntaxError {
  // JSON's line breaks: CR, LF and CR LF.
  const before = json.slice(0, found.offset).split(JSON_LINE_BREAK);
  const line = before.length;
  const column = (before.at(-1) ?? "").length + 1;
  const lineText = json.split(JSON_LINE_BREAK)[line - 1] ?? "";
  return new SourceSyntaxError({ file: path, line, column, lineText, what: found.what }, cause);
}

interface FoundSyntaxError {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /**
   * How the parser counts columns: Bun from 1 in UTF-16 code units (as a string does); esbuild
   * from 0 in UTF-8 bytes; Deno from 1 in code points, a tab counting two.
   */
  readonly counts: "utf16" | "esbuild" | "deno";
  readonly what: string;
}

/**
 * Reads the position out of what a runtime's parser threw: esbuild (tsx, on Node) only in its
 * message, Deno in a TypeError's message (`SyntaxError: <what> … at <url>:<line>:<column>`), Bun in
 * a BuildMessage's (or an AggregateError of them) `position`.
 */
function syntaxErrorOf(error: unknown): FoundSyntaxError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const bun = (error as { errors?: unknown[] }).errors?.[0] ?? error;
  const position = (bun as { position?: { file?: unknown; line?: unknown; column?: unknown } }).position;
  if (
    typeof position?.file === "string" && typeof position.line === "number" &&
    typeof position.column === "number" && position.line > 0
  ) {
    const what = (bun as { message?: unknown }).message;
    return {
      file: position.file,
      line: position.line,
      column: position.column,
      counts: "utf16",
      what: String(what),
    };
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message !== "string") return undefined;
  const esbuild = /^Transform failed with \d+ errors?:\n(.+):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (esbuild !== null) {
    const [, file = "", line = "", column = "", what = ""] = esbuild;
    return { file, line: Number(line), column: Number(column), counts: "esbuild", what };
  }
  const deno = /^SyntaxError: (.+)/.exec(message);
  const at = /\bat (file:\/\/\S+):(\d+):(\d+)\s*$/.exec(message);
  if (deno !== null && at !== null) {
    const [, url = "", line = "", column = ""] = at;
    return {
      file: fileURLToPath(url),
      line: Number(line),
      column: Number(column),
      counts: "deno",
      what: deno[1] ?? "",
    };
  }
  return undefined;
}

async function lineOf(file: string, line: number): Promise<string | undefined> {
  try {
    return (await readFile(file, "utf8")).split(/\r\n|[\n\r\u2028\u2029]/)[line - 1];
  } catch {
    return undefined;
  }
}

/** The column, from 1 in UTF-16 code units, that a parser's column means in the line. */
function columnIn(lineText: string, found: FoundSyntaxError): number {
  if (found.counts === "utf16") return found.column;
  if (found.counts === "esbuild") {
    const bytes = new TextEncoder().encode(lineText).slice(0, found.column);
    return new TextDecoder().decode(bytes).length + 1;
  }
  let width = 0;
  let index = 0;
  for (const char of lineText) {
    if (width + 1 >= found.column) break;
    width += char === "\t" ? 2 : 1;
    index += char.length;
  }
  return index + 1;
}

/**
 * Describes what loading threw, in one line: `SyntaxError: Unexpected token`.
 *
 * @param error What was thrown.
 * @returns Its name and the first line of its message.
 */
export function describeThrown(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split("\n")[0] ?? "";
  const first = error.message.split("\n").find((line) => line.trim() !== "") ?? "";
  return `${error.name}: ${first.trim()}`.slice(0, 300);
}
