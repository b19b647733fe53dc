// `sluice call` through main() with a scripted terminal, against the real modern peer
// (@modelcontextprotocol/server 2.4.0 in its own process): sampling, roots, progress, and every exit code.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";
import { main } from "../../src/cli/mod.ts";
import { modernCallFixture, policyJson, scriptedIo, tempDir } from "./_scripted-io.ts";

const { call, folder } = modernCallFixture();

describe("sluice call: sampling and roots", () => {
  test("call shows the clamped request and sends the typed reply as human-operator", async () => {
    const result = await call(["strict", "ask_sampling", '{"prompt":"Say hi\\nplease"}'], [
      "Hello there",
      "",
      "bye",
      ".",
    ]);
    assert.deepEqual(result, {
      code: 0,
      stdout: [
        'Server "strict" asks for a model reply (sampling):',
        "  maxTokens: 100 (the server asked 999999)",
        "  messages:",
        "    user: Say hi",
        "      please",
        'Type the reply, then a line with just "." to send it; or :refuse to refuse.',
        "> Hello there",
        "> ",
        "> bye",
        "> .",
        "Hello there",
        "",
        "bye",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  test("call refuses sampling on :refuse and exits 5 (refused by you)", async () => {
    const result = await call(["modern", "ask_sampling"], [":refuse"]);
    assert.deepEqual(result, {
      code: 5,
      stdout: [
        'Server "modern" asks for a model reply (sampling):',
        "  maxTokens: 4096 (the server asked 999999)",
        "  messages:",
        "    user: Say hello",
        'Type the reply, then a line with just "." to send it; or :refuse to refuse.',
        "> :refuse",
        "Refused.",
        "",
      ].join("\n"),
      stderr: 'sluice call: you refused the sampling request of server "modern"\n',
    });
  });

  test("call fails sampling and roots requests when stdin is closed, and exits 6", async () => {
    const sampling = await call(["modern", "ask_sampling"], []);
    assert.deepEqual([sampling.code, sampling.stdout.split("\n").slice(-3), sampling.stderr], [
      6,
      [
        'Type the reply, then a line with just "." to send it; or :refuse to refuse.',
        "> ",
        "",
      ],
      'sluice call: cannot answer the sampling request of server "modern": stdin is closed, ' +
      "expected an answer typed at a terminal or piped to stdin\n",
    ]);
    const cwd = folder();
    const roots = await call(["modern", "ask_roots"], [], { cwd });
    assert.deepEqual(roots, {
      code: 6,
      stdout: [
        'Server "modern" asks for its roots (the folders it may use).',
        `Share the current folder ${pathToFileURL(cwd).href}? y or n`,
        "> ",
        "",
      ].join("\n"),
      stderr: 'sluice call: cannot answer the roots request of server "modern": stdin is closed, ' +
        "expected an answer typed at a terminal or piped to stdin\n",
    });
  });

  test("call offers the working directory as the one root after y, and none after n", async () => {
    const cwd = folder();
    const yes = await call(["modern", "ask_roots"], ["y"], { cwd });
    const uri = pathToFileURL(cwd).href;
    assert.deepEqual(yes, {
      code: 0,
      stdout: [
        'Server "modern" asks for its roots (the folders it may use).',
        `Share the current folder ${uri}? y or n`,
        "> y",
        JSON.stringify([uri]),
        "",
      ].join("\n"),
      stderr: "",
    });
    const no = await call(["modern", "ask_roots"], ["n"], { cwd });
    assert.deepEqual([no.code, no.stdout.split("\n").slice(-4)], [0, ["> n", "Sharing no roots.", "[]", ""]]);
  });

  test("call --json writes the result alone to stdout: prompts, answers and progress go to stderr", async () => {
    const cwd = folder();
    const roots = await call(["modern", "ask_roots", "--json"], ["n"], { cwd });
    const answered = {
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
    };
    assert.deepEqual({ ...roots, stdout: JSON.parse(roots.stdout) }, {
      code: 0,
      stdout: { content: [{ type: "text", text: "[]" }], ...answered },
      stderr: [
        'Server "modern" asks for its roots (the folders it may use).',
        `Share the current folder ${pathToFileURL(cwd).href}? y or n`,
        "> n",
        "Sharing no roots.",
        "",
      ].join("\n"),
    });
    const progress = await call(["modern", "progress_twice", "--json"]);
    assert.deepEqual([progress.code, JSON.parse(progress.stdout), progress.stderr], [
      0,
      { content: [{ type: "text", text: "progressed twice" }], ...answered },
      "[##########----------] 1/2 50%\n[####################] 2/2 100%\n",
    ]);
  });

  test("call prints progress as plain lines when stdout is not a terminal, redrawn in place on one", async () => {
    const plain = await call(["modern", "progress_twice"]);
    assert.deepEqual(plain, {
      code: 0,
      stdout: "[##########----------] 1/2 50%\n[####################] 2/2 100%\nprogressed twice\n",
      stderr: "",
    });
    const tty = await call(["modern", "progress_twice"], [], { isTTY: true });
    assert.equal(tty.code, 0);
    assert.equal(
      tty.stdout,
      "\r[##########----------] 1/2 50%\x1b[K\r[####################] 2/2 100%\x1b[K\nprogressed twice\n",
    );
  });
});

describe("sluice call: exit codes", () => {
  test("call exits 3 on a policy refusal and 5 on yours, apart", async () => {
    const policy = await call(["strict", "ask_url", '{"url":"https://evil.example.com/x"}']);
    const yours = await call(["modern", "ask_url", '{"url":"https://example.com/x"}'], ["n"]);
    assert.deepEqual([policy.code, yours.code], [3, 5]);
  });

  test("call exits 1 when the tool reports an error, printing its content", async () => {
    assert.deepEqual(await call(["modern", "add", '{"a":"x"}']), {
      code: 1,
      stdout: "Input validation error: Invalid arguments for tool add: data/a must be number\n",
      stderr: "sluice call: the tool reported an error (isError: true)\n",
    });
    assert.deepEqual(await call(["modern", "add", '{"a":2,"b":3}']), { code: 0, stdout: "5\n", stderr: "" });
  });

  test("call exits 3 when the policy refuses an input request (a denied URL host)", async () => {
    const result = await call(["strict", "ask_url", '{"url":"https://evil.example.com/x"}']);
    assert.deepEqual(result, {
      code: 3,
      stdout: "",
      stderr:
        'sluice call: Input request "visit" (elicitation/create) from server "strict" refused by policy: ' +
        'Elicitation URL "https://evil.example.com/x" refused: expected a host outside denyHosts, received ' +
        '"evil.example.com" (matches "evil.example.com") (policy, code -32602)\n',
    });
  });

  test("call exits 3 when the server needs sampling and the policy says sampling: false (-32021)", async () => {
    const result = await call(["nosampling", "ask_sampling"]);
    assert.deepEqual(result, {
      code: 3,
      stdout: "",
      stderr:
        'sluice call: Server "nosampling" answered tools/call with error -32021: "Cannot request input ' +
        "'llm' (sampling/createMessage): the request's client capabilities do not declare the required " +
        'capability"; it needs the client capabilities "sampling" (server, code -32021)\n',
    });
  });

  test("call exits 4 when the server cannot be reached (a closed port)", async () => {
    const port = await closedPort();
    const closed = tempDir({ "gone.policy.json": policyJson("gone", `http://127.0.0.1:${port}/mcp`) });
    try {
      const scripted = scriptedIo();
      const code = await main(["call", "gone", "add", "--policies", closed.path], scripted.io);
      assert.deepEqual([code, scripted.stdout()], [4, ""]);
      assert.match(
        scripted.stderr(),
        new RegExp(
          `^sluice call: Server "gone": request to http://127\\.0\\.0\\.1:${port}/mcp failed: .+ \\(transport\\)\\n$`,
        ),
      );
    } finally {
      closed.remove();
    }
  });

  test("call exits 2 on a tool the server does not list (its JSON-RPC error -32602), pointing to sluice tools", async () => {
    assert.deepEqual(await call(["modern", "nope"]), {
      code: 2,
      stdout: "",
      stderr:
        'sluice call: server "modern" has no tool "nope": run "sluice tools modern" to list its tools\n',
    });
  });

  test("call keeps exit 1 for a listed tool's isError result, and 3 for -32021 from a listed tool", async () => {
    const invalid = await call(["modern", "echo", '{"message":1}']);
    assert.deepEqual([invalid.code, invalid.stderr], [
      1,
      "sluice call: the tool reported an error (isError: true)\n",
    ]);
    const undeclared = await call(["nosampling", "undeclared", '{"kind":"sampling"}']);
    assert.deepEqual([undeclared.code, undeclared.stdout], [3, ""]);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
