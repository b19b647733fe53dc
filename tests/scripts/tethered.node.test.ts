// The tether the tests start redis-server and workerd with (tests/_support/tethered.ts): a test
// process killed by a signal, which can run no exit handler, leaves no helper running.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { awaitLine, REPO_ROOT } from "../_support/modern-peer.ts";
import { eventually } from "../_support/eventually.ts";
import { redisTestsEnabled } from "../_support/redis-server.ts";
import { spawnTethered, stopTethered } from "../_support/tethered.ts";

/** Whether anything accepts a connection on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("tethered helpers", { timeout: 60_000 }, () => {
  test("stopTethered() passes SIGTERM on to the command and ends with the command's exit status", async () => {
    const child = spawnTethered("sh", ["-c", "trap 'exit 7' TERM; echo ready; while :; do sleep 0.05; done"]);
    await awaitLine(child, "stdout", /^(ready)$/);
    await stopTethered(child);
    assert.deepEqual([child.exitCode, child.signalCode], [7, null]);
  });

  if (redisTestsEnabled()) {
    test("a test process killed with SIGKILL leaves no redis-server running", async () => {
      const script = 'import { startRedis } from "./tests/_support/redis-server.ts";' +
        "const redis = await startRedis(); console.log(`PORT ${redis.port}`); setInterval(() => {}, 1000);";
      const parent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const port = Number(await awaitLine(parent, "stdout", /^PORT (\d+)$/));
      assert.equal(await listening(port), true);
      const killed = new Promise((resolve) => parent.once("exit", (_code, signal) => resolve(signal)));
      parent.kill("SIGKILL");
      assert.equal(await killed, "SIGKILL");
      await eventually("redis-server gone", async () => (await listening(port)) ? undefined : true);
    });
  }
});
