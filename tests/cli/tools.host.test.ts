// `sluice tools` through main() with a scripted terminal, against the real modern peer
// (@modelcontextprotocol/server 2.4.0 in its own process): the listing, --json, and exit codes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../src/cli/mod.ts";
import { join } from "node:path";
import { modernCallFixture, scriptedIo, tempDir } from "./_scripted-io.ts";
import process from "node:process";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { isRunning, killRunning, watchDescendants } from "../_support/process-tree.ts";

const { folder } = modernCallFixture();

async function tools(argv: string[]) {
  const scripted = scriptedIo();
  const code = await main(["tools", ...argv, "--policies", folder()], scripted.io);
  return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

describe("sluice tools", () => {
  test("tools lists each tool with its description and arguments: type, required, choices", async () => {
    const result = await tools(["modern"]);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    const lines = result.stdout.split("\n");
    assert.deepEqual(lines.slice(0, 18), [
      'Server "modern" has 14 tools:',
      "",
      "ask_form",
      "  One form elicitation",
      "  no arguments",
      "",
      "ask_schema",
      "  One form elicitation of the given requestedSchema",
      "  arguments:",
      "    requestedSchema (object, required)",
      "",
      "ask_url",
      "  One URL elicitation of the given url",
      "  arguments:",
      "    url (string, required)",
      "",
      "ask_sampling",
      "  One sampling request (maxTokens 999999 unless overridden)",
    ]);
    const undeclared = lines.indexOf("undeclared");
    assert.deepEqual(lines.slice(undeclared, undeclared + 10), [
      "undeclared",
      "  Asks for one input kind (default roots); for clients that did not declare it: -32021",
      "  arguments:",
      '    kind (string, optional, one of "roots", "sampling", "elicitation", "url")',
      "",
      "echo",
      "  Returns its arguments",
      "  arguments:",
      "    region (string, optional)",
      "    message (string, required)",
    ]);
    assert.ok(
      result.stdout.endsWith("\nCall one with: sluice call modern <tool> '{\"<argument>\": <value>}'\n"),
      result.stdout,
    );
  });

  test("tools declares what call declares, so the server lists the tools a call can use (server-everything's trigger-sampling-request)", async () => {
    const scripted = scriptedIo();
    const code = await main(
      ["tools", "everything", "--json", "--policies", join(REPO_ROOT, "policies")],
      scripted.io,
    );
    assert.deepEqual([code, scripted.stderr()], [0, ""]);
    const names = (JSON.parse(scripted.stdout()) as { tools: { name: string }[] }).tools.map((tool) =>
      tool.name
    );
    assert.deepEqual(
      ["trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"].filter((name) =>
        names.includes(name)
      ),
      ["trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"],
    );
  });

  test("tools everything (the shipped policy, through npx) leaves no process of the server running when it returns", async () => {
    // server-everything outlives its stdin while its roots/list waits, and npx does not pass
    // SIGTERM on: only a signal to the whole process group ends it.
    const watch = watchDescendants("mcp-server-everything");
    let seen: number[] = [];
    try {
      const scripted = scriptedIo([], { cwd: REPO_ROOT });
      const code = await main(["tools", "everything"], scripted.io);
      seen = watch.stop();
      assert.deepEqual([code, scripted.stderr()], [0, ""]);
      assert.ok(seen.length >= 2, `seen running: ${JSON.stringify(seen)}`);
      assert.deepEqual(seen.filter(isRunning), []);
    } finally {
      killRunning([...seen, ...watch.stop()]);
    }
  });

  test("tools --json prints the tools/list result as JSON", async () => {
    const result = await tools(["modern", "--json"]);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    const listed = JSON.parse(result.stdout) as { tools: { name: string; inputSchema: unknown }[] };
    assert.equal(listed.tools.length, 14);
    assert.deepEqual(listed.tools.find((tool) => tool.name === "ask_url")?.inputSchema, {
      type: "object",
      properties: { url: { type: "string" } },
      required: ["url"],
    });
  });

  test("tools exits 2 on an unknown server or a missing <server>", async () => {
    const unknown = await tools(["nowhere"]);
    assert.deepEqual([unknown.code, unknown.stdout], [2, ""]);
    assert.match(unknown.stderr, /^sluice tools: no policy for server "nowhere" in ".+", expected one of: /);
    const scripted = scriptedIo();
    const code = await main(["tools"], scripted.io);
    assert.deepEqual([code, scripted.stdout(), scripted.stderr()], [
      2,
      "",
      'sluice tools: expected <server>, received nothing\nRun "sluice tools --help" for usage.\n',
    ]);
  });

  test("tools shows why a stdio server would not start: its stderr, as call shows it, then the failure (exit 4)", async () => {
    const dir = tempDir({
      "crash.policy.json": JSON.stringify({
        server: "crash",
        transport: {
          command: process.execPath,
          args: ["-e", "console.error('boom: missing config FOO'); process.exit(3)"],
        },
        era: "legacy",
      }),
    });
    try {
      const scripted = scriptedIo();
      const code = await main(["tools", "crash", "--policies", dir.path], scripted.io);
      assert.deepEqual([code, scripted.stdout(), scripted.stderr()], [
        4,
        "",
        "[info] stderr: boom: missing config FOO\n" +
        'sluice tools: Server "crash": initialize failed: Request 1 "initialize" got no response: the connection ended (process exited with code 3) (transport)\n',
      ]);
    } finally {
      dir.remove();
    }
  });
});
