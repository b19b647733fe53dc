/**
 * Starts `_hostile-http-server.ts` as a Node child process (so tests on Node, Deno and Bun can
 * all use it) and reads its log.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "../_support/modern-peer.ts";

/** A running hostile server. */
export interface HostilePeer {
  /** The origin, `http://127.0.0.1:<port>`: endpoints are `/modern`, `/legacy`, `/legacy-bad-get`. */
  readonly origin: string;
  /** Resolves once the server's log holds `entry` (such as `"endless-json: closed by the client"`). */
  waitFor(entry: string): Promise<void>;
  /** The log so far. */
  log(): Promise<string[]>;
  /** Ends the process and resolves once it has exited. */
  stop(): Promise<void>;
}

/** The stdio transport of `_hostile-stdio-server.ts`. */
export const HOSTILE_STDIO = {
  command: nodeBinary(),
  args: ["--import", "tsx", join("tests", "hardening", "_hostile-stdio-server.ts")],
  cwd: REPO_ROOT,
};

/**
 * Starts the server on a free loopback port.
 *
 * @throws {Error} When it exits before it listens.
 */
export async function startHostilePeer(): Promise<HostilePeer> {
  const child = spawn(
    nodeBinary(),
    ["--import", "tsx", join("tests", "hardening", "_hostile-http-server.ts"), "--watch-stdin"],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr = (stderr + chunk).slice(-4000));
  let origin: string;
  try {
    origin = await awaitLine(child, "stdout", /^HOSTILE_HTTP_URL (\S+)$/);
  } catch (e) {
    await stopChild(child);
    throw new Error(`startHostilePeer(): ${(e as Error).message}\n${stderr}`);
  }
  child.stdout.resume();
  return {
    origin,
    async waitFor(entry) {
      const response = await fetch(`${origin}/__wait?entry=${encodeURIComponent(entry)}`);
      await response.body?.cancel();
    },
    async log() {
      return await (await fetch(`${origin}/__log`)).json() as string[];
    },
    stop: () => stopChild(child),
  };
}
