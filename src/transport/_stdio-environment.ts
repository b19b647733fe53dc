/// <reference types="node" />
/**
 * The environment of a stdio server process: a short allow-list of the parent's variables (the
 * official MCP SDK's default set, plus locale and temporary-folder names), then the policy's
 * `env`. Never the whole parent environment: it holds the host's secrets.
 *
 * @module
 */
import process from "node:process";

/** Inherited on Linux, macOS and the BSDs, when set. */
export const INHERITED_POSIX: readonly string[] = [
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
export const INHERITED_WINDOWS: readonly string[] = [
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
 * Builds the environment for a child process.
 *
 * Variables are read by name (so Deno needs `--allow-env` for these names only); a value
 * starting with `()` (an exported shell function) is never inherited.
 *
 * @param extra The policy's variables; they replace inherited ones of the same name.
 * @param parent The parent's environment.
 * @param platform The operating system, as `process.platform` names it.
 * @returns A fresh object without a prototype.
 */
export function childEnvironment(
  extra: Readonly<Record<string, string>>,
  parent: Readonly<Record<string, string | undefined>> = process.env,
  platform: string = process.platform,
): Record<string, string> {
  const windows = platform === "win32";
  const fold = (name: string): string => windows ? name.toUpperCase() : name;
  const replaced = new Set(Object.keys(extra).map(fold));
  const env: Record<string, string> = Object.create(null);
  for (const name of windows ? INHERITED_WINDOWS : INHERITED_POSIX) {
    const value = parent[name];
    if (value === undefined || value.startsWith("()") || replaced.has(fold(name))) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) env[name] = value;
  return env;
}
