import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as sluice from "../../mod.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the npm build (tsc emit) loads under plain Node with the same exports as the sources, every subpath", async () => {
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
    // Every subpath export loads from the build too, and exports what its source does.
    const exports = JSON.parse(readFileSync(`${root}package.json`, "utf8")).exports as Record<
      string,
      { default: string }
    >;
    for (const [subpath, target] of Object.entries(exports)) {
      const built = join(out, target.default.replace(/^\.\/dist\//, ""));
      const source = `${root}${target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts")}`;
      const names = Object.keys(await import(source)).sort();
      const loaded = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import(${JSON.stringify(built)}).then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`,
        ],
        { encoding: "utf8", cwd: root },
      );
      assert.equal(loaded.status, 0, `${subpath}: ${loaded.stderr}`);
      assert.deepEqual([subpath, JSON.parse(loaded.stdout)], [subpath, names]);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
