import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("deno publish --dry-run passes the slow-types check and publishes only the manifest, mod.ts, src/**, README.md and LICENSE", () => {
  const result = spawnSync(
    `${root}node_modules/.bin/deno`,
    // deno.json, not jsr.json: only deno.json makes Deno read package.json's npm dependencies.
    ["publish", "--dry-run", "--allow-dirty"],
    { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
  );
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 0, output);
  assert.match(output, /Success Dry run complete/);
  const listed = [...output.matchAll(/^\s+(file:\/\/\S+) \(/gm)]
    .map((m) => relative(root, fileURLToPath(m[1] ?? "")))
    .sort();
  assert.deepEqual(
    listed.filter((f) => !/^(deno\.json|mod\.ts|src\/.+\.ts|README\.md|LICENSE)$/.test(f)),
    [],
  );
  assert.deepEqual(listed.filter((f) => !f.startsWith("src/")), [
    "LICENSE",
    "README.md",
    "deno.json",
    "mod.ts",
  ]);
});
