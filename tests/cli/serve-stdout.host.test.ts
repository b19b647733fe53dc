// `sluice serve` in a process of its own on this runtime, whose stdout reader stalls: the command
// goes on answering, keeps at most 4 MiB of decision lines, and says how many it dropped.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { runtimeName } from "../../src/cli/_load-module.ts";
import {
  awaitLine,
  type ModernPeer,
  nodeBinary,
  REPO_ROOT,
  startModernPeer,
} from "../_support/modern-peer.ts";
import { callsWhileStalled, stalledExpected, stalledOutcome } from "../runtime/_entry-cases.ts";
import { policyJson, type TempDir, tempDir } from "./_scripted-io.ts";

let peer: ModernPeer;
let dir: TempDir;
before(async () => {
  peer = await startModernPeer();
  dir = tempDir({ "modern.policy.json": policyJson("modern", peer.url) });
});
after(async () => {
  await peer?.stop();
  dir?.remove();
});

/** `sluice serve` as this runtime runs the command: Node the npm bin, Deno and Bun the source. */
function sluiceServe() {
  const flags = ["serve", "--port", "0", "--policies", dir.path, "--decisions", "json"];
  const command = runtimeName() === "node"
    ? [nodeBinary(), join(REPO_ROOT, "bin", "sluice.mjs"), ...flags]
    : runtimeName() === "deno"
    ? [join(REPO_ROOT, "node_modules", ".bin", "deno"), "run", "-A", "src/cli/mod.ts", ...flags]
    : [process.execPath, "src/cli/mod.ts", ...flags];
  return spawn(command[0] as string, command.slice(1), {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      SLUICE_STATE_KEY: "serve-stdout-state-key-0123456789abcdef",
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("sluice serve whose stdout reader stalls", () => {
  test("serve answers 40 calls while nothing reads its stdout, keeps the first lines whole and in order, and says once on stderr how many it dropped", async () => {
    const child = sluiceServe();
    try {
      const url = await awaitLine(child, "stderr", /^sluice front listening on (http:\/\/\S+)$/);
      const stalled = await callsWhileStalled(child, url);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // How it ended is not compared: Deno's child_process reports a child that exited after a
      // SIGTERM as killed by it.
      child.kill("SIGTERM");
      await exited;
      assert.deepEqual(stalledOutcome(stalled, "sluice serve"), stalledExpected(stalled));
    } finally {
      // SIGKILL: a command stuck writing hears no SIGTERM, and Deno's child_process sends one signal only.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
