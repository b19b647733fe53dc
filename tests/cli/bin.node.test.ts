// The npm bin, bin/sluice.mjs: from a clone it runs the TypeScript source through tsx's API; in an
// installed package (a dist/ beside it, and no tsconfig.json: a clone where npm pack left a build
// still runs the source) it runs the build.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { HELP } from "../../src/cli/mod.ts";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { SUITE_STAMP, suiteStamped } from "../_support/conformance-stamp.ts";

const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

// Node only (a `.node.` file); it skips itself when a directory run hands it to Deno or Bun.
const skip = process.versions.deno === undefined && process.versions.bun === undefined ? false : "Node only";

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  bin?: Record<string, string>;
};

describe("bin/sluice.mjs", { skip }, () => {
  test("the bin runs the TypeScript source from a clone: --help, --version, check", () => {
    assert.deepEqual(run(process.execPath, ["bin/sluice.mjs", "--help"]), {
      code: 0,
      stdout: HELP,
      stderr: "",
    });
    assert.deepEqual(run(process.execPath, ["bin/sluice.mjs", "--version"]), {
      code: 0,
      stdout: "sluice 0.1.0\n",
      stderr: "",
    });
    const check = run(process.execPath, ["bin/sluice.mjs", "check", "policies"]);
    assert.equal(check.code, 0, check.stderr);
    assert.ok(check.stdout.endsWith('All 3 policy files in "policies" compile: demo, everything, github\n'));
    const usage = run(process.execPath, ["bin/sluice.mjs", "serve", "--prot", "1"]);
    assert.deepEqual([usage.code, usage.stdout], [2, ""]);
  });

  test("a reader that closes the pipe ends the output, not the command: no stack trace, the command's own code", async () => {
    // `sluice check policies | head -1`, with the reader gone before the first line.
    const child = spawn(process.execPath, ["bin/sluice.mjs", "check", "policies"], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on("close", done));
    assert.deepEqual([code, stderr], [0, ""]);
  });

  test("the bin runs the source in a clone that npm pack left a build in, and the build where there is no tsconfig.json", () => {
    // Inside node_modules so tsx resolves from the project, as in the clone.
    mkdirSync(join(REPO_ROOT, "node_modules", ".cache"), { recursive: true });
    const root = mkdtempSync(join(REPO_ROOT, "node_modules", ".cache", "sluice-cli-clone-"));
    try {
      const main = (said: string) => `export async function main() { console.log("${said}"); return 0; }\n`;
      for (const folder of ["bin", "dist/src/cli", "src/cli"]) {
        mkdirSync(join(root, folder), { recursive: true });
      }
      copyFileSync(join(REPO_ROOT, "bin", "sluice.mjs"), join(root, "bin", "sluice.mjs"));
      writeFileSync(join(root, "dist", "src", "cli", "mod.js"), main("the build"));
      writeFileSync(join(root, "src", "cli", "mod.ts"), main("the source"));
      writeFileSync(join(root, "tsconfig.json"), "{}\n");
      const bin = [join(root, "bin", "sluice.mjs")];
      assert.deepEqual(run(process.execPath, bin), { code: 0, stdout: "the source\n", stderr: "" });
      rmSync(join(root, "tsconfig.json"));
      assert.deepEqual(run(process.execPath, bin), { code: 0, stdout: "the build\n", stderr: "" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("the bin runs the npm build when dist/ is beside it, as in an installed package", () => {
    // Inside node_modules so the build resolves its dependencies as an installed package would.
    mkdirSync(join(REPO_ROOT, "node_modules", ".cache"), { recursive: true });
    const pkg = mkdtempSync(join(REPO_ROOT, "node_modules", ".cache", "sluice-cli-bin-"));
    try {
      const tsc = run(join(REPO_ROOT, "node_modules", ".bin", "tsc"), [
        "-p",
        "tsconfig.build.json",
        "--outDir",
        join(pkg, "dist"),
      ]);
      assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
      mkdirSync(join(pkg, "bin"));
      copyFileSync(join(REPO_ROOT, "bin", "sluice.mjs"), join(pkg, "bin", "sluice.mjs"));
      const version = run(process.execPath, [join(pkg, "bin", "sluice.mjs"), "--version"]);
      assert.deepEqual(version, { code: 0, stdout: "sluice 0.1.0\n", stderr: "" });
      const check = run(process.execPath, [join(pkg, "bin", "sluice.mjs"), "check", "policies"]);
      assert.equal(check.code, 0, check.stderr);
      assert.ok(
        check.stdout.endsWith('All 3 policy files in "policies" compile: demo, everything, github\n'),
      );
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  });

  test("npx sluice --help runs the bin from the repository root, offline, installing nothing", {
    skip: manifest.bin?.["sluice"] === undefined
      ? 'package.json declares no "bin": { "sluice" } yet'
      : !suiteStamped(REPO_ROOT) && process.env.CI !== "true"
      ? "the conformance suite was installed before scripts/install-conformance.mjs stamped it: run npm ci"
      : false,
  }, () => {
    assert.ok(
      suiteStamped(REPO_ROOT),
      "expected the postinstall's stamp of tests/conformance/package-lock.json",
    );
    // An empty npm cache, as on a new machine: npx links the clone into it and runs the clone's
    // postinstall, which must find the suite in place (a reinstall, offline with nothing cached,
    // would fail the command).
    const cache = mkdtempSync(join(tmpdir(), "sluice-npx-cache-"));
    const stamped = statSync(join(REPO_ROOT, SUITE_STAMP)).mtimeMs;
    try {
      const result = spawnSync("npx", ["--offline", "sluice", "--help"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, npm_config_cache: cache, npm_config_registry: "http://127.0.0.1:9/" },
      });
      assert.deepEqual(
        { code: result.status, stdout: result.stdout, stderr: result.stderr },
        { code: 0, stdout: HELP, stderr: "" },
      );
      assert.equal(statSync(join(REPO_ROOT, SUITE_STAMP)).mtimeMs, stamped);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
