// The repository's postinstall: installs the official conformance suite into
// tests/conformance/node_modules (it needs Node 22, which it brings, kept out of the root's
// node_modules/.bin), once per version of tests/conformance/package-lock.json.
//
// npm runs a project's postinstall on more than `npm ci`: on every `npm install`, and when the
// first `npx sluice` in a clone links the project into npx's cache. Reinstalling there took about
// 20 s and went to the registry; offline, `npx sluice` failed, and the suite was gone (`npm ci`
// empties node_modules before it installs). So a stamp of the lock's hash, written after a successful install, says
// the suite is in place: a failed or older install has no matching stamp.
//
// Plain Node, no dependencies: it runs before anything else is known to work. Without the lock
// (tests/ left out of a checkout) it does nothing; the published package carries no scripts.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { spawnSync } from "node:child_process";
import process from "node:process";

const LOCK = "tests/conformance/package-lock.json";
const STAMP = "tests/conformance/node_modules/.sluice-installed";

if (existsSync(LOCK)) {
  const hash = createHash("sha256").update(readFileSync(LOCK)).digest("hex");
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === hash) {
    console.log(`postinstall: the conformance suite is installed already (${LOCK} unchanged)`);
  } else {
    const { status } = spawnSync("npm ci --prefix tests/conformance --no-audit --no-fund", {
      shell: true,
      stdio: "inherit",
    });
    if (status !== 0) process.exit(status ?? 1);
    // A lock without packages leaves no node_modules behind.
    mkdirSync(dirname(STAMP), { recursive: true });
    writeFileSync(STAMP, `${hash}\n`);
  }
}
