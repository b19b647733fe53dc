// The `sluice` command as a user runs it, in its own process on this runtime (Node through
// bin/sluice.mjs, Deno and Bun on src/cli/mod.ts), with its stdout a real pipe whose reader falls
// behind, stalls or leaves, or a full disk.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import process from "node:process";
import { runtimeName } from "../../src/cli/_load-module.ts";
import {
  awaitLine,
  type ModernPeer,
  REPO_ROOT,
  startModernPeer,
  stopChild,
} from "../_support/modern-peer.ts";
import { bigName, lineNamesOf, marksOf, refusedBig, refusedInTurn } from "../_support/decision-lines.ts";
import { eventually, within } from "../_support/eventually.ts";
import { policyJson, type TempDir, tempDir } from "./_scripted-io.ts";

const KEY = "serve-process-state-key-3b9e0c71a4d2f865";
const runtime = runtimeName();

let peer: ModernPeer;
let dir: TempDir;
before(async () => {
  peer = await startModernPeer();
  dir = tempDir({ "modern.policy.json": policyJson("modern", peer.url) });
});
after(async () => {
  await peer?.stop();
  dir?.remove();
});

/** This runtime's `sluice` command line. */
function sluiceCommand(args: readonly string[]): string[] {
  const command = {
    node: ["bin/sluice.mjs"],
    deno: ["run", "-A", "src/cli/mod.ts"],
    bun: ["src/cli/mod.ts"],
  }[runtime];
  return [process.execPath, ...command, ...args, "--policies", dir.path];
}

/** The `sluice` command, its stdin, stdout and stderr piped. */
function sluice(args: readonly string[]): ChildProcessWithoutNullStreams {
  const [binary, ...rest] = sluiceCommand(args);
  return spawn(binary!, rest, {
    cwd: REPO_ROOT,
    env: { ...process.env, SLUICE_STATE_KEY: KEY, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/**
 * Sends a signal. Not `child.kill()`: Deno's child_process then reports the exit as that signal's,
 * whatever the code the process exited with.
 */
const signal = (child: ChildProcessWithoutNullStreams, name: NodeJS.Signals) =>
  process.kill(child.pid!, name);
const exitOf = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => child.once("exit", resolve));

/** Starts `sluice serve` with its stdout paused, and collects its stderr and exit. */
async function started() {
  const child = sluice(["serve", "--port", "0"]);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await awaitLine(child, "stderr", /listening on (http:\/\/\S+)/);
  child.stdout.pause();
  const chunks: Buffer[] = [];
  const exited = exitOf(child);
  return {
    child,
    url,
    exited,
    /** The exit code, once stdout has also been read to its end. */
    finished: async () => {
      const [code] = await Promise.all([
        exited,
        new Promise((resolve) => child.stdout.once("close", resolve)),
      ]);
      return code;
    },
    stderr: () => stderr,
    stop: () => signal(child, "SIGTERM"),
    /** Keeps a chunk read from stdout. */
    take: (chunk: Buffer) => chunks.push(chunk),
    /** Reads stdout from now on. */
    read: () => {
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
    },
    names: () => lineNamesOf(chunks),
  };
}

const DENO_BLOCKS = "Deno's process.stdout waits for the reader: it holds no line to drop or give up";

describe(`sluice serve on ${runtime} in its own process, its stdout a pipe whose reader is slow, stalls or leaves`, () => {
  test("lines kept while the reader was behind all reach it after SIGTERM, whole: the command exits once stdout has taken them", async () => {
    const serve = await started();
    try {
      const twelve = marksOf(12);
      const statuses = Promise.all(twelve.map((mark) => refusedBig(serve.url, mark)));
      // Deno's process.stdout waits for the reader, so there the answers wait for it too. Elsewhere
      // the 3.6 MB of lines, under the 4 MiB bound, are all answered with most still in the process.
      if (runtime === "deno") setTimeout(serve.read, 300);
      assert.deepEqual(await within("the 12 calls' answers", statuses, 20_000), Array(12).fill(400));
      serve.stop();
      if (runtime !== "deno") setTimeout(serve.read, 500);
      const code = await within("the exit", serve.finished(), 20_000);
      assert.deepEqual([code, serve.names()], [0, twelve.map(bigName)]);
    } finally {
      await stopChild(serve.child);
    }
  });

  test("a reader that closes stdout stops the decision lines, not the command: it answers, and exits 0 on SIGTERM", async () => {
    const serve = await started();
    try {
      serve.child.stdout.destroy();
      const statuses = [];
      for (const mark of marksOf(3)) statuses.push(await refusedBig(serve.url, mark));
      serve.stop();
      assert.deepEqual([statuses, await within("the exit", serve.exited, 20_000)], [[400, 400, 400], 0]);
    } finally {
      await stopChild(serve.child);
    }
  });

  test(
    "a reader that stalls costs the process at most 4 MiB of lines: the gateway goes on answering, the lines past it are dropped, and their count is said on stderr",
    { skip: runtime === "deno" ? DENO_BLOCKS : false },
    async () => {
      const serve = await started();
      try {
        const forty = marksOf(40);
        const statuses = await refusedInTurn(serve.url, forty);
        serve.read();
        serve.stop();
        const code = await within("the exit", serve.finished(), 20_000);
        const names = serve.names();
        const told = /^sluice serve: (\d+) decision lines dropped: stdout was not read fast enough$/m.exec(
          serve.stderr(),
        );
        const dropped = Number(told?.[1]);
        // Whole lines, the first ones in order (the rest were dropped), and every line accounted for.
        assert.deepEqual(
          [
            code,
            statuses,
            names,
            names.length + dropped,
            dropped > 0,
            serve.stderr().match(/dropped/g)?.length,
          ],
          [0, Array(40).fill(400), forty.slice(0, names.length).map(bigName), 40, true, 1],
        );
      } finally {
        await stopChild(serve.child);
      }
    },
  );

  test("a slow reader that keeps reading after SIGTERM gets every line whole, though it takes longer than 5 s", async () => {
    const serve = await started();
    try {
      const eight = marksOf(8);
      // 2.4 MB of lines (all answered on Node and Bun before a line is read; on Deno, as read).
      const statuses = Promise.all(eight.map((mark) => refusedBig(serve.url, mark)));
      const slowly = () => {
        // About 64 kB every 200 ms: the 2.4 MB take about 7 s.
        serve.child.stdout.on("data", (chunk: Buffer) => {
          serve.take(chunk);
          serve.child.stdout.pause();
          setTimeout(() => serve.child.stdout.resume(), 200);
        });
        serve.child.stdout.resume();
      };
      if (runtime === "deno") slowly();
      assert.deepEqual(await within("the 8 calls' answers", statuses, 30_000), Array(8).fill(400));
      serve.stop();
      if (runtime !== "deno") slowly();
      const code = await within("the exit", serve.finished(), 30_000);
      assert.deepEqual([code, serve.names(), serve.stderr().includes("took nothing")], [
        0,
        eight.map(bigName),
        false,
      ]);
    } finally {
      await stopChild(serve.child);
    }
  });

  test(
    "a reader that never reads again: SIGTERM still ends the command, 5 s after it, saying how many bytes stdout did not take",
    { skip: runtime === "deno" ? DENO_BLOCKS : false },
    async () => {
      const serve = await started();
      try {
        assert.deepEqual(await refusedInTurn(serve.url, marksOf(20)), Array(20).fill(400));
        const stopped = Date.now();
        serve.stop();
        const code = await within("the exit", serve.exited, 15_000);
        const waitedMs = Date.now() - stopped;
        const told =
          /^sluice: stdout took nothing for 5 s after the signal; exiting without up to (\d+) bytes of output \(the last line it took may be cut short\)$/m
            .exec(serve.stderr());
        const bytes = Number(told?.[1]);
        // At most the 4 MiB bound and the line written past it are held.
        assert.deepEqual(
          [code, bytes > 0 && bytes <= 4 * 1024 * 1024 + 300_100, waitedMs >= 4_500 && waitedMs < 10_000],
          [0, true, true],
          `${waitedMs} ms, stderr: ${serve.stderr().slice(-500)}`,
        );
      } finally {
        await stopChild(serve.child);
      }
    },
  );
});

describe(`sluice call and --help on ${runtime} in their own process: the output is whole, or the command says why not`, () => {
  /**
   * `sluice call modern echo --json` with 40 000 zero-width spaces, each printed as a 6-byte
   * escape: 240 249 bytes, more than a pipe and its reader's buffer hold.
   */
  const BIG_ECHO = ["call", "modern", "echo", JSON.stringify({ message: "\u200b".repeat(40_000) }), "--json"];
  const BIG_ECHO_BYTES = 240_249;
  /** Runs `script` in bash with this runtime's `sluice` command line as `"$@"`. */
  const bash = (script: string, args: readonly string[]) =>
    spawn("bash", ["-c", script, "sluice", ...sluiceCommand(args)], {
      cwd: REPO_ROOT,
      env: { ...process.env, SLUICE_STATE_KEY: KEY, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });

  test("a reader that starts 1 s late gets the whole answer, and the command exits 0", async () => {
    const child = bash('set -o pipefail; "$@" | (sleep 1; wc -c)', BIG_ECHO);
    try {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await within("the exit", exitOf(child), 20_000);
      assert.deepEqual([code, stdout], [0, `${BIG_ECHO_BYTES}\n`]);
    } finally {
      await stopChild(child);
    }
  });

  test(
    "SIGTERM while the command waits for a reader that does not read exits at once with 130",
    {
      skip: runtime === "deno"
        ? "Deno's process.stdout write blocks, and no signal is heard meanwhile"
        : false,
    },
    async () => {
      await peer.clearRequests();
      // `exec`: the process is the command itself, its stdout a pipe whose reader reads only
      // after 10 s (and then ends, as the command has).
      const child = bash('exec "$@" > >(sleep 10; cat > /dev/null)', BIG_ECHO);
      try {
        const exited = exitOf(child);
        // The answer is written once the call has ended upstream: then the command waits.
        await eventually("the echo call upstream", async () => {
          const calls = (await peer.requests()).filter((r) => r.headers["mcp-name"] === "echo");
          return calls.length > 0 ? calls : undefined;
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        signal(child, "SIGTERM");
        assert.equal(await within("the exit after one SIGTERM", exited, 8_000), 130);
      } finally {
        await stopChild(child);
      }
    },
  );

  test("stdout and stderr into one pipe (2>&1): every line whole, each stream's in order", async () => {
    const script = {
      node: [process.execPath, "--import", "tsx", "tests/cli/_interleaved-writer.ts"],
      deno: [process.execPath, "run", "-A", "tests/cli/_interleaved-writer.ts"],
      bun: [process.execPath, "tests/cli/_interleaved-writer.ts"],
    }[runtime];
    const child = spawn("bash", ["-c", '"$@" 2>&1', "writer", ...script], { cwd: REPO_ROOT });
    try {
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      const code = await within("the exit", exitOf(child as ChildProcessWithoutNullStreams), 30_000);
      const lines = Buffer.concat(chunks).toString("utf8").split("\n").slice(0, -1);
      const cut = lines.filter((line) => !/^L\d+ [OE] q*$/.test(line));
      const ordered = (mark: string) => {
        const numbers = lines.filter((line) => line.split(" ")[1] === mark).map((line) =>
          Number(line.slice(1, line.indexOf(" ")))
        );
        return numbers.every((number, i) => i === 0 || number > numbers[i - 1]!);
      };
      // Bun's two streams keep no order between them; each keeps its own.
      assert.deepEqual([code, lines.length, cut.slice(0, 2), ordered("O"), ordered("E")], [
        0,
        100_000,
        [],
        true,
        true,
      ]);
    } finally {
      await stopChild(child);
    }
  });

  test("stdout on a full disk: the command exits 1 and says so in one line", async () => {
    // Opened by bash: Deno's test permissions do not reach device files.
    const child = bash('exec "$@" > /dev/full', ["--help"]);
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await within("the exit", exitOf(child), 20_000);
      // One line, no stack: "ENOSPC: no space left on device, write" (Node, Bun) or "No space left
      // on device (os error 28)" (Deno).
      assert.deepEqual([
        code,
        /^sluice: cannot write to stdout: [^\n]*no space left on device[^\n]*\n$/i.test(stderr),
      ], [
        1,
        true,
      ], stderr);
    } finally {
      await stopChild(child);
    }
  });
});
