/**
 * Starts the modern-era peer (`tests/peers/modern-server.ts`) as a child process running on Node
 * with tsx, so tests on Node, Deno and Bun can all use it, and reads back what it received.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, dirname, join, sep } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * The repository root: the nearest folder above this file holding `tests/peers/modern-server.ts`
 * (this file also runs compiled, from `bench/.tmp/tests/_support/`).
 */
export const REPO_ROOT: string = findRoot(fileURLToPath(new URL(".", import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "tests", "peers", "modern-server.ts"))) {
      return dir.endsWith(sep) ? dir : dir + sep;
    }
  }
  throw new Error(`modern-peer: no repository root above ${from}`);
}

/** One HTTP request the peer received on `/mcp` (see `tests/peers/modern-server.ts`). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Header names lower-cased. */
  readonly headers: Record<string, string>;
  /** The parsed JSON body, or `null` when the body was not JSON. */
  readonly body: unknown;
  /** The HTTP status the peer answered. */
  readonly status: number;
}

/** A running modern peer. */
export interface ModernPeer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Every request received on `/mcp` since start (or the last `clearRequests()`), oldest first. */
  requests(): Promise<RecordedRequest[]>;
  /** Forgets the recorded requests. */
  clearRequests(): Promise<void>;
  /** Ends the child process and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * The path of a Node.js binary: `process.execPath` on Node, else the first `node` on `PATH`
 * (under Deno and Bun `process.execPath` is their own binary).
 *
 * @throws {Error} When not on Node and no `node` is on `PATH`.
 */
export function nodeBinary(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.deno === undefined && versions.bun === undefined) return process.execPath;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "node");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  throw new Error(`nodeBinary(): no "node" on PATH, needed to run test peers outside Node`);
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Kills `child` (SIGTERM, then SIGKILL after `graceMs`) and resolves once it has exited.
 *
 * @param child The process to end.
 * @param graceMs How long to wait after SIGTERM before SIGKILL.
 */
export async function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await done;
  clearTimeout(timer);
}

/**
 * Waits for the first line of `stream` matching `pattern`; rejects if the process exits first.
 *
 * @returns The first capture group of the match.
 */
export function awaitLine(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  pattern: RegExp,
): Promise<string> {
  const source = child[stream];
  if (source === null) return Promise.reject(new Error(`awaitLine(): the child's ${stream} is not piped`));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: source });
    const onExit = (code: number | null) => {
      lines.close();
      reject(new Error(`peer exited with code "${code}" before printing a line matching ${pattern}`));
    };
    child.once("exit", onExit);
    lines.on("line", (line) => {
      const match = pattern.exec(line);
      if (match === null) return;
      child.off("exit", onExit);
      lines.close();
      resolve(match[1] ?? line);
    });
  });
}

/**
 * Starts the modern peer on a free loopback port and resolves once it listens.
 *
 * @param fixtures `"conformance"` to serve the conformance suite's fixtures instead of the peer's
 *   own tools (`tests/peers/_conformance-tools.ts`).
 * @returns The running peer; call `stop()` when done.
 * @throws {Error} When the child exits before it listens.
 */
export async function startModernPeer(fixtures: "own" | "conformance" = "own"): Promise<ModernPeer> {
  const child = spawn(
    nodeBinary(),
    [
      "--import",
      "tsx",
      join("tests", "peers", "modern-server.ts"),
      "--watch-stdin",
      ...fixtures === "conformance" ? ["--conformance-fixtures"] : [],
    ],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr = (stderr + chunk).slice(-4000));
  let url: string;
  try {
    url = await awaitLine(child, "stdout", /^MODERN_PEER_URL (\S+)$/);
  } catch (e) {
    await stopChild(child);
    throw new Error(`startModernPeer(): ${(e as Error).message}\n${stderr}`);
  }
  child.stdout.resume();
  const log = new URL("/__requests", url).href;
  return {
    url,
    async requests() {
      const response = await fetch(log);
      return await response.json() as RecordedRequest[];
    },
    async clearRequests() {
      const response = await fetch(log, { method: "DELETE" });
      await response.body?.cancel();
    },
    stop: () => stopChild(child),
  };
}
