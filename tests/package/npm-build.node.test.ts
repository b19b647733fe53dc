import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as sluice from "../../mod.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the npm build (tsc emit) loads under plain Node with the same exports as mod.ts", () => {
  // Inside node_modules so the build resolves its dependencies as an installed package would.
  mkdirSync(`${root}node_modules/.cache`, { recursive: true });
  const out = mkdtempSync(`${root}node_modules/.cache/sluice-npm-build-`);
  try {
    const tsc = spawnSync(`${root}node_modules/.bin/tsc`, ["-p", "tsconfig.build.json", "--outDir", out], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    const load = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import(${
          JSON.stringify(join(out, "mod.js"))
        }).then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`,
      ],
      { encoding: "utf8", cwd: root },
    );
    assert.equal(load.status, 0, load.stderr);
    assert.deepEqual(JSON.parse(load.stdout), Object.keys(sluice).sort());
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
