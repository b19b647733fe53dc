// The `sluice` bin in a real pseudo-terminal: util-linux `script` gives `node bin/sluice.mjs call`
// a pty, the test answers each prompt once it appears, and reads what the terminal showed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import process from "node:process";
import {
  type ModernPeer,
  nodeBinary,
  REPO_ROOT,
  startModernPeer,
  stopChild,
} from "../_support/modern-peer.ts";
import { eventually } from "../_support/eventually.ts";
import { descendantsRunning, isRunning, killRunning } from "../_support/process-tree.ts";
import { policyJson, type TempDir, tempDir } from "./_scripted-io.ts";

// Node only (a `.node.` file); it skips itself when a directory run hands it to Deno or Bun.
const onNode = process.versions.deno === undefined && process.versions.bun === undefined;
const hasScript = onNode && spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;
if (onNode && !hasScript && process.env.CI === "true") {
  throw new Error("util-linux `script` is required under CI=true");
}
const skip = !onNode ? "Node only" : hasScript ? false : "util-linux `script` is not installed";

let peer: ModernPeer;
let dir: TempDir;
before(async () => {
  if (skip !== false) return;
  peer = await startModernPeer();
  dir = tempDir({
    "modern.policy.json": policyJson("modern", peer.url),
    // The scripted server behind a launcher (sh -c, as npx is one), outliving its stdin.
    "lingering.policy.json": JSON.stringify({
      server: "lingering",
      transport: {
        command: "sh",
        args: [
          "-c",
          '"$@"; echo',
          "sh",
          nodeBinary(),
          "--import",
          "tsx",
          "tests/peers/legacy-stdio-server.ts",
          "linger",
        ],
        cwd: REPO_ROOT,
      },
      era: "legacy",
    }),
  });
});
after(async () => {
  await peer?.stop();
  dir?.remove();
});

const sh = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `sluice <argv>` in a pty; for each [pattern, answer] waits (at most 20 s) until the output
 * after the previous answer matches, then types the answer and Enter (or, for a function, what it
 * returns, as it is: `"\x03"` is Ctrl-C).
 */
async function inTerminal(
  argv: string[],
  script: [RegExp, string | (() => string)][],
  env: Record<string, string> = {},
) {
  const command = [process.execPath, "bin/sluice.mjs", ...argv].map(sh).join(" ");
  const { NO_COLOR: _, ...inherited } = process.env;
  const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd: REPO_ROOT,
    env: { ...inherited, TERM: "xterm-256color", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const until = async (pattern: RegExp, from: number) => {
    for (const deadline = Date.now() + 20_000; !pattern.test(output.slice(from).replaceAll("\r\n", "\n"));) {
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`no ${pattern} in the terminal:\n${JSON.stringify(output.slice(from))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  try {
    let from = 0;
    for (const [pattern, answer] of script) {
      await until(pattern, from);
      from = output.length;
      child.stdin.write(typeof answer === "string" ? `${answer}\r` : answer());
    }
    const code = await Promise.race([
      exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit:\n${output}`)), 20_000)),
    ]);
    return { code, output: output.replaceAll("\r\n", "\n") };
  } finally {
    child.stdin.end();
    await stopChild(child);
  }
}

describe("sluice call in a pseudo-terminal", { skip }, () => {
  test("call highlights the URL's host with ANSI escapes on a terminal, takes consent and exits 0", async () => {
    const url = "https://example.com/consent";
    const { code, output } = await inTerminal(
      ["call", "modern", "ask_url", JSON.stringify({ url }), "--policies", dir.path],
      [
        [/in your browser\? y = yes \(accept\), n = no \(decline\), c = cancel\n> $/, "y"],
        [/when you are done there, within 5m \(n = decline, c = cancel after all\)\.\n> $/, ""],
      ],
    );
    assert.equal(code, 0, output);
    assert.ok(output.includes('\x1b[1mServer "modern" asks you to open a web page:\x1b[0m\n'), output);
    assert.ok(output.includes("  URL:  https://\x1b[1;33mexample.com\x1b[0m/consent\n"), output);
    assert.ok(output.includes("  host: \x1b[1;33mexample.com\x1b[0m\n"), output);
    // The terminal echoes what was typed; the command does not.
    assert.ok(
      output.includes("> y\nOpen this URL yourself: https://\x1b[1;33mexample.com\x1b[0m/consent\n"),
      output,
    );
    assert.ok(output.endsWith("\naccept\n"), output);
  });

  test("call asks a form field by field on a terminal, re-asking an invalid value, and exits 0", async () => {
    const { code, output } = await inTerminal(["call", "modern", "ask_form", "--policies", dir.path], [
      [/text, at least 2 characters\n> $/, "A"],
      [/expected at least 2 characters\n> $/, "Ada"],
      [/an integer from 0 to 150\n> $/, "36"],
      [/y or n \[n\]\n> $/, ""],
      [/type its number\n> $/, "3"],
    ], { NO_COLOR: "1" });
    assert.equal(code, 0, output);
    assert.equal(output.includes("\x1b["), false, output);
    assert.ok(
      output.includes('> A\n  invalid: "Name" expected at least 2 characters\n> Ada\nAge (optional)\n'),
    );
    assert.ok(output.endsWith('\n{"name":"Ada","age":36,"subscribe":false,"color":"blue"}\n'), output);
  });

  test("Ctrl-C twice at a prompt exits 130 and ends the stdio server behind its launcher, in a process group the terminal does not signal", async () => {
    // The first Ctrl-C cancels the call and starts closing the connection (the server outlives
    // its stdin, so that waits graceMs); the second exits at once, which must still end the server.
    let server: number[] = [];
    try {
      const { code, output } = await inTerminal(["call", "lingering", "ask", "--policies", dir.path], [
        [/y or n\n> $/, () => {
          server = descendantsRunning("legacy-stdio-server.ts");
          return "\x03";
        }],
        [/\(no longer needed: the request timed out or was cancelled\)\n/, () => "\x03"],
      ]);
      assert.equal(code, 130, output);
      assert.ok(server.length >= 2, `running: ${JSON.stringify(server)}`);
      await eventually(
        "the server's processes to end",
        () => server.some(isRunning) ? undefined : true,
        10_000,
      );
      assert.deepEqual(server.filter(isRunning), []);
    } finally {
      killRunning(server);
    }
  });

  test("call redraws the progress bar in place on a terminal", async () => {
    const { code, output } = await inTerminal(
      ["call", "modern", "progress_twice", "--policies", dir.path],
      [],
    );
    assert.deepEqual([code, output], [
      0,
      "\r[##########----------] 1/2 50%\x1b[K\r[####################] 2/2 100%\x1b[K\nprogressed twice\n",
    ]);
  });
});
