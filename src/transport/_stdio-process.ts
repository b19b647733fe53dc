/// <reference types="node" />
/**
 * Starting, signalling and describing the child process of a stdio connection (its behaviour is
 * documented on `createStdioConnection`). The environment is the official MCP SDK's allow-list plus
 * locale and temporary-folder names, then the policy's `env`; never the whole parent environment: it
 * holds the host's secrets.
 *
 * On POSIX the child leads a process group (`detached`: setsid) and signals go to the whole group,
 * as the official Python SDK does (`killpg`): a launcher that does not pass SIGTERM on would leave
 * its server running. Such a group misses the terminal's Ctrl-C, so this process signals the groups
 * still running when it exits. On Windows the child is signalled alone.
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

/** Whether each server gets a process group of its own, signalled as one: everywhere but Windows. */
export const OWN_GROUP: boolean = process.platform !== "win32";

/**
 * The servers started and not yet forgotten, each with the signal that this process sends their
 * group when it exits: SIGTERM, or SIGKILL once `close()` has sent SIGTERM.
 */
const stopAtExit = new Map<ChildProcess, "SIGTERM" | "SIGKILL">();

/**
 * Spawns the server with piped stdio, the minimal environment, and no shell; on POSIX as a new
 * group's leader. Until {@linkcode forgetProcess}, its group is sent SIGTERM (SIGKILL after
 * `close()`'s SIGTERM) when this process exits by `process.exit()`, not by an unhandled signal or, on
 * Deno, an uncaught error.
 *
 * @param transport What to run, with which arguments, variables and working folder.
 * @returns The child; a start failure comes as its `"error"` event (or a throw on some runtimes).
 */
export function startProcess(transport: CompiledStdioTransport): ChildProcess {
  const child = spawn(transport.command, [...transport.args], {
    env: childEnvironment(transport.env),
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
    detached: OWN_GROUP,
    ...transport.cwd === undefined ? {} : { cwd: transport.cwd },
  });
  if (OWN_GROUP && child.pid !== undefined) {
    if (stopAtExit.size === 0) process.on("exit", stopAllAtExit);
    stopAtExit.set(child, "SIGTERM");
  }
  return child;
}

/**
 * Stops signalling the child's group when this process exits: after `close()`, or once it ended by
 * itself (its pid may then be reused).
 *
 * @param child A child from {@linkcode startProcess}.
 */
export function forgetProcess(child: ChildProcess): void {
  if (stopAtExit.delete(child) && stopAtExit.size === 0) process.off("exit", stopAllAtExit);
}

/** The `"exit"` listener: the next signal of each group not forgotten (no waiting is possible). */
function stopAllAtExit(): void {
  for (const [child, name] of stopAtExit) signalProcess(child, name);
}

/**
 * The inherited variables, then `extra` over them. Read by name, so Deno needs `--allow-env` for
 * these names only; an exported shell function (`()…`) is never inherited.
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
 * Sends a signal to the child's process group (on POSIX), or to the child still running (on
 * Windows), through `process.kill`: Deno's `ChildProcess.kill()` ignores every call after the first.
 *
 * The group is signalled even after its leader exited, as what it started may still run; callers do
 * so only while a member may live (its id cannot be reused meanwhile): before the pipes close, or at
 * exit before {@linkcode forgetProcess}.
 *
 * @param child The process.
 * @param name The signal.
 */
export function signalProcess(child: ChildProcess, name: "SIGTERM" | "SIGKILL"): void {
  const { pid } = child;
  // Never 0 (this process's own group), 1 (-1 is every process this one may signal) or none.
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 1) return;
  if (OWN_GROUP && stopAtExit.has(child)) stopAtExit.set(child, "SIGKILL");
  if (!OWN_GROUP && (child.exitCode !== null || child.signalCode !== null)) return;
  try {
    process.kill(OWN_GROUP ? -pid : pid, name);
  } catch {
    // It (or every member of its group) exited meanwhile.
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
