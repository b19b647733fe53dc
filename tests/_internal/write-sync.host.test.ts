// writeAllSync on the runtime running this test: what it printed is out when it returns, a reader
// that falls behind is waited for, and one that leaves ends the writing without an error.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import { nodeBinary, REPO_ROOT } from "../_support/modern-peer.ts";

const CHILD = "tests/_support/write-sync-child.ts";

/** This runtime's command for the child script. */
function childCommand(count: number): [string, string[]] {
  const args = [CHILD, String(count)];
  if ("Deno" in globalThis) return [process.execPath, ["run", "-A", ...args]];
  if ("Bun" in globalThis) return [process.execPath, args];
  return [nodeBinary(), ["--import", "tsx", ...args]];
}

/** Runs the child, reading its stdout only after `readAfterMs`, or closing it at once (`"close"`). */
function run(
  count: number,
  reader: number | "close",
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const [command, args] = childCommand(count);
  const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  if (reader === "close") {
    child.stdout.destroy();
  } else {
    child.stdout.pause();
    setTimeout(() => {
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stdout.resume();
    }, reader);
  }
  return new Promise((resolve) => child.on("close", (code) => resolve({ stdout, stderr, code })));
}

describe("writeAllSync()", () => {
  test("waits for a reader that falls behind: all of 2 MB arrives, in order, though the process exits at once", async () => {
    const { stdout, stderr, code } = await run(20_000, 500);
    const lines = stdout.split("\n");
    assert.deepEqual(
      [code, stderr, lines.length, lines[0], lines[19_999], lines[20_000]],
      [0, "wrote 20000, reader there\n", 20_001, `${"-".repeat(98)}0`, `${"-".repeat(94)}19999`, ""],
    );
    assert.ok(lines.slice(0, 20_000).every((line, i) => line === String(i).padStart(99, "-")));
  });

  test("stops without an error when the reader closed the pipe", async () => {
    const { stderr, code } = await run(20_000, "close");
    assert.deepEqual([code, stderr], [0, "wrote 0, reader gone\n"]);
  });
});
