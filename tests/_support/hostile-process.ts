/**
 * Starts the hostile test servers as real child processes (Node with tsx, so tests on Node, Deno
 * and Bun can all use them) and reads back what they received.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "./modern-peer.ts";

/** A hostile HTTP server running in its own process. */
export interface HostileHttpServer<Log> {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The port it listens on (a new server may be started on it after this one dies). */
  readonly port: number;
  /** What it received since start or the last `clearLog()`. */
  log(): Promise<Log>;
  /** Forgets the log. */
  clearLog(): Promise<void>;
  /** Resolves once the process has exited (on its own or by `stop()`). */
  readonly exited: Promise<number | null>;
  /** Ends the process (SIGTERM, then SIGKILL) and resolves once it has exited. */
  stop(): Promise<void>;
}

/** The hostile servers that speak HTTP. */
export type HostileHttpScript = "hostile-modern-server.ts" | "hostile-legacy-http-server.ts";

/**
 * Starts a hostile HTTP server on a free loopback port (or `port`) and resolves once it listens.
 *
 * @param script Which server, a file in `tests/_support/`.
 * @param options `port`: listen there (to replace a server that died).
 * @returns The running server.
 * @throws {Error} When the process exits before it listens.
 */
export async function startHostileHttp<Log>(
  script: HostileHttpScript,
  options: { readonly port?: number } = {},
): Promise<HostileHttpServer<Log>> {
  const extra = options.port === undefined ? [] : [`--port=${options.port}`];
  const { child, url } = await spawnTestServer(join("tests", "_support", script), "HOSTILE_URL", extra);
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
  const admin = new URL("/__log", url).href;
  return {
    url,
    port: Number(new URL(url).port),
    async log() {
      const response = await fetch(admin);
      return await response.json() as Log;
    },
    async clearLog() {
      const response = await fetch(admin, { method: "DELETE" });
      await response.body?.cancel();
    },
    exited,
    stop: () => stopChild(child),
  };
}

/**
 * Starts a test server script (a path from the repository root) under Node with tsx and
 * `--watch-stdin` (it exits when the test process does), and resolves once it prints
 * `<marker> <url>` on stdout.
 *
 * @param script The script, e.g. `tests/_support/hostile-modern-server.ts`.
 * @param marker The word its ready line starts with.
 * @param args More arguments for the script.
 * @returns The child process and the URL it printed.
 * @throws {Error} When the process exits before it is ready, with the end of its stderr.
 */
export async function spawnTestServer(
  script: string,
  marker: string,
  args: readonly string[] = [],
): Promise<{ readonly child: ChildProcess; readonly url: string }> {
  const child = spawn(nodeBinary(), ["--import", "tsx", script, "--watch-stdin", ...args], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr = (stderr + chunk).slice(-4000));
  try {
    const url = await awaitLine(child, "stdout", new RegExp(`^${marker} (\\S+)$`));
    child.stdout.resume();
    return { child, url };
  } catch (e) {
    await stopChild(child);
    throw new Error(`${script}: ${(e as Error).message}\n${stderr}`);
  }
}

/** A stdio transport of a policy, as `createClient` takes it. */
export interface HostileStdioTransport {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** The stdio transport that runs `tests/_support/hostile-stdio-server.ts` (a new process per connection). */
export function hostileStdioTransport(): HostileStdioTransport {
  return {
    command: nodeBinary(),
    args: ["--import", "tsx", join("tests", "_support", "hostile-stdio-server.ts")],
    cwd: REPO_ROOT,
  };
}
