// What `sluice call` prints for a result, and the exit code of each ClientError kind.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ClientError, type ClientErrorKind } from "../../src/errors.ts";
import {
  CALL_EXIT,
  describeCallFailure,
  exitCodeOf,
  printResult,
  progressLine,
} from "../../src/cli/_call-output.ts";
import { SignInRequiredError } from "../../src/upstream-auth-error.ts";
import { safeJson } from "../../src/_internal/safe-json.ts";
import { Screen } from "../../src/cli/_terminal.ts";
import { scriptedIo } from "./_scripted-io.ts";

describe("sluice call output", () => {
  test("a needed sign-in names the command to run; a step-up's, the scopes to list in the policy first (sluice login asks for the policy's)", () => {
    const plain = new SignInRequiredError({ server: "files", principal: "" });
    const stepUp = new SignInRequiredError({
      server: "files",
      principal: "",
      scopes: ["mcp:tools", "mcp:admin"],
    });
    const failed = (error: Error) =>
      new ClientError("transport", `Server "files": ${error.message}`, { cause: error });
    assert.deepEqual(
      [describeCallFailure(failed(plain), "my policies"), describeCallFailure(failed(stepUp))],
      [
        "server \"files\" needs a sign-in: run `sluice login files --policies 'my policies'`",
        'server "files" needs a sign-in for the scopes "mcp:tools mcp:admin": list them in its policy\'s transport.auth.oauth.scopes, then run `sluice login files`',
      ],
    );
  });

  test("exitCodeOf() maps policy refusals to 3, the operator's to 5, other failures to 4, an interruption to 130", () => {
    const kinds: ClientErrorKind[] = [
      "input_handler",
      "policy",
      "protocol",
      "transport",
      "timeout",
      "server",
      "rounds_exceeded",
      "cancelled",
      "config",
    ];
    assert.deepEqual(kinds.map((kind) => [kind, exitCodeOf(new ClientError(kind, "x"), false)]), [
      ["input_handler", 5],
      ["policy", 3],
      ["protocol", 4],
      ["transport", 4],
      ["timeout", 4],
      ["server", 4],
      ["rounds_exceeded", 4],
      ["cancelled", 4],
      ["config", 4],
    ]);
    assert.deepEqual([
      exitCodeOf(new ClientError("server", "missing capability", { code: -32021 }), false),
      exitCodeOf(new ClientError("protocol", "undeclared kind", { code: -32601 }), false),
      exitCodeOf(new ClientError("server", "not found", { code: -32601 }), false),
      exitCodeOf(new Error("boom"), false),
      exitCodeOf(new ClientError("cancelled", "x"), true),
    ], [3, 3, 4, 4, 130]);
  });

  test("CALL_EXIT gives each outcome its own code", () => {
    assert.deepEqual(CALL_EXIT, {
      ok: 0,
      toolError: 1,
      usage: 2,
      refused: 3,
      failed: 4,
      declined: 5,
      stdinClosed: 6,
      interrupted: 130,
    });
  });

  test("printResult() prints text parts as text, other parts as JSON, then structuredContent as JSON", () => {
    const scripted = scriptedIo();
    printResult(new Screen(scripted.io), {
      content: [
        { type: "text", text: "line one\nline\ttwo\n" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { temperature: 21 },
    });
    assert.equal(
      scripted.stdout(),
      'line one\nline\ttwo\n{"type":"image","data":"AAAA","mimeType":"image/png"}\nstructuredContent:\n' +
        '{\n  "temperature": 21\n}\n',
    );
  });

  test("printResult() cleans text of control and bidi characters on a terminal only", () => {
    const result = { content: [{ type: "text", text: "ok\x1b[2J\u202Edone\nnext" }] };
    const tty = scriptedIo([], { isTTY: true });
    printResult(new Screen(tty.io), result);
    const pipe = scriptedIo();
    printResult(new Screen(pipe.io), result);
    assert.deepEqual([tty.stdout(), pipe.stdout()], ["ok[2Jdone\nnext\n", "ok\x1b[2J\u202Edone\nnext\n"]);
  });

  test("printResult() writes a server's C1 controls and invisible characters in its JSON as escapes, on a terminal or not", () => {
    const hostile = "n\x1b]52;c;ZXZpbA==\x07\u009b2J\u202e\u200b\u2028\u{e0041}\x7f";
    const result = {
      content: [{ type: "resource_link", uri: "file:///x", name: hostile }],
      structuredContent: { k: hostile },
    };
    const escaped = "n\\u001b]52;c;ZXZpbA==\\u0007\\u009b2J\\u202e\\u200b\\u2028\\udb40\\udc41\\u007f";
    const expected = `{"type":"resource_link","uri":"file:///x","name":"${escaped}"}\nstructuredContent:\n` +
      `{\n  "k": "${escaped}"\n}\n`;
    const tty = scriptedIo([], { isTTY: true });
    printResult(new Screen(tty.io), result);
    const pipe = scriptedIo();
    printResult(new Screen(pipe.io), result);
    assert.deepEqual([tty.stdout(), pipe.stdout()], [expected, expected]);
    // The same JSON value: a program reading it gets the server's exact text.
    assert.equal(JSON.parse(safeJson(hostile)), hostile);
  });

  test("progressLine() draws a bar when the total is known, and a count with the message otherwise", () => {
    assert.deepEqual([
      progressLine({ progress: 1, total: 4, message: "copying\u202E" }),
      progressLine({ progress: 7 }),
      progressLine({ progress: 9, total: 3 }),
    ], [
      "[#####---------------] 1/4 25% copying",
      "progress 7",
      "[####################] 9/3 100%",
    ]);
  });
});
