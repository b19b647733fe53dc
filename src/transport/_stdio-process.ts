/// <reference types="node" />
/**
 * Starting, signalling and describing the child process of a stdio connection. Its environment is
 * a short allow-list of the parent's variables (the official MCP SDK's default set, plus locale
 * and temporary-folder names), then the policy's `env`; never the whole parent environment: it
 * holds the host's secrets.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import type { CompiledStdioTransport } from "../policy/compile-policy.ts";

/** Inherited on Linux, macOS and the BSDs, when set. */
const INHERITED_POSIX: readonly string[] = [
  "HOME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "TMPDIR",
  "USER",
];

/** Inherited on Windows, when set; names match case-insensitively there. */
const INHERITED_WINDOWS: readonly string[] = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
];

/**
 * Spawns the server with piped stdio, the minimal environment, and no shell.
 *
 * @param transport What to run, with which arguments, variables and working folder.
 * @returns The child; a start failure comes as its `"error"` event (or a throw on some runtimes).
 */
export function startProcess(transport: CompiledStdioTransport): ChildProcess {
  return spawn(transport.command, [...transport.args], {
    env: childEnvironment(transport.env),
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
    ...transport.cwd === undefined ? {} : { cwd: transport.cwd },
  });
}

/**
 * The inherited variables, then `extra` over them. Variables are read by name (so Deno needs
 * `--allow-env` for these names only); a value starting with `()` (an exported shell function)
 * is never inherited.
 */
function childEnvironment(extra: Readonly<Record<string, string>>): Record<string, string> {
  const windows = process.platform === "win32";
  const fold = (name: string): string => windows ? name.toUpperCase() : name;
  const replaced = new Set(Object.keys(extra).map(fold));
  const env: Record<string, string> = Object.create(null);
  for (const name of windows ? INHERITED_WINDOWS : INHERITED_POSIX) {
    const value = process.env[name];
    if (value === undefined || value.startsWith("()") || replaced.has(fold(name))) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) env[name] = value;
  return env;
}

/**
 * Sends a signal to a child still running. Deno's `ChildProcess.kill()` ignores every call after
 * the first, so this goes through `process.kill` with the pid.
 *
 * @param child The process.
 * @param name The signal.
 */
export function signalProcess(child: ChildProcess, name: "SIGTERM" | "SIGKILL"): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(child.pid, name);
  } catch {
    // It exited meanwhile.
  }
}

/**
 * Says why a process could not start: `command not found (ENOENT)`.
 *
 * @param error What `spawn` threw or emitted.
 * @param cwd The working folder asked for (ENOENT may mean it is missing).
 * @returns The explanation.
 */
export function describeStartError(error: unknown, cwd: string | undefined): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === "ENOENT") {
    return cwd === undefined
      ? "command not found (ENOENT)"
      : `command or folder ${JSON.stringify(cwd)} not found (ENOENT)`;
  }
  if (code === "EACCES") return "permission denied (EACCES)";
  return error instanceof Error ? error.message : String(error);
}

/**
 * Says how a process ended: `process exited with code 1`, `process was killed by signal SIGKILL`.
 *
 * @param code The exit code, or `null` when a signal ended it.
 * @param signal The signal, or `null`.
 * @returns The description.
 */
export function describeExit(code: number | null, signal: string | null): string {
  return signal === null ? `process exited with code ${code}` : `process was killed by signal ${signal}`;
}
