/**
 * Starts the scripted legacy HTTP server (`tests/peers/legacy-http-server.ts`) as a Node child
 * process, so tests on Node, Deno and Bun can all use it, and reads back what it received.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "./modern-peer.ts";

/** One HTTP request the server received (see `GET /__log`). */
export interface LoggedRequest {
  /** 1, 2, 3… in arrival order. */
  readonly seq: number;
  /** Milliseconds since the server started (`performance.now()`), when the request arrived. */
  readonly time: number;
  /** `"main"` for the endpoint's origin, `"other"` for the second origin (redirect tests). */
  readonly listener: "main" | "other";
  readonly method: string;
  readonly path: string;
  /** Header names lower-cased, as Node reports them. */
  readonly headers: Record<string, string>;
  /** The parsed JSON body, or `null`. */
  readonly body: unknown;
  /** The status answered (0 while nothing was answered yet). */
  readonly status: number;
  /** For a GET with `Last-Event-ID` that resumed a stream: which one, and the client's wait. */
  readonly resumed?: { readonly stream: string; readonly waitedMs: number | null };
}

/** What `POST /__config` changes (merged into the current settings). */
export interface PeerConfig {
  /** How `GET /mcp` without `Last-Event-ID` is answered. @default "sse" */
  readonly get?: "sse" | "405";
  /** The `retry` of the standalone GET stream's priming event. @default none */
  readonly getRetryMs?: number | null;
  /** Closes each standalone GET connection this long after it opened. @default never */
  readonly getCloseMs?: number | null;
  /** How `DELETE /mcp` is answered. @default "200" */
  readonly delete?: "200" | "405";
  /** The `Mcp-Session-Id` the next `initialize` answers with (a test of validation). */
  readonly sessionId?: string | null;
}

/** A running scripted server. */
export interface LegacyHttpPeer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** A second origin served by the same process, `http://127.0.0.1:<other port>`. */
  readonly otherOrigin: string;
  /** Every request received since start or the last `clearLog()`, oldest first. */
  log(): Promise<LoggedRequest[]>;
  /** Forgets the log. */
  clearLog(): Promise<void>;
  /** Changes how the server behaves. */
  configure(config: PeerConfig): Promise<void>;
  /** Ends the process and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the server on free loopback ports and resolves once it listens.
 *
 * @throws {Error} When the child exits before it listens.
 */
export async function startLegacyHttpPeer(): Promise<LegacyHttpPeer> {
  const child = spawn(
    nodeBinary(),
    ["--import", "tsx", join("tests", "peers", "legacy-http-server.ts"), "--watch-stdin"],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr = (stderr + chunk).slice(-4000));
  let line: string;
  try {
    line = await awaitLine(child, "stdout", /^LEGACY_HTTP_URL (\S+ \S+)$/);
  } catch (e) {
    await stopChild(child);
    throw new Error(`startLegacyHttpPeer(): ${(e as Error).message}\n${stderr}`);
  }
  child.stdout.resume();
  const [url = "", otherOrigin = ""] = line.split(" ");
  const admin = (path: string) => new URL(path, url).href;
  return {
    url,
    otherOrigin,
    async log() {
      const response = await fetch(admin("/__log"));
      return await response.json() as LoggedRequest[];
    },
    async clearLog() {
      const response = await fetch(admin("/__log"), { method: "DELETE" });
      await response.body?.cancel();
    },
    async configure(config) {
      const response = await fetch(admin("/__config"), { method: "POST", body: JSON.stringify(config) });
      await response.body?.cancel();
    },
    stop: () => stopChild(child),
  };
}
