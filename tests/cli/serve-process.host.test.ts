// `sluice serve` as a user runs it, in its own process on this runtime (Node through bin/sluice.mjs,
// Deno and Bun on src/cli/mod.ts), with its stdout a real pipe whose reader falls behind.
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
import { toolCallHeaders } from "../_support/downstream.ts";
import { within } from "../_support/eventually.ts";
import { META } from "../runtime/_entry-cases.ts";
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

/** `sluice serve` on this runtime, its decision lines as JSON on a piped stdout. */
function sluiceServe(): ChildProcessWithoutNullStreams {
  const command = {
    node: ["bin/sluice.mjs"],
    deno: ["run", "-A", "src/cli/mod.ts"],
    bun: ["src/cli/mod.ts"],
  }[runtime];
  return spawn(process.execPath, [...command, "serve", "--port", "0", "--policies", dir.path], {
    cwd: REPO_ROOT,
    env: { ...process.env, SLUICE_STATE_KEY: KEY, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** A name of 300 kB: each call is refused (its Mcp-Name header differs) and its line keeps it whole. */
const name = (mark: string) => mark.padEnd(300_000, "x");
const refused = (url: string, mark: string) =>
  fetch(`${url}/mcp/modern`, {
    method: "POST",
    headers: toolCallHeaders("short"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: name(mark), arguments: {}, _meta: META },
    }),
  }).then((response) => response.status);
const marks = (count: number) => Array.from({ length: count }, (_, i) => `m${String(i).padStart(2, "0")}`);
/** The names of the decision lines read, each line whole, else what was cut. */
const namesOf = (chunks: Buffer[]) =>
  Buffer.concat(chunks).toString("utf8").split("\n").filter((line) => line !== "").map((line) => {
    try {
      return (JSON.parse(line) as { name: string }).name;
    } catch {
      return `a line cut short at ${line.length} characters`;
    }
  }).sort();

/** Starts `sluice serve` with its stdout paused, and collects its stderr and exit. */
async function started() {
  const child = sluiceServe();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await awaitLine(child, "stderr", /listening on (http:\/\/\S+)/);
  child.stdout.pause();
  const chunks: Buffer[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    child,
    url,
    exited,
    stderr: () => stderr,
    /**
     * Sends SIGTERM. Not `child.kill()`: Deno's child_process then reports the exit as that
     * signal's, whatever the code the process exited with.
     */
    stop: () => process.kill(child.pid!, "SIGTERM"),
    /** Reads stdout from now on. */
    read: () => {
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
    },
    names: () => namesOf(chunks),
  };
}

describe(`sluice serve on ${runtime} in its own process, its stdout a pipe whose reader is slow, stalls or leaves`, () => {
  test("lines kept while the reader was behind all reach it after SIGTERM, whole: the command exits once stdout has taken them", async () => {
    const serve = await started();
    try {
      const twelve = marks(12);
      const statuses = Promise.all(twelve.map((mark) => refused(serve.url, mark)));
      if (runtime === "deno") {
        // Deno's process.stdout waits for the reader, so the answers wait for it too.
        setTimeout(serve.read, 300);
        assert.deepEqual(await within("the 12 calls' answers", statuses, 20_000), Array(12).fill(400));
        serve.stop();
      } else {
        // 3.6 MB of lines, under the 4 MiB bound: all answered, most lines still in the process.
        assert.deepEqual(await within("the 12 calls' answers", statuses, 20_000), Array(12).fill(400));
        serve.stop();
        setTimeout(serve.read, 500);
      }
      const code = await within("the exit", serve.exited, 20_000);
      assert.deepEqual([code, serve.names()], [0, twelve.map(name)]);
    } finally {
      await stopChild(serve.child);
    }
  });

  test("a reader that closes stdout stops the decision lines, not the command: it answers, and exits 0 on SIGTERM", async () => {
    const serve = await started();
    try {
      serve.child.stdout.destroy();
      const statuses = [];
      for (const mark of marks(3)) statuses.push(await refused(serve.url, mark));
      serve.stop();
      assert.deepEqual([statuses, await within("the exit", serve.exited, 20_000)], [[400, 400, 400], 0]);
    } finally {
      await stopChild(serve.child);
    }
  });

  test(
    "a reader that stalls costs the process at most 4 MiB of lines: the gateway goes on answering, the lines past it are dropped, and their count is said on stderr",
    {
      skip: runtime === "deno"
        ? "Deno's process.stdout waits for the reader: it holds no line to drop"
        : false,
    },
    async () => {
      const serve = await started();
      try {
        const forty = marks(40);
        const callAll = async () => {
          const answered = [];
          for (const mark of forty) answered.push(await refused(serve.url, mark));
          return answered;
        };
        // Bounded: a gateway that waits for its reader answers no call once the pipe is full.
        const statuses = await within("the 40 calls' answers", callAll(), 20_000);
        serve.read();
        serve.stop();
        const code = await within("the exit", serve.exited, 20_000);
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
          [0, Array(40).fill(400), forty.slice(0, names.length).map(name), 40, true, 1],
        );
      } finally {
        await stopChild(serve.child);
      }
    },
  );
});
