// Which processes are running, read with `ps` (POSIX; the same on Node, Deno and Bun): liveness by
// pid, and the descendants of this test process whose command line holds a text. A zombie counts
// as ended: it has exited, and only waits for its parent (init, for an orphan) to reap it.
import { execFile, spawnSync } from "node:child_process";
import process from "node:process";

interface Row {
  readonly pid: number;
  readonly ppid: number;
  readonly stat: string;
  readonly args: string;
}

const PS_ARGS = ["-A", "-o", "pid=,ppid=,stat=,args="];

/** Every process `ps` lists, with its parent, state and command line. */
function listProcesses(): Row[] {
  const listed = spawnSync("ps", PS_ARGS, { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`ps failed with status "${listed.status}": ${listed.stderr}`);
  return parseRows(listed.stdout);
}

/** {@linkcode listProcesses} without blocking: `ps` takes tens of milliseconds. */
function listProcessesLater(): Promise<Row[]> {
  return new Promise((resolve, reject) =>
    execFile(
      "ps",
      PS_ARGS,
      { encoding: "utf8" },
      (error, stdout) => error ? reject(error) : resolve(parseRows(stdout)),
    )
  );
}

function parseRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s?(.*)$/.exec(line);
    if (match === null) continue;
    rows.push({ pid: Number(match[1]), ppid: Number(match[2]), stat: match[3] ?? "", args: match[4] ?? "" });
  }
  return rows;
}

/**
 * Whether the process `pid` is running: it exists and is not a zombie.
 *
 * @param pid The process id.
 * @returns `true` while it runs.
 */
export function isRunning(pid: number): boolean {
  const row = listProcesses().find((process) => process.pid === pid);
  return row !== undefined && !row.stat.startsWith("Z");
}

/**
 * The running descendants of this process whose command line contains `text`.
 *
 * @param text What the command line holds (`"mcp-server-everything"`).
 * @returns Their pids, ascending.
 */
export function descendantsRunning(text: string): number[] {
  return descendantsIn(listProcesses(), text);
}

function descendantsIn(rows: readonly Row[], text: string): number[] {
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (ours.has(row.ppid) && !ours.has(row.pid)) (ours.add(row.pid), grew = true);
    }
  }
  return rows.filter((row) => row.pid !== process.pid && ours.has(row.pid) && !row.stat.startsWith("Z"))
    .filter((row) => row.args.includes(text)).map((row) => row.pid).sort((a, b) => a - b);
}

/**
 * Watches this process's descendants whose command line contains `text`, one `ps` after another
 * (each 100 ms after the last ended), until `stop()`: for a command run in this process that
 * starts and should end them.
 *
 * @param text What the command line holds.
 * @returns `stop()`, which ends the watch and returns every pid seen, ascending.
 */
export function watchDescendants(text: string): { stop(): number[] } {
  const seen = new Set<number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watching = true;
  const look = async (): Promise<void> => {
    const rows = await listProcessesLater().catch(() => []);
    for (const pid of descendantsIn(rows, text)) seen.add(pid);
    if (watching) timer = setTimeout(look, 100);
  };
  void look();
  return {
    stop() {
      watching = false;
      clearTimeout(timer);
      return [...seen].sort((a, b) => a - b);
    },
  };
}

/**
 * Sends SIGKILL to each process of `pids` still running (cleanup for a test that started them).
 *
 * @param pids The process ids.
 */
export function killRunning(pids: readonly number[]): void {
  for (const pid of pids) {
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // It ended meanwhile.
    }
  }
}
