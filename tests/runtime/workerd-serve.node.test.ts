// The Workers entry under `workerd serve`, the runtime Cloudflare runs, with nothing in between
// (Miniflare puts a Worker of its own in front, which hides what a caller's connection does). A
// caller that leaves before its answer starts is never told to the Worker: neither the request's
// signal (even with `enable_request_signal`) nor the answer's stream hears it, and once the front
// has handed its call to `waitUntil` the upstream request would last until `callTimeout`. The
// heartbeat is how the front learns it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HostilePeer, startHostilePeer } from "../hardening/_hostile-peer.ts";
import { eventually, within } from "../_support/eventually.ts";
import { bundle } from "../_support/bundle.ts";
import { type ServedWorker, serveWorker } from "../_support/workerd.ts";
import { hostileCall, sendRaw } from "./_entry-cases.ts";

const ENTRY = fileURLToPath(new URL("./_workers/heartbeat-worker.ts", import.meta.url));
const KEY = "workerd-serve-test-state-key-0123456789abcdef";

describe("the Workers entry under workerd serve", { timeout: 120_000 }, () => {
  let dir: string;
  let hostile: HostilePeer;
  let worker: ServedWorker;
  let url: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-workerd-serve-"));
    hostile = await within("startHostilePeer()", startHostilePeer());
    await writeFile(join(dir, "worker.js"), (await bundle(ENTRY)).code);
    worker = await serveWorker(join(dir, "worker.js"), {
      SLUICE_STATE_KEY: KEY,
      UPSTREAM_URL: `${hostile.origin}/modern`,
    });
    url = worker.url;
  });

  after(async () => {
    const stops = [
      within("workerd stop", worker?.stop() ?? Promise.resolve()),
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
        worker.output().split("\n").map((line) => line.match(/\{"type":"call".*\}$/)?.[0]).find((line) =>
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
