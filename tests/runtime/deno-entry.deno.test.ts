// The Deno entry (@sluice/mcp/deno) over real HTTP: Deno.serve in front of the modern peer (the
// cases every entry shares, in ./_entry-cases.ts); `deno serve` with the gateway as default export;
// and the environment read without --allow-env.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { createGateway, serve } from "../../src/adapters/deno.ts";
import {
  awaitLine,
  type ModernPeer,
  REPO_ROOT,
  startModernPeer,
  stopChild,
} from "../_support/modern-peer.ts";
import { ADD_ANSWER, callTool, describeEntry, KEY, NO_KEY } from "./_entry-cases.ts";

const ENTRY = pathToFileURL(join(REPO_ROOT, "src", "adapters", "deno.ts")).href;
// Not process.execPath: Deno's node:child_process hands its own permissions to a child spawned by
// that exact path, and these children must run with only the permissions their flags give.
const DENO = join(REPO_ROOT, "node_modules", ".bin", "deno");

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

/** Runs `deno <args>` from the repository root; resolves with its stdout once it exits. */
function runDeno(args: string[], stdin: string, env: Record<string, string>): Promise<string> {
  const child = spawn(DENO, args, { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => out += chunk);
  child.stderr.resume();
  child.stdin.end(stdin);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(out);
    })
  );
}

describeEntry("Deno", { serve, createGateway }, {
  peer: () => peer,
  bindingsFrom: (address) => ({ remoteAddr: { transport: "tcp", hostname: address, port: 50_000 } }),
});

describe("Deno gateway permissions and deno serve", () => {
  test("createGateway() without --allow-env, or with --deny-env, reads SLUICE_STATE_KEY as unset instead of failing", async () => {
    const script = `
      import { createGateway } from ${JSON.stringify(ENTRY)};
      console.log(Deno.permissions.querySync({ name: "env" }).state);
      try {
        createGateway({ policies: [{ server: "s", transport: { url: "http://127.0.0.1:9/mcp" }, era: "modern" }] });
        console.log("built");
      } catch (error) {
        console.log(error.name + ": " + error.message);
      }
    `;
    const env = { PATH: process.env.PATH ?? "", SLUICE_STATE_KEY: KEY, NO_COLOR: "1" };
    assert.equal(await runDeno(["run", "--no-prompt", "-"], script, env), `prompt\nTypeError: ${NO_KEY}\n`);
    assert.equal(
      await runDeno(["run", "--no-prompt", "--deny-env", "-"], script, env),
      `denied\nTypeError: ${NO_KEY}\n`,
    );
  });

  test("a module exporting createGateway() as default runs under deno serve", async () => {
    const folder = mkdtempSync(join(tmpdir(), "sluice-deno-serve-"));
    const main = join(folder, "main.ts");
    writeFileSync(
      main,
      `import { createGateway } from ${JSON.stringify(ENTRY)};\n` +
        `export default createGateway({ policies: [{ server: "modern", transport: { url: ${
          JSON.stringify(peer.url)
        } }, era: "modern" }] });\n`,
    );
    let child: ChildProcess | undefined;
    try {
      child = spawn(DENO, [
        "serve",
        "--no-prompt",
        "--config",
        join(REPO_ROOT, "deno.json"),
        "--allow-net=127.0.0.1",
        "--allow-env=SLUICE_STATE_KEY",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        main,
      ], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", SLUICE_STATE_KEY: KEY, NO_COLOR: "1" } });
      const url = await awaitLine(child, "stderr", /Listening on (http:\/\/127\.0\.0\.1:\d+)\//);
      assert.equal(await (await fetch(`${url}/healthz`)).text(), '{"ok":true}');
      const call = { server: "modern", name: "add", arguments: { a: 2, b: 3 } };
      assert.deepEqual(await callTool(url, call), ADD_ANSWER);
    } finally {
      if (child !== undefined) await stopChild(child);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
