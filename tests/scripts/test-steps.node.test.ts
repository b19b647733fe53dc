// `npm test -- <steps>` (scripts/test.ts): a name that is no step is refused before anything
// runs, so a mistyped step cannot pass as a green run of nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../_support/modern-peer.ts";

test("scripts/test.ts refuses step names it does not know with exit 2, naming them and every step, and runs nothing", () => {
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "scripts", "test.ts"), "node", "typecheck-libs", "tests/x.test.ts"],
    { cwd: REPO_ROOT, encoding: "utf8" },
  );
  assert.deepEqual([run.status, run.stdout, run.stderr], [
    2,
    "",
    'npm test: "typecheck-libs", "tests/x.test.ts" are not steps: expected some of typecheck, typecheck-lib, ' +
    "typecheck-browser, lint, format, deno, doc, bun, workerd, conformance, node\n",
  ]);
});
