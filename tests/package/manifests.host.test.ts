import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), "utf8"));
const deno = read("deno.json");
const jsr = read("jsr.json");
const npm = read("package.json");

describe("manifests", () => {
  test("name @sluice/mcp, the same version and the MIT license in deno.json, jsr.json and package.json", () => {
    const pick = (m: { name: string; version: string; license: string }) => [m.name, m.version, m.license];
    assert.deepEqual([pick(deno), pick(jsr), pick(npm)], [
      ["@sluice/mcp", npm.version, "MIT"],
      ["@sluice/mcp", npm.version, "MIT"],
      ["@sluice/mcp", npm.version, "MIT"],
    ]);
  });

  test("deno.json and jsr.json export the same map", () => {
    assert.deepEqual(deno.exports, jsr.exports);
  });

  test("package.json exports the same subpaths, each the npm build of the same source file", () => {
    const built = Object.fromEntries(
      Object.entries(jsr.exports as Record<string, string>).map(([key, source]) => {
        const js = source.replace(/^\.\//, "./dist/").replace(/\.ts$/, ".js");
        return [key, { types: js.replace(/\.js$/, ".d.ts"), default: js }];
      }),
    );
    assert.deepEqual(npm.exports, built);
  });

  test("publish the same files to JSR from deno.json and jsr.json", () => {
    assert.deepEqual(deno.publish, jsr.publish);
    assert.deepEqual(jsr.publish, { include: ["mod.ts", "src/**/*.ts", "README.md", "LICENSE"] });
  });

  test("package.json approves the install scripts of Deno, Bun and workerd", () => {
    assert.deepEqual(
      [npm.allowScripts.deno, npm.allowScripts.bun, npm.allowScripts.workerd, npm.allowScripts.esbuild],
      [true, true, true, true],
    );
  });
});
