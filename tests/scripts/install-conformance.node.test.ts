// The repository's postinstall (scripts/install-conformance.mjs): it installs the conformance
// suite once per version of its lock, since npm runs it on more than `npm ci` (every `npm install`,
// and the first `npx sluice` in a clone). Each case runs the script in a project of its own, with a
// lock that names no packages, so `npm ci` works offline (npm is told it is, and its registry is
// an unused loopback port).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { expectedStamp, SUITE_STAMP } from "../_support/conformance-stamp.ts";

const SCRIPT = join(REPO_ROOT, "scripts", "install-conformance.mjs");
const SKIPPED =
  "postinstall: the conformance suite is installed already (tests/conformance/package-lock.json unchanged)\n";

/** Runs `work` in a fresh project folder, removed afterwards. */
function inProject(work: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "sluice-postinstall-"));
  try {
    work(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Writes the suite's package.json and its lock, named `name`, with no packages. */
function writeSuite(root: string, name: string): void {
  const suite = join(root, "tests", "conformance");
  mkdirSync(suite, { recursive: true });
  writeFileSync(join(suite, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true }));
  const lock = {
    name,
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name, version: "1.0.0" } },
  };
  writeFileSync(join(suite, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
}

/** Makes the suite's package.json ask for a package its lock lacks: `npm ci` then refuses to run. */
function breakPackageJson(root: string): void {
  const manifest = { name: "suite", version: "1.0.0", private: true, dependencies: { "left-pad": "1.3.0" } };
  writeFileSync(join(root, "tests", "conformance", "package.json"), JSON.stringify(manifest));
}

/** Runs the postinstall in `root`, as npm would (the project's root as the working directory). */
function postinstall(root: string): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [SCRIPT], {
    cwd: root,
    encoding: "utf8",
    env: {
      ...process.env,
      npm_config_offline: "true",
      npm_config_registry: "http://127.0.0.1:9/",
      npm_config_update_notifier: "false",
    },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout };
}

const stampOf = (root: string) => readFileSync(join(root, SUITE_STAMP), "utf8");

describe("the postinstall (scripts/install-conformance.mjs)", { timeout: 120_000 }, () => {
  test("installs the suite and stamps the lock's hash; a second run installs nothing", () =>
    inProject((root) => {
      writeSuite(root, "suite-a");
      assert.equal(postinstall(root).status, 0);
      assert.equal(stampOf(root), expectedStamp(root));
      // Were npm ci run now, it would fail: package.json no longer matches the lock.
      breakPackageJson(root);
      assert.deepEqual(postinstall(root), { status: 0, stdout: SKIPPED });
    }));

  test("a changed lock installs again and stamps the new hash", () =>
    inProject((root) => {
      writeSuite(root, "suite-b");
      assert.equal(postinstall(root).status, 0);
      writeSuite(root, "suite-c");
      assert.equal(postinstall(root).status, 0);
      // Only an install writes the stamp: a skip would have left the old lock's hash.
      assert.equal(stampOf(root), expectedStamp(root));
    }));

  test("a failed install leaves no stamp, so the next run tries again", () =>
    inProject((root) => {
      writeSuite(root, "suite-d");
      breakPackageJson(root);
      assert.equal(postinstall(root).status, 1);
      assert.equal(existsSync(join(root, SUITE_STAMP)), false);
      writeSuite(root, "suite-d");
      assert.equal(postinstall(root).status, 0);
      assert.equal(stampOf(root), expectedStamp(root));
    }));

  test("without the suite's lock it does nothing", () =>
    inProject((root) => {
      assert.deepEqual(postinstall(root), { status: 0, stdout: "" });
      assert.equal(existsSync(join(root, "tests")), false);
    }));
});
