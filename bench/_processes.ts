/**
 * The bench's helper processes (the fast peer, the front) and CPU accounting. Helpers always run
 * on Node from their compiled copies in `bench/.tmp/bench/` (`npm run bench` compiles them
 * first), so the Deno and Bun suites talk to the very same peer as Node's.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "../tests/_support/modern-peer.ts";

/** A running helper process. */
export interface Helper {
  /** What it printed after its pattern (its URL). */
  readonly url: string;
  readonly pid: number;
  /** Ends it and resolves once it has exited. */
  stop(): Promise<void>;
}

/** The compiled helpers' folder. */
export const COMPILED_BENCH: string = join(REPO_ROOT, "bench", ".tmp", "bench");

/**
 * Starts a compiled bench helper on Node and waits for its URL line.
 *
 * @param script The helper's file name in `bench/.tmp/bench/` (`fast-peer.js`).
 * @param args Its arguments.
 * @param pattern The line that carries its URL as the first group.
 * @returns The running helper.
 */
export async function startHelper(script: string, args: readonly string[], pattern: RegExp): Promise<Helper> {
  const child = spawn(nodeBinary(), [join(COMPILED_BENCH, script), ...args], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await awaitLine(child, "stdout", pattern);
  child.stdout?.resume();
  return { url, pid: child.pid ?? -1, stop: () => stopChild(child) };
}

/** Starts the fast peer (`--work-ms` makes its `echo` take that long). */
export function startFastPeer(workMs = 0): Promise<Helper> {
  return startHelper(
    "fast-peer.js",
    workMs > 0 ? ["--work-ms", String(workMs)] : [],
    /^FAST_PEER_URL (\S+)$/,
  );
}

/** Linux counts process CPU time in `/proc/<pid>/stat` in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds a process has used so far, every thread counted: the sum of its threads' run time
 * in nanoseconds from `/proc/<pid>/task/<tid>/schedstat`, else (user + system) from
 * `/proc/<pid>/stat` in clock ticks.
 *
 * @param pid The process.
 * @returns The seconds, or `NaN` off Linux or when the process is gone.
 */
export function cpuSecondsOf(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // a thread that ended meanwhile
      }
    }
    if (Number.isFinite(ns)) return ns / 1e9;
  } catch {
    // no schedstat here: fall back to the clock ticks of /proc/<pid>/stat
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds this process has used so far (user + system). */
export function ownCpuSeconds(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
}

/** The runtime this code runs on. */
export function runtimeName(): "node" | "deno" | "bun" {
  const host = globalThis as { Deno?: unknown; Bun?: unknown };
  return host.Deno !== undefined ? "deno" : host.Bun !== undefined ? "bun" : "node";
}
