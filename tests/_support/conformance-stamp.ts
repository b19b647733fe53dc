/**
 * The stamp scripts/install-conformance.mjs writes after it installed the conformance suite: the
 * SHA-256 of the suite's lock, in hex, and a line end. Computed here on its own, for the tests that
 * check the script and the ones that rely on it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the stamp is, from a project's root. */
export const SUITE_STAMP: string = join("tests", "conformance", "node_modules", ".sluice-installed");

/**
 * The stamp an install of the lock as it is now writes.
 *
 * @param root The project's root.
 * @returns The lock's SHA-256 in hex, and `"\n"`.
 */
export function expectedStamp(root: string): string {
  const lock = readFileSync(join(root, "tests", "conformance", "package-lock.json"));
  return `${createHash("sha256").update(lock).digest("hex")}\n`;
}

/**
 * Whether the suite in `root` was installed by the script from the lock as it is now.
 *
 * @param root The project's root.
 * @returns `true` when the stamp is there and matches the lock.
 */
export function suiteStamped(root: string): boolean {
  const stamp = join(root, SUITE_STAMP);
  return existsSync(stamp) && readFileSync(stamp, "utf8") === expectedStamp(root);
}
