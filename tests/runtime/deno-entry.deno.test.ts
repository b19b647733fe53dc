// The Deno entry (@sluice/mcp/deno) over real HTTP: Deno.serve in front of the modern peer (the
// cases every entry shares, in ./_entry-cases.ts); `deno serve` with the gateway as default export;
// and the state key when Deno may not read the environment.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
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
import { everythingStdioCommand } from "../_support/everything.ts";
import { EventReader, LegacyCaller } from "../_support/legacy-caller.ts";
import { modernMeta, modernRequest } from "../_support/gateway-caller.ts";

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
  test("createGateway() without --allow-env, or with --deny-env, says SLUICE_STATE_KEY cannot be read and what lets it, not that it is unset", async () => {
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
    const unreadable =
      'TypeError: @sluice/mcp/deno: "SLUICE_STATE_KEY" cannot be read: Deno was not allowed to read it, expected --allow-env (or --allow-env=SLUICE_STATE_KEY), or the "stateKey" option';
    assert.equal(await runDeno(["run", "--no-prompt", "-"], script, env), `prompt\n${unreadable}\n`);
    assert.equal(
      await runDeno(["run", "--no-prompt", "--deny-env", "-"], script, env),
      `denied\n${unreadable}\n`,
    );
    // Allowed to read it, but it is not set: the message every entry gives.
    const unset = { PATH: env.PATH, NO_COLOR: "1" };
    assert.equal(
      await runDeno(["run", "--no-prompt", "--allow-env", "-"], script, unset),
      `granted\nTypeError: ${NO_KEY}\n`,
    );
  });

  test("a module exporting createGateway() as default runs under deno serve", async () => {
    const { url, done } = await denoServe(
      `{ server: "modern", transport: { url: ${JSON.stringify(peer.url)} }, era: "modern" }`,
      ["--allow-net=127.0.0.1", "--allow-env=SLUICE_STATE_KEY"],
    );
    try {
      assert.equal(await (await fetch(`${url}/healthz`)).text(), '{"ok":true}');
      const call = { server: "modern", name: "add", arguments: { a: 2, b: 3 } };
      assert.deepEqual(await callTool(url, call), ADD_ANSWER);
    } finally {
      await done();
    }
  });

  test("under deno serve, the first SIGINT ends the process once a stdio server was called: the gateway closes its client, and the server's child goes with it", async () => {
    const { child, url, done } = await denoServe(
      `{ server: "everything", transport: ${JSON.stringify(everythingStdioCommand())}, era: "legacy" }`,
      ["-A"],
    );
    const exitWithin = watchExit(child);
    try {
      const echoed = await callTool(url, {
        server: "everything",
        name: "echo",
        arguments: { message: "hi" },
      });
      assert.deepEqual(echoed, {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 1,
          result: { content: [{ type: "text", text: "Echo: hi" }], resultType: "complete" },
        },
      });
      const stdio = execFileSync("ps", ["-o", "pid=", "--ppid", String(child.pid)], { encoding: "utf8" })
        .split("\n").map((line) => Number(line.trim())).filter((pid) => pid > 0);
      assert.equal(stdio.length, 1, "the stdio server runs as the gateway's child");
      child.kill("SIGINT");
      // How it ended is not compared: Deno's child_process reports a child that ended after a
      // SIGINT as killed by it, a plain `deno serve` too, where Node's sees it exit 0.
      assert.equal(await exitWithin(15_000, "SIGINT"), "ended");
      assert.throws(() => process.kill(stdio[0] as number, 0), { code: "ESRCH" });
    } finally {
      await done();
    }
  });

  test("under deno serve, a 2026 call answered as a stream when SIGTERM comes is answered whole before the gateway closes, and then the process ends", async () => {
    const { child, url, done } = await denoServe(
      `{ server: "everything", transport: ${JSON.stringify(everythingStdioCommand())}, era: "legacy" }`,
      ["-A"],
    );
    const exitWithin = watchExit(child);
    try {
      const response = await fetch(
        modernRequest(
          `${url}/mcp/everything`,
          "tools/call",
          {
            name: "trigger-long-running-operation",
            arguments: { duration: 5, steps: 5 },
            _meta: { ...modernMeta(), progressToken: "long" },
          },
          { accept: "application/json, text/event-stream" },
        ),
      );
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const progress = (n: number) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progress: n, total: 5, progressToken: "long" },
      });
      const events = new EventReader(response);
      assert.deepEqual(JSON.parse((await events.next())?.data ?? "null"), progress(1));
      child.kill("SIGTERM");
      const rest: unknown[] = [];
      for (let event = await events.next(); event !== undefined; event = await events.next()) {
        rest.push(JSON.parse(event.data));
      }
      // The rest of the progress, then the result whole.
      const result = {
        content: [{ type: "text", text: "Long running operation completed. Duration: 5 seconds, Steps: 5." }],
        resultType: "complete",
      };
      assert.deepEqual(rest, [...[2, 3, 4, 5].map(progress), { jsonrpc: "2.0", id: 1, result }]);
      assert.equal(await exitWithin(15_000, "SIGTERM"), "ended");
    } finally {
      await done();
    }
  });

  test("under deno serve, which stops listening at the signal, a 2025 host's call waiting for its answer to a form ends, and so does the process", async () => {
    const { child, url, done } = await denoServe(
      `{ server: "everything", transport: ${
        JSON.stringify(everythingStdioCommand())
      }, era: "legacy", passDown: ["elicitation"] }`,
      ["-A"],
    );
    const exited = new Promise<string>((resolve) => child.once("exit", () => resolve("ended")));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const host = new LegacyCaller(fetch, `${url}/mcp/everything`);
      await host.initialize({ elicitation: { form: {} } });
      const call = new EventReader(
        await host.post({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "trigger-elicitation-request", arguments: {} },
        }),
      );
      const asked = await call.message();
      assert.equal(asked?.method, "elicitation/create");
      child.kill("SIGTERM");
      // The host is told the form was cancelled, and its call ends with what the server made of that.
      const rest: string[] = [];
      const read = (async () => {
        for (let message = await call.message(); message !== undefined; message = await call.message()) {
          rest.push(String(message.method ?? `answer ${message.id}`));
        }
        return await exited;
      })();
      const ended = await Promise.race([
        read,
        new Promise<string>((resolve) =>
          timer = setTimeout(() => resolve("still running 15 s after SIGTERM"), 15_000)
        ),
      ]);
      assert.deepEqual([rest, ended], [["notifications/cancelled", "answer 1"], "ended"]);
    } finally {
      clearTimeout(timer);
      await done();
    }
  });
});

/**
 * Watches a child's exit from now on (the listener comes first: Deno's `child_process` may mark a
 * child signalled as soon as it is sent the signal, before it has ended).
 *
 * @param child The process.
 * @returns `within(ms, what)`: `"ended"` once the child has exited, or that it still runs `ms`
 *   after `what`.
 */
function watchExit(child: ChildProcess): (ms: number, what: string) => Promise<string> {
  const exited = new Promise<string>((resolve) => child.once("exit", () => resolve("ended")));
  return (ms, what) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`still running ${ms / 1000} s after ${what}`), ms);
    });
    return Promise.race([exited, late]).finally(() => clearTimeout(timer));
  };
}

/**
 * Runs `deno serve` on a module whose default export is the entry's `createGateway()` with one
 * policy, with the given permissions; resolves once it listens.
 *
 * @param policy The policy, as TypeScript source.
 * @param permissions Deno's permission flags.
 * @returns The process, the gateway's URL, and `done()`, which stops it and removes the module.
 */
async function denoServe(policy: string, permissions: readonly string[]) {
  const folder = mkdtempSync(join(tmpdir(), "sluice-deno-serve-"));
  const main = join(folder, "main.ts");
  writeFileSync(
    main,
    `import { createGateway } from ${JSON.stringify(ENTRY)};\n` +
      `export default createGateway({ policies: [${policy}] });\n`,
  );
  const child = spawn(DENO, [
    "serve",
    "--no-prompt",
    "--config",
    join(REPO_ROOT, "deno.json"),
    ...permissions,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    main,
  ], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", SLUICE_STATE_KEY: KEY, NO_COLOR: "1" } });
  const done = async () => {
    await stopChild(child);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    const url = await awaitLine(child, "stderr", /Listening on (http:\/\/127\.0\.0\.1:\d+)\//);
    child.stdout?.resume();
    return { child, url, done };
  } catch (error) {
    await done();
    throw error;
  }
}
