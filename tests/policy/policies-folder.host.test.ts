import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { policies } from "../../policies/mod.ts";

const folder = new URL("../../policies/", import.meta.url);

test("policies/mod.ts imports every *.policy.ts file of the folder, in file-name order", () => {
  const files = readdirSync(folder).filter((name) => name.endsWith(".policy.ts")).sort();
  const index = readFileSync(new URL("mod.ts", folder), "utf8");
  const imported = [...index.matchAll(/from "\.\/([^"]+\.policy\.ts)"/g)].map((m) => m[1]);
  assert.deepEqual(imported, files);
  assert.equal(policies.length, files.length);
});

test("every policy in policies/ compiles, and server ids are unique", async () => {
  const ids: string[] = [];
  for (const name of readdirSync(folder).filter((n) => n.endsWith(".policy.ts")).sort()) {
    const module = await import(new URL(name, folder).href);
    const compiled = compilePolicy(module.default, { source: `policies/${name}` });
    ids.push(compiled.server);
  }
  assert.deepEqual(ids, policies.map((p) => p.server));
  assert.equal(new Set(ids).size, ids.length);
});
