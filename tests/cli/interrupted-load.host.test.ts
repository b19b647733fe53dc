// A signal while `sluice check` or `sluice serve` still loads a policy file that takes its time at
// top level (one reading a slow secret store): the command stops at once, serve without binding.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "../../src/cli/mod.ts";
import { scriptedIo, type TempDir, tempDir } from "./_scripted-io.ts";

// The policy file's top-level await is a request this server answers only once the tests are
// done: the command waits on the load until the signal.
const held: ServerResponse[] = [];
const server = createServer((_request, response) => void held.push(response));
let dir: TempDir;
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  dir = tempDir({
    // ESM, as a policy folder with top-level await must be on Node (else it does not parse).
    "package.json": '{ "type": "module" }\n',
    "slow.policy.ts": `await (await fetch("http://127.0.0.1:${port}/")).text();\nexport default {};\n`,
  });
});
after(async () => {
  for (const response of held) response.end("done");
  await new Promise((resolve) => server.close(resolve));
  dir?.remove();
});

/** Runs `argv` and fires the signal once the command is waiting on the load. */
async function interrupted(argv: string[]) {
  const controller = new AbortController();
  const scripted = scriptedIo([], {
    cwd: dir.path,
    signal: controller.signal,
    env: { SLUICE_STATE_KEY: "interrupted-load-state-key-5b0e7c21d9a4f836" },
  });
  const ended = main(argv, scripted.io);
  // Past every step before the load: the command has read its flags and started the import.
  await new Promise((resolve) => setTimeout(resolve, 50));
  controller.abort(new Error("Received SIGINT"));
  return { code: await ended, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

describe("a signal while the policy files load", () => {
  test("check stops with 130, saying it was interrupted", async () => {
    assert.deepEqual(await interrupted(["check", "."]), {
      code: 130,
      stdout: "",
      stderr: "sluice check: interrupted\n",
    });
  });

  test("serve stops with 0 before it listens: no banner, only that it is stopping", async () => {
    assert.deepEqual(await interrupted(["serve", "--port", "0", "--policies", "."]), {
      code: 0,
      stdout: "",
      stderr: "sluice serve: stopping\n",
    });
  });
});
