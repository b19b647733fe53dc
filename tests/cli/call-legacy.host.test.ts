// `sluice call` against the scripted legacy stdio server: server log entries printed sanitized to
// stderr above --log-level, progress, and a legacy elicitation answered at the prompt.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { main } from "../../src/cli/mod.ts";
import { nodeBinary, REPO_ROOT } from "../_support/modern-peer.ts";
import { everythingStdioCommand } from "../_support/everything.ts";
import { scriptedIo, type TempDir, tempDir } from "./_scripted-io.ts";
import { eventually } from "../_support/eventually.ts";

/** The scripted legacy server that asks for its roots as its session opens, as server-filesystem does. */
const ROOTS_AT_START = {
  transport: {
    command: nodeBinary(),
    args: ["--import", "tsx", "tests/peers/legacy-stdio-server.ts", "roots-at-start"],
    cwd: REPO_ROOT,
  },
  era: "legacy",
  logLevel: "warning",
};

let dir: TempDir;
before(() => {
  dir = tempDir({
    "legacy.policy.json": JSON.stringify({
      server: "legacy",
      transport: {
        command: nodeBinary(),
        args: ["--import", "tsx", "tests/peers/legacy-stdio-server.ts"],
        cwd: REPO_ROOT,
      },
      era: "legacy",
      logLevel: "debug",
    }),
    "everything.policy.json": JSON.stringify({
      server: "everything",
      transport: everythingStdioCommand(),
      era: "legacy",
      logLevel: "notice",
    }),
    "roots.policy.json": JSON.stringify({ server: "roots", ...ROOTS_AT_START }),
    "slow.policy.json": JSON.stringify({
      server: "slow",
      ...ROOTS_AT_START,
      handlerTimeout: { default: "20s" },
    }),
    "quiet.policy.json": JSON.stringify({
      server: "quiet",
      transport: {
        command: nodeBinary(),
        args: ["--import", "tsx", "tests/peers/legacy-stdio-server.ts"],
        cwd: REPO_ROOT,
      },
      era: "legacy",
      logLevel: "notice",
    }),
  });
});
after(() => dir?.remove());

async function call(argv: string[], lines: string[] = []) {
  const scripted = scriptedIo(lines);
  const code = await main(["call", "legacy", ...argv, "--policies", dir.path], scripted.io);
  return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

describe("sluice call on a legacy stdio server", () => {
  test("call prints server log entries with their level to stderr, cleaned by sanitizeText", async () => {
    const lines = ["plain line", "\x1b[31mred\x1b[0m \u202Eevil\u202C\tend"];
    const result = await call(["stderr", JSON.stringify({ lines })]);
    assert.deepEqual(result, {
      code: 0,
      stdout: '{"written":2}\n',
      stderr: "[info] stderr: plain line\n[info] stderr: [31mred[0m evilend\n",
    });
  });

  test("call leaves out a stdio server's stderr lines (level info) when the policy's logLevel is notice", async () => {
    const scripted = scriptedIo();
    const code = await main(
      ["call", "quiet", "stderr", '{"lines":["plain line"]}', "--log-level", "debug", "--policies", dir.path],
      scripted.io,
    );
    assert.deepEqual([code, scripted.stdout(), scripted.stderr()], [0, '{"written":1}\n', ""]);
  });

  test("call leaves out log entries below --log-level", async () => {
    const info = await call(["notify", '{"count":2}']);
    assert.deepEqual(info, {
      code: 0,
      stdout: '{"sent":2}\n',
      stderr: '[info] legacy-stdio-server: {"n":1}\n[info] legacy-stdio-server: {"n":2}\n',
    });
    const quiet = await call(["notify", '{"count":2}', "--log-level", "warning"]);
    assert.deepEqual(quiet, { code: 0, stdout: '{"sent":2}\n', stderr: "" });
  });

  test("call shows progress, and prints structuredContent once when a text part already holds its JSON", async () => {
    const result = await call(["progress", '{"steps":2}']);
    assert.deepEqual(result, {
      code: 0,
      stdout: '[##########----------] 1/2 50%\n[####################] 2/2 100%\n{"steps":2}\n',
      stderr: "",
    });
  });

  test("with stdin closed, a request outside the call (server-everything's roots at start-up) is reported, and the call's own outcome decides the exit code", async () => {
    const run = async (argv: string[]) => {
      const scripted = scriptedIo([]);
      const code = await main(["call", "everything", ...argv, "--policies", dir.path], scripted.io);
      return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
    };
    const prompt = [
      'Server "everything" asks for its roots (the folders it may use).',
      `Share the current folder ${pathToFileURL(process.cwd()).href}? y or n`,
      "> ",
    ];
    const aside = 'sluice call: could not answer the roots request of server "everything", which was not ' +
      "part of the call: stdin is closed\n";
    // The roots request comes as the server starts, before or beside the call; it is in no round.
    const echo = await run(["echo", '{"message":"hi"}']);
    assert.deepEqual([echo.code, echo.stdout.split("\n").sort(), echo.stderr], [
      0,
      [...prompt, "Echo: hi", ""].sort(),
      aside,
    ]);
    const unknown = await run(["nope"]);
    assert.deepEqual(unknown, {
      code: 2,
      stdout: `${prompt.join("\n")}\n`,
      stderr: aside +
        'sluice call: server "everything" has no tool "nope": run "sluice tools everything" to list its tools\n',
    });
  });

  test("the roots a server asks for as its session opens (as server-filesystem does) are answered before the call goes out", async () => {
    const folder = tempDir({});
    try {
      const run = async (answer: string, cwd = folder.path) => {
        const scripted = scriptedIo([answer], { cwd });
        const code = await main(["call", "roots", "received", "--json", "--policies", dir.path], scripted.io);
        // What the server had been answered when the call reached it.
        const { responses } = JSON.parse(scripted.stdout()).structuredContent;
        return [code, responses, scripted.stderr()];
      };
      const uri = pathToFileURL(folder.path).href;
      const prompt =
        `Server "roots" asks for its roots (the folders it may use).\nShare the current folder ${uri}? y or n\n`;
      assert.deepEqual(await run("y"), [
        0,
        [{ jsonrpc: "2.0", id: 0, result: { roots: [{ uri, name: basename(folder.path) }] } }],
        `${prompt}> y\n`,
      ]);
      assert.deepEqual(await run("n"), [
        0,
        [{ jsonrpc: "2.0", id: 0, result: { roots: [] } }],
        `${prompt}> n\nSharing no roots.\n`,
      ]);
      // A folder the roots check would drop is not offered: the person is told why, not asked.
      const odd = join(folder.path, "back\\slash");
      mkdirSync(odd);
      assert.deepEqual(await run("y", odd), [
        0,
        [{ jsonrpc: "2.0", id: 0, result: { roots: [] } }],
        'Server "roots" asks for its roots (the folders it may use).\n' +
        `Sharing no roots: the current folder ${
          pathToFileURL(odd).href
        } cannot be sent as a root (its path ` +
        "holds a backslash, which a server may read as a folder separator).\n",
      ]);
    } finally {
      folder.remove();
    }
  });

  test("Ctrl-C while a prompt of the session's opening waits ends the command at once, exit 130", async () => {
    // A terminal where nobody types: its stdin never ends until the command stops reading.
    let release = () => {};
    const stdin: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<Uint8Array>>((
            resolve,
          ) => (release = () => resolve({ done: true, value: undefined }))),
        return: () => (release(), Promise.resolve({ done: true, value: undefined })),
      }),
    };
    const ctrlC = new AbortController();
    let stderr = "";
    const io = {
      ...scriptedIo([], { cwd: dir.path, signal: ctrlC.signal }).io,
      stdin,
      stderr: { write: (text: string) => (stderr += text) },
    };
    const done = main(["call", "slow", "sleep", '{"ms":30000}', "--json", "--policies", dir.path], io);
    await eventually("the roots prompt", () => stderr.endsWith("> ") || undefined);
    // The session's tools/list, sent beside the prompt, is answered by then (a stdio round trip):
    // the command waits for the person alone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    ctrlC.abort();
    // Without the fix the command waited out the prompt's handlerTimeout (20 s) first.
    assert.deepEqual([await done, stderr], [
      130,
      'Server "slow" asks for its roots (the folders it may use).\n' +
      `Share the current folder ${pathToFileURL(dir.path).href}? y or n\n> \n` +
      'sluice call: Call of tools/call to server "slow" was cancelled (cancelled)\n',
    ]);
  });

  test("Ctrl-C before the session has opened reports the call as cancelled, not the listing it opens with", async () => {
    const ctrlC = new AbortController();
    ctrlC.abort();
    const scripted = scriptedIo([], { cwd: dir.path, signal: ctrlC.signal });
    const code = await main(
      ["call", "slow", "sleep", '{"ms":30000}', "--json", "--policies", dir.path],
      scripted.io,
    );
    // Without the fix: 'Call of tools/list to server "slow" was cancelled'.
    assert.deepEqual([code, scripted.stdout(), scripted.stderr()], [
      130,
      "",
      'sluice call: Call of tools/call to server "slow" was cancelled (cancelled)\n',
    ]);
  });

  test("call answers a legacy elicitation at the prompt", async () => {
    const result = await call(["ask", '{"method":"elicitation/create"}'], ["maybe", "y"]);
    assert.equal(result.code, 0);
    assert.ok(
      result.stdout.includes('> maybe\n  invalid: "ok": y or n; received "maybe"\n> y\n'),
      result.stdout,
    );
    assert.ok(
      result.stdout.endsWith('{"answers":[{"id":0,"result":{"action":"accept","content":{"ok":true}}}]}\n'),
    );
  });

  test("call exits 3 and says so when the policy refused a legacy server's request, though the server answered the call", async () => {
    const url = { mode: "url", message: "m", url: "http://login.example.com/", elicitationId: "e" };
    const result = await call(["ask", JSON.stringify({ method: "elicitation/create", params: url })]);
    assert.equal(result.code, 3);
    assert.ok(result.stdout.includes('"error":{"code":-32602'), result.stdout);
    assert.match(
      result.stderr,
      /^sluice call: the policy refused elicitation\/create from server "legacy": .*"https".* \(the server was told, and answered the call\)$/m,
    );
  });

  test("call asks titled choices, a multi-select by comma-separated numbers, and pre-fills defaults", async () => {
    const params = {
      mode: "form",
      message: "Plan the trip",
      requestedSchema: {
        type: "object",
        properties: {
          city: { type: "string", title: "City", description: "Where to\nstay", default: "Oslo" },
          transport: {
            type: "string",
            title: "Transport",
            oneOf: [{ const: "rail", title: "Train" }, { const: "air", title: "Plane" }],
          },
          extras: {
            type: "array",
            title: "Extras",
            minItems: 1,
            items: {
              anyOf: [{ const: "wifi", title: "Wi-Fi" }, { const: "meal", title: "Meal" }, {
                const: "seat",
                title: "Seat",
              }],
            },
            default: ["wifi"],
          },
          nights: { type: "number", minimum: 1, default: 2 },
          apiToken: { type: "string" },
        },
        required: ["transport", "extras"],
      },
    };
    const answers = ["", "Plane", "4", "1, 3", "", "abc"];
    const result = await call(["ask", JSON.stringify({ method: "elicitation/create", params })], answers);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.deepEqual(result.stdout.split("\n").slice(0, -2), [
      'Server "legacy" asks you to fill in a form:',
      "  Plan the trip",
      "Answer field by field; Enter accepts the [default] or skips an optional field. " +
      "Type :decline or :cancel at any prompt.",
      "City (optional)",
      "  Where to",
      "  stay",
      "  text [Oslo]",
      "> ",
      "Transport (required)",
      "  1. Train",
      "  2. Plane",
      "  choose one: type its number",
      "> Plane",
      "Extras (required)",
      "  1. Wi-Fi",
      "  2. Meal",
      "  3. Seat",
      "  choose any: type their numbers, separated by commas (at least 1) [Wi-Fi]",
      "> 4",
      '  invalid: "Extras": choose any: type their numbers, separated by commas (at least 1); received "4"',
      "> 1, 3",
      "nights (optional)",
      "  a number, at least 1 [2]",
      "> ",
      "apiToken (optional)",
      "  warning: this looks like a secret; servers must not ask for secrets in a form",
      "  text",
      "> abc",
    ]);
    const sent = JSON.parse(result.stdout.split("\n").at(-2) ?? "") as { answers: unknown[] };
    assert.deepEqual(sent.answers, [{
      id: 0,
      result: {
        action: "accept",
        content: { city: "Oslo", transport: "air", extras: ["wifi", "seat"], nights: 2, apiToken: "abc" },
      },
    }]);
  });

  test("call shows a sampling request as the policy left it: system prompt, clamped maxTokens, preferences", async () => {
    const params = {
      messages: [
        { role: "user", content: { type: "text", text: "Summarise\x1b[2J this" } },
        { role: "assistant", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
      ],
      maxTokens: 999999,
      systemPrompt: "Be brief.",
      includeContext: "allServers",
      temperature: 0.2,
      modelPreferences: { hints: [{ name: "claude" }], costPriority: 0.3, intelligencePriority: 0.9 },
    };
    const result = await call(["ask", JSON.stringify({ method: "sampling/createMessage", params })], [
      "Short.",
      ".",
    ]);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.deepEqual(result.stdout.split("\n").slice(0, -2), [
      'Server "legacy" asks for a model reply (sampling):',
      "  maxTokens: 4096 (the server asked 999999)",
      "  system prompt:",
      "    Be brief.",
      '  model preferences: hints "claude"; cost 0.3; intelligence 0.9',
      "  temperature: 0.2",
      "  include context: none (the server asked allServers)",
      "  messages:",
      "    user: Summarise[2J this",
      "    assistant: [image image/png]",
      'Type the reply, then a line with just "." to send it; or :refuse to refuse.',
      "> Short.",
      "> .",
    ]);
    const sent = JSON.parse(result.stdout.split("\n").at(-2) ?? "") as { answers: unknown[] };
    assert.deepEqual(sent.answers, [{
      id: 0,
      result: { role: "assistant", content: { type: "text", text: "Short." }, model: "human-operator" },
    }]);
  });
});
