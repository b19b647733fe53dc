/**
 * The package.json that `npm pack` and `npm publish` put in the tarball: the repository's with no
 * "scripts". Every script is for the repository only (they run files under scripts/ and tests/,
 * which the tarball does not carry), and one of them, "postinstall", sets up the conformance
 * suite: npm runs a root project's postinstall on `npm ci` in a clone, where it is wanted, but it
 * would run on every install of the tarball too. A guard inside postinstall would still ship an
 * install script (flagged by npm, blocked by pnpm and Bun); "prepare" would also run on installs
 * from git. So "prepack" runs `strip` (after the build) and "postpack" runs `restore`, the way
 * clean-package does: the tarball is made from package.json as it is between the two.
 *
 * Usage: tsx scripts/pack-manifest.ts strip|restore
 *
 * @module
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";

const manifest = new URL("../package.json", import.meta.url);
// Beside package.json, and left there (visible in `git status`) if a pack dies between the steps.
const saved = new URL("../package.json.packing", import.meta.url);
const step = process.argv[2];

if (step === "strip") {
  if (existsSync(saved)) {
    console.error(
      `pack-manifest: a previous pack did not finish, "${saved.pathname}" holds the repository's package.json: ` +
        "expected none, run `npx tsx scripts/pack-manifest.ts restore` first",
    );
    process.exit(1);
  }
  copyFileSync(manifest, saved);
  const { scripts: _scripts, ...packed } = JSON.parse(readFileSync(manifest, "utf8"));
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`);
} else if (step === "restore") {
  if (existsSync(saved)) {
    copyFileSync(saved, manifest);
    rmSync(saved);
  }
} else {
  console.error(`pack-manifest: the step must be "strip" or "restore", received "${step}"`);
  process.exit(2);
}
