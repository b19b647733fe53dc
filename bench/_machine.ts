/**
 * What the results ran on: the CPU, cores, memory and OS, the load before and after, and the
 * versions of every runtime and contender.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { REPO_ROOT } from "../tests/_support/modern-peer.ts";
import type { MachineInfo } from "./_results.ts";

/** The repository's copy of a tool in `node_modules/.bin`. */
export function bin(name: string): string {
  return join(REPO_ROOT, "node_modules", ".bin", name);
}

function firstLine(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, [...args], { encoding: "utf8", timeout: 20_000 }).split("\n")[0]?.trim() ??
      "?";
  } catch {
    return "not available";
  }
}

function packageVersion(name: string): string {
  try {
    const json = readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8");
    return (JSON.parse(json) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

/** The CPU model, from /proc/cpuinfo when `os.cpus()` names it only vaguely. */
function cpuModel(): string {
  const model = cpus()[0]?.model.trim() ?? "?";
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const family = /cpu family\s*:\s*(\d+)/.exec(info)?.[1];
    const number = /^model\s*:\s*(\d+)/m.exec(info)?.[1];
    const mhz = /cpu MHz\s*:\s*([\d.]+)/.exec(info)?.[1];
    const details = [
      family === undefined ? "" : `family ${family}`,
      number === undefined ? "" : `model ${number}`,
      mhz === undefined ? "" : `${Math.round(Number(mhz))} MHz`,
    ].filter((d) => d !== "");
    return details.length === 0 ? model : `${model} (${details.join(", ")})`;
  } catch {
    return model;
  }
}

/**
 * Reads the machine and the tool versions (the load average is sampled now, as `loadBefore`).
 *
 * @returns The machine info, with `loadAfter` equal to `loadBefore` until {@linkcode withLoadAfter}.
 */
export function machineInfo(): MachineInfo {
  const load = loadavg()[0] ?? NaN;
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryBytes: totalmem(),
    os: `${type()} ${release()}`,
    loadBefore: load,
    loadAfter: load,
    versions: {
      node: process.version,
      deno: firstLine(bin("deno"), ["--version"]),
      bun: firstLine(bin("bun"), ["--version"]),
      workerd: firstLine(
        join(REPO_ROOT, "node_modules", "@cloudflare", "workerd-linux-64", "bin", "workerd"),
        [
          "--version",
        ],
      ),
      wrangler: packageVersion("wrangler"),
      "@modelcontextprotocol/client": packageVersion("@modelcontextprotocol/client"),
      "@modelcontextprotocol/sdk": packageVersion("@modelcontextprotocol/sdk"),
      "@modelcontextprotocol/server-everything": packageVersion("@modelcontextprotocol/server-everything"),
      undici: packageVersion("undici"),
    },
  };
}

/** The same info with the load average sampled now as `loadAfter`. */
export function withLoadAfter(machine: MachineInfo): MachineInfo {
  return { ...machine, loadAfter: loadavg()[0] ?? NaN };
}
