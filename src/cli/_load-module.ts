/// <reference types="node" />
/**
 * Loads a user's module (a policy file, a handler) by path, on every runtime: Deno and Bun
 * import TypeScript natively; Node imports `.ts` and `.js` files through tsx's API (`tsImport`),
 * so the command works from an installed package without a loader flag, and a file's
 * `export default` works whether or not its folder says `"type": "module"`. JSON files are read
 * and parsed.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";

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

/**
 * Imports a module file, or reads a JSON file as `{ default: value }`.
 *
 * @param path An absolute path.
 * @returns The module's namespace.
 * @throws {unknown} What importing or parsing threw.
 */
export async function loadModule(path: string): Promise<Readonly<Record<string, unknown>>> {
  if (path.endsWith(".json")) return { default: JSON.parse(await readFile(path, "utf8")) as unknown };
  const url = pathToFileURL(path).href;
  if (runtimeName() !== "node") return await import(url) as Record<string, unknown>;
  // tsx also turns `export default` into CommonJS in a folder without `"type": "module"`, where
  // Node 20 would refuse it in a .js file; the namespace then wraps the exports once more.
  const { tsImport } = await import("tsx/esm/api");
  const namespace = await tsImport(url, import.meta.url) as Record<string, unknown>;
  const wrapped = namespace["default"] as { __esModule?: unknown } | null | undefined;
  return typeof wrapped === "object" && wrapped?.__esModule === true
    ? wrapped as Record<string, unknown>
    : namespace;
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
