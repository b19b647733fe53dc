/**
 * Starts `_hostile-http-server.ts` as a Node child process (so tests on Node, Deno and Bun can
 * all use it) and reads its log.
 *
 * @module
 */
import { join } from "node:path";
import { nodeBinary, REPO_ROOT, stopChild } from "../_support/modern-peer.ts";
import { spawnTestServer } from "../_support/hostile-process.ts";

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
  const { child, url: origin } = await spawnTestServer(
    join("tests", "hardening", "_hostile-http-server.ts"),
    "HOSTILE_HTTP_URL",
  );
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
