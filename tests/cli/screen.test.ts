// The command's screen: progress that comes while a prompt waits is held back, the latest kept,
// and shown once the prompt is answered, on a terminal and in a transcript alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Screen } from "../../src/cli/_terminal.ts";
import { LineReader, Prompter } from "../../src/cli/_prompt-input.ts";
import type { CliIo } from "../../src/cli/cli-io.ts";

/** A screen's io that keeps what was written to stdout (no stdin: nothing is read here). */
function collected(isTTY: boolean): { io: CliIo; stdout: () => string } {
  let out = "";
  const io: CliIo = {
    stdin: (async function* () {})(),
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: () => {} },
    env: {},
    isTTY,
  };
  return { io, stdout: () => out };
}

test("progress during a prompt is held back, and the latest shown after the answer", () => {
  const shown = (isTTY: boolean) => {
    const scripted = collected(isTTY);
    const screen = new Screen(scripted.io);
    screen.progress("[#---] 1/4");
    screen.prompt("> ");
    screen.progress("[##--] 2/4");
    screen.progress("[###-] 3/4");
    // The answer's echo, as a transcript (stdin not a terminal) shows it.
    if (!isTTY) screen.write("y\n");
    screen.answered();
    screen.progress("[####] 4/4");
    screen.line("done");
    return scripted.stdout();
  };
  assert.equal(
    shown(true),
    "\r[#---] 1/4\x1b[K\n> \r[###-] 3/4\x1b[K\r[####] 4/4\x1b[K\ndone\n",
  );
  assert.equal(shown(false), "[#---] 1/4\n> y\n[###-] 3/4\n[####] 4/4\ndone\n");
});

test("a request whose signal fires while another prompt is open is never asked, and the person is told so on stderr", async () => {
  let stderr = "";
  const io: CliIo = {
    stdin: (async function* () {})(),
    stdout: { write: () => {} },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    isTTY: true,
  };
  const prompter = new Prompter(new Screen(io), new LineReader(io.stdin));
  let release = () => {};
  const open = new Promise<void>((resolve) => (release = resolve));
  const tie = (signal: AbortSignal) => ({
    serverId: "demo",
    signal,
    era: "legacy" as const,
    relatedRequestId: null,
  });
  const first = prompter.exclusive(tie(new AbortController().signal), "the sampling request", async () => {
    await open;
    return "answered";
  }, "skipped");
  const queued = new AbortController();
  const asked: string[] = [];
  const second = prompter.exclusive(tie(queued.signal), "the roots request", () => {
    asked.push("roots");
    return Promise.resolve("answered");
  }, "skipped");
  queued.abort();
  release();
  assert.deepEqual([await first, await second, asked, stderr], [
    "answered",
    "skipped",
    [],
    '(the roots request of server "demo" was not asked: it timed out or was cancelled while another prompt was open)\n',
  ]);
});
