// The Workers entry under `workerd serve`, the runtime Cloudflare runs, with nothing in between
// (Miniflare puts a Worker of its own in front, which hides what a caller's connection does). A
// caller that leaves before its answer starts is never told to the Worker: neither the request's
// signal (even with `enable_request_signal`) nor the answer's stream hears it, and once the front
// has handed its call to `waitUntil` the upstream request would last until `callTimeout`. The
// heartbeat is how the front learns it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { type HostilePeer, startHostilePeer } from "../hardening/_hostile-peer.ts";
import { eventually, within } from "../_support/eventually.ts";
import { stopChild } from "../_support/modern-peer.ts";
import { freePort } from "../_support/redis-server.ts";
import { hostileCall, sendRaw } from "./_entry-cases.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKERD = join(ROOT, "node_modules", "@cloudflare", "workerd-linux-64", "bin", "workerd");
const ENTRY = fileURLToPath(new URL("./_workers/heartbeat-worker.ts", import.meta.url));
const KEY = "workerd-serve-test-state-key-0123456789abcdef";

/** A workerd config serving `module` (relative to the config) on `port`, its fetches allowed to loopback. */
function config(module: string, port: number, upstream: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "${module}") ],
  compatibilityDate = "2026-04-20",
  bindings = [
    (name = "SLUICE_STATE_KEY", text = "${KEY}"),
    (name = "UPSTREAM_URL", text = "${upstream}"),
  ],
);
`;
}

describe("the Workers entry under workerd serve", { timeout: 120_000 }, () => {
  let dir: string;
  let hostile: HostilePeer;
  let workerd: ChildProcess;
  let url: string;
  let output = "";

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-workerd-serve-"));
    hostile = await within("startHostilePeer()", startHostilePeer());
    await build({
      entryPoints: [ENTRY],
      outfile: join(dir, "worker.js"),
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: ["worker", "browser"],
      logLevel: "warning",
    });
    const port = await freePort();
    await writeFile(join(dir, "worker.capnp"), config("worker.js", port, `${hostile.origin}/modern`));
    // --verbose: the Worker's console.log (its decision lines) reaches stdout.
    workerd = spawn(WORKERD, ["serve", join(dir, "worker.capnp"), "--verbose"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [workerd.stdout, workerd.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => (output += chunk));
    }
    url = `http://127.0.0.1:${port}`;
    await eventually("workerd answering /healthz", async () => {
      const health = await fetch(`${url}/healthz`).catch(() => undefined);
      return health?.status === 200 ? true : undefined;
    });
  });

  after(async () => {
    const stops = [
      within("workerd stop", workerd === undefined ? Promise.resolve() : stopChild(workerd)),
      within("hostile.stop()", hostile?.stop() ?? Promise.resolve()),
    ];
    const failed = (await Promise.allSettled(stops)).filter((stop) => stop.status === "rejected");
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    assert.deepEqual(failed, []);
  });

  test("a caller that goes away before its answer starts ends the upstream request within a few beats", async () => {
    const caller = await sendRaw(hostileCall(url, "keepalive"));
    // The upstream answers with an SSE stream of comments that never ends.
    await within("the upstream call", hostile.waitFor("modern tools/call keepalive"), 10_000);
    caller.destroy();
    // Left to itself the upstream request would last callTimeout, 60 s.
    await within("the upstream request's end", hostile.waitFor("keepalive: closed by the client"), 10_000);
    const decision = await eventually(
      "the call's decision line",
      () =>
        output.split("\n").map((line) => line.match(/\{"type":"call".*\}$/)?.[0]).find((line) =>
          line !== undefined
        ),
      10_000,
    );
    const { time: _time, durationMs: _duration, ...rest } = JSON.parse(decision) as Record<string, unknown>;
    assert.deepEqual(rest, {
      type: "call",
      client: "sluice",
      server: "hostile",
      method: "tools/call",
      name: "keepalive",
      outcome: "failed",
      error: { kind: "cancelled", message: 'Call of tools/call to server "hostile" was cancelled' },
    });
  });
});
