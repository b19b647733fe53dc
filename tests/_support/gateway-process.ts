/**
 * Runs the gateway as its users do, in a process of its own: `node bin/sluice.mjs serve` on a
 * free loopback port, with a folder of JSON policy files written for the occasion, and reads its
 * URL from the banner. Stopping it sends SIGTERM (the command closes every session and stdio
 * child it started, then exits 0).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Policy } from "../../src/legacy.ts";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "./modern-peer.ts";

/** A running `sluice serve`. */
export interface GatewayProcess {
  /** The gateway's base URL, `http://127.0.0.1:<port>`; servers are at `<url>/mcp/<server>`. */
  readonly url: string;
  /** What the process wrote to stderr so far (the last 8000 characters). */
  stderr(): string;
  /**
   * Sends SIGTERM and resolves once the process has exited.
   *
   * @returns The exit code (`null` when killed by a signal).
   */
  stop(): Promise<number | null>;
}

/**
 * Starts `sluice serve --port 0` with the given policies (one `<server>.policy.json` each).
 *
 * @param policies The policies (plain data: each is written as JSON).
 * @param flags More flags for `sluice serve`.
 * @param stateKey The `SLUICE_STATE_KEY` (32 bytes or more).
 * @returns The running gateway, once it listens.
 * @throws {Error} When the process exits before it listens, with its stderr.
 */
export async function startGatewayProcess(
  policies: readonly Policy[],
  flags: readonly string[] = [],
  stateKey = "gateway-process-state-key-0123456789abcdef",
): Promise<GatewayProcess> {
  const folder = mkdtempSync(join(tmpdir(), "sluice-gateway-"));
  for (const policy of policies) {
    writeFileSync(join(folder, `${policy.server}.policy.json`), JSON.stringify(policy));
  }
  const child = spawn(
    nodeBinary(),
    [join(REPO_ROOT, "bin", "sluice.mjs"), "serve", "--port", "0", "--policies", folder, ...flags],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, SLUICE_STATE_KEY: stateKey },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr = (stderr + chunk).slice(-8000));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let url: string;
  try {
    url = await awaitLine(child, "stderr", /^sluice front listening on (http:\/\/\S+)$/);
  } catch (e) {
    await stopChild(child);
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`startGatewayProcess(): ${(e as Error).message}\n${stderr}`);
  }
  // Reading the line paused stderr: its collector reads on.
  child.stderr.resume();
  child.stdout.resume();
  return {
    url,
    stderr: () => stderr,
    async stop() {
      await stopChild(child, 10_000);
      rmSync(folder, { recursive: true, force: true });
      return await exited;
    },
  };
}
