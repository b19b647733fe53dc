/**
 * Runs `@modelcontextprotocol/server-everything` (legacy era, up to 2025-11-25) as a test peer:
 * over stdio (spawn the command yourself) or over its streamable HTTP mode on loopback.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "./modern-peer.ts";

/** The server's entry script, by absolute path (no `npx`). */
export const EVERYTHING_ENTRY: string = join(
  REPO_ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-everything",
  "dist",
  "index.js",
);

/**
 * Preloaded into the HTTP server's Node: its express app calls `listen(PORT, callback)`, which
 * binds every interface and logs the configured port, not the bound one. This binds the first such
 * `listen` to 127.0.0.1 only and prints `EVERYTHING_HTTP_PORT <port>` on stderr once listening.
 */
const LOOPBACK_PRELOAD = `
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args.length === 2 && /^\\d+$/.test(String(args[0])) && typeof args[1] === "function") {
    this.once("listening", () => process.stderr.write("EVERYTHING_HTTP_PORT " + this.address().port + "\\n"));
    return listen.call(this, Number(args[0]), "127.0.0.1", args[1]);
  }
  return listen.apply(this, args);
};
process.stdin.on("end", () => process.exit(0)).resume();
`;

/** The fields of trigger-elicitation-request's form, in the server's order. */
export const EVERYTHING_FORM_FIELDS: readonly string[] = [
  "name",
  "check",
  "firstLine",
  "email",
  "homepage",
  "birthdate",
  "integer",
  "number",
  "untitledSingleSelectEnum",
  "untitledMultipleSelectEnum",
  "titledSingleSelectEnum",
  "titledMultipleSelectEnum",
  "legacyTitledEnum",
];

/** A command line that starts server-everything over stdio. */
export interface StdioCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** server-everything running in its streamable HTTP mode. */
export interface EverythingHttp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Ends the server and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * The command that runs server-everything over stdio with Node: newline-delimited JSON-RPC on
 * stdin/stdout, logs on stderr; it exits when its stdin closes.
 */
export function everythingStdioCommand(): StdioCommand {
  return { command: nodeBinary(), args: [EVERYTHING_ENTRY, "stdio"] };
}

/**
 * Starts server-everything's streamable HTTP mode (`/mcp`, sessions via `Mcp-Session-Id`) on a
 * free loopback port and resolves once it listens. It exits when this process does.
 *
 * @throws {Error} When the server exits before it listens.
 */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const preload = `data:text/javascript,${encodeURIComponent(LOOPBACK_PRELOAD)}`;
  const child = spawn(nodeBinary(), ["--import", preload, EVERYTHING_ENTRY, "streamableHttp"], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: "0" },
    // Its stdin is ours: it exits when it closes, so a killed test or bench leaves no server behind.
    stdio: ["pipe", "ignore", "pipe"],
  });
  let port: string;
  try {
    port = await awaitLine(child, "stderr", /^EVERYTHING_HTTP_PORT (\d+)$/);
  } catch (e) {
    await stopChild(child);
    throw new Error(`startEverythingHttp(): ${(e as Error).message}`);
  }
  child.stderr?.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}
