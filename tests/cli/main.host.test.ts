// main(): help, version, and usage errors (exit 2) naming the flag or argument and what was expected.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HELP, main } from "../../src/cli/mod.ts";
import { CALL_HELP } from "../../src/cli/call.ts";
import { CHECK_HELP } from "../../src/cli/check.ts";
import { LOGIN_HELP } from "../../src/cli/login.ts";
import { LOGOUT_HELP } from "../../src/cli/logout.ts";
import { SERVE_HELP } from "../../src/cli/serve.ts";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { scriptedIo } from "./_scripted-io.ts";

async function run(argv: string[], env: Record<string, string> = {}) {
  const scripted = scriptedIo([], { cwd: REPO_ROOT, env });
  const code = await main(argv, scripted.io);
  return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

describe("sluice main()", () => {
  test("main prints the help for --help, -h and help, each command's for <command> --help and help <command>", async () => {
    for (const argv of [["--help"], ["-h"], ["help"], ["help", "help"], ["help", "--help"], ["help", "-h"]]) {
      assert.deepEqual(await run(argv), { code: 0, stdout: HELP, stderr: "" });
    }
    for (
      const [command, help] of [
        ["check", CHECK_HELP],
        ["serve", SERVE_HELP],
        ["call", CALL_HELP],
        ["login", LOGIN_HELP],
        ["logout", LOGOUT_HELP],
      ] as const
    ) {
      assert.deepEqual(await run([command, "--help"]), { code: 0, stdout: help, stderr: "" });
      assert.deepEqual(await run([command, "-h"]), { code: 0, stdout: help, stderr: "" });
      assert.deepEqual(await run(["help", command]), { code: 0, stdout: help, stderr: "" });
    }
    assert.ok(HELP.startsWith("sluice 0.1.0: the client side of MCP"));
  });

  test("main prints the version for --version and -V", async () => {
    assert.deepEqual(await run(["--version"]), { code: 0, stdout: "sluice 0.1.0\n", stderr: "" });
    assert.deepEqual(await run(["-V"]), { code: 0, stdout: "sluice 0.1.0\n", stderr: "" });
  });

  test("main exits 2 without a command, and on an unknown command or flag, after help too", async () => {
    assert.deepEqual(await run([]), { code: 2, stdout: "", stderr: HELP });
    const unknown = {
      code: 2,
      stdout: "",
      stderr: 'sluice: unknown command "chek", expected one of check, serve, tools, call, login, logout\n' +
        'Run "sluice --help" for usage.\n',
    };
    assert.deepEqual([await run(["chek"]), await run(["help", "chek"])], [unknown, unknown]);
    // After help, a flag is no command either.
    assert.deepEqual(await run(["help", "--version"]), {
      code: 2,
      stdout: "",
      stderr:
        'sluice: unknown command "--version", expected one of check, serve, tools, call, login, logout\n' +
        'Run "sluice --help" for usage.\n',
    });
    assert.deepEqual(await run(["--verbose"]), {
      code: 2,
      stdout: "",
      stderr:
        'sluice: unknown flag "--verbose", expected --help or --version\nRun "sluice --help" for usage.\n',
    });
  });

  test("main exits 2 on serve's usage errors, listing serve's flags", async () => {
    const usage = (message: string) => ({
      code: 2,
      stdout: "",
      stderr: `sluice serve: ${message}\nRun "sluice serve --help" for usage.\n`,
    });
    assert.deepEqual(
      await run(["serve", "--prot", "80"]),
      usage(
        'unknown flag "--prot", expected one of --port, --host, --policies, --handler, --auth, --allowed-hosts, --allowed-origins, --public, --decisions, --heartbeat, --help',
      ),
    );
    assert.deepEqual(
      await run(["serve", "--port"]),
      usage('flag "--port" expects a value, received nothing'),
    );
    assert.deepEqual(
      await run(["serve", "--port", "http"]),
      usage('flag "--port" must be an integer from 0 to 65535, received "http"'),
    );
    assert.deepEqual(await run(["serve", "now"]), usage('unexpected argument "now", expected only flags'));
    assert.deepEqual(
      await run(["serve", "--host", ""]),
      usage('flag "--host" expects a host name or address, received ""'),
    );
    assert.deepEqual(
      await run(["serve", "--port=1", "--port=2"]),
      usage('flag "--port" is given twice, expected it once'),
    );
    // PORT is read as the other variables are: set but empty is unset (the port's check passes,
    // the next flag's fails); set to something else, it must be a port.
    assert.deepEqual(
      [await run(["serve", "--decisions", "yaml"], { PORT: "" }), await run(["serve"], { PORT: "eighty" })],
      [
        usage('flag "--decisions" must be one of json, text, none, received "yaml"'),
        usage('PORT must be an integer from 0 to 65535, received "eighty"'),
      ],
    );
  });

  test("main exits 2 on call's usage errors, naming the argument and what was expected", async () => {
    const usage = (message: string) => ({
      code: 2,
      stdout: "",
      stderr: `sluice call: ${message}\nRun "sluice call --help" for usage.\n`,
    });
    assert.deepEqual(await run(["call"]), usage("expected <server> and <tool>, received neither"));
    assert.deepEqual(
      await run(["call", "demo"]),
      usage('expected <server> and <tool>, received no <tool>; run "sluice tools demo" to list its tools'),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "{}", "more"]),
      usage('unexpected argument "more", expected at most <server> <tool> [json-args]'),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "[1]"]),
      usage('[json-args] must be a JSON object, received "[1]"'),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "{a:1}"]),
      usage(
        '[json-args] must be a JSON object, received "{a:1}", which is not JSON: at character 2, unexpected "a", expected a property name in double quotes or "}"',
      ),
    );
    // A number JSON.parse would read as another is not sent; one it holds is, in any notation.
    assert.deepEqual(
      await run(["call", "demo", "add", '{"a": 12345678901234567890, "b": "12345678901234567890"}']),
      usage(
        "[json-args] holds the number 12345678901234567890, which a number cannot hold as written",
      ),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", '{"a": 1.0000000000000001}']),
      usage(
        "[json-args] holds the number 1.0000000000000001, which a number cannot hold as written",
      ),
    );
    // One past ±1.8e308 would be sent as null.
    assert.deepEqual(
      await run(["call", "demo", "add", '{"a": -1e400}']),
      usage("[json-args] holds the number -1e400, which a number cannot hold as written"),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "--json=yes"]),
      usage('flag "--json" takes no value, received "yes"'),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "--verbose"]),
      usage('unknown flag "--verbose", expected one of --policies, --log-level, --json, --help'),
    );
    assert.deepEqual(
      await run(["call", "demo", "add", "--log-level", "loud"]),
      usage(
        'flag "--log-level" must be one of debug, info, notice, warning, error, critical, alert, emergency, ' +
          'received "loud"',
      ),
    );
    assert.deepEqual(
      await run(["call", "nowhere", "add"]),
      usage('no policy for server "nowhere" in "policies", expected one of: "demo", "everything", "github"'),
    );
  });
});
