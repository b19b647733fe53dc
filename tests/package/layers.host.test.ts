// The layers of src/ import only downward: each folder (and each shared file at the root of src/)
// has its place in LAYERS, bottom first, and every relative import goes to its own layer or one
// below it. A new folder must be given its place here before anything imports it. A _-prefixed
// file is private to its folder.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Bottom first. The entry files of subpaths at the root of src/ are the top. */
const LAYERS: readonly (readonly string[])[] = [
  ["_internal"],
  ["errors.ts", "upstream-auth-error.ts"],
  ["protocol"],
  ["limits"],
  ["checks"],
  ["policy"],
  ["transport"],
  ["handler"],
  ["notify"],
  ["chain"],
  ["auth"],
  ["client"],
  ["front"],
  ["playground"],
  ["adapters"],
  ["cli"],
  ["legacy.ts", "types.ts", "upstash.ts"],
];

const RANK = new Map(LAYERS.flatMap((layer, rank) => layer.map((part) => [part, rank] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The folder of src/ a path is in, or its name when it sits at the root of src/. */
function partOf(path: string): string {
  return relative(SRC, path).split(sep)[0] as string;
}

/** Every relative import and re-export of src/, as "from -> to" paths relative to src/. */
function imports(): { from: string; to: string }[] {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom "(\.[^"]+)"/gms)]
      .map((match) => resolve(dirname(file), match[1] as string))
      .filter((target) => target.startsWith(SRC + sep))
      .map((target) => ({ from: file, to: target }));
  });
}

describe("the layers of src/", () => {
  test("every folder and root file of src/ has a layer", () => {
    const parts = readdirSync(SRC).filter((name) => !name.startsWith("."));
    assert.deepEqual(parts.filter((part) => !RANK.has(part)), []);
  });

  test("every import goes to the same layer or one below it", () => {
    const upward = imports()
      .filter(({ from, to }) => (RANK.get(partOf(to)) ?? Infinity) > (RANK.get(partOf(from)) ?? -1))
      .map(({ from, to }) => `${relative(SRC, from)} imports ${relative(SRC, to)}`);
    assert.deepEqual(upward, []);
  });

  test("a _-prefixed file is imported only from its own folder", () => {
    // "_private.ts means private to its folder" (STYLE.md): a helper other folders import is
    // public there, and named so.
    const crossing = imports()
      .filter(({ from, to }) => basename(to).startsWith("_") && dirname(to) !== dirname(from))
      .map(({ from, to }) => `${relative(SRC, from)} imports ${relative(SRC, to)}`);
    assert.deepEqual(crossing, []);
  });

  test("the check reads imports and re-exports, static and type-only", () => {
    const found = new Set(imports().map(({ from, to }) => `${relative(SRC, from)} -> ${relative(SRC, to)}`));
    const expected = [
      `chain${sep}chain.ts -> checks${sep}verdict.ts`,
      `legacy.ts -> client${sep}legacy${sep}legacy-client.ts`,
      `types.ts -> protocol${sep}jsonrpc.ts`,
    ];
    assert.deepEqual(expected.filter((edge) => !found.has(edge)), []);
  });
});
