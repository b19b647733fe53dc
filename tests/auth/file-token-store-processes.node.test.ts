// createFileTokenStore() shared by processes: two Node processes writing keys of their own to one
// token file at the same moment keep every key (each change holds the file's lock), and claim one
// key once between them.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createFileTokenStore } from "../../src/auth/file-token-store.ts";

const root = await mkdtemp(join(tmpdir(), "sluice-token-processes-"));
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A process that sets 40 keys of its own, then claims "once": prints whether its claim won. */
const WRITER = `
import { createFileTokenStore } from ${
  JSON.stringify(new URL("../../src/auth/file-token-store.ts", import.meta.url).href)
};
const [path, prefix] = process.argv.slice(1);
const store = createFileTokenStore({ path });
for (let i = 0; i < 40; i++) await store.set(prefix + i, prefix);
process.stdout.write(String(await store.claim("once", 60_000)));
`;

/** Runs the writer in a Node process of its own: its exit code and what it printed. */
function writer(path: string, prefix: string): Promise<[number | null, string]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      WRITER,
      path,
      prefix,
    ], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve([code, out]));
  });
}

test("createFileTokenStore() in two processes at once keeps all 80 keys they set and lets one claim win", async () => {
  const path = join(root, "tokens.json");
  const ran = await Promise.all([writer(path, "a|"), writer(path, "b|")]);
  const store = createFileTokenStore({ path });
  const values = await Promise.all(
    ["a|", "b|"].flatMap((prefix) => Array.from({ length: 40 }, (_, i) => store.get(prefix + i))),
  );
  assert.deepEqual(
    [ran.map(([code]) => code), ran.map(([, won]) => won).sort(), values, await readdir(root)],
    [[0, 0], ["false", "true"], [...Array(40).fill("a|"), ...Array(40).fill("b|")], ["tokens.json"]],
  );
});
