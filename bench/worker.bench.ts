/**
 * The Worker: the size of `examples/worker` bundled as a deploy bundles it
 * (`scripts/build-worker.ts`: `wrangler deploy --dry-run --minify`), minified and gzipped, and
 * its cold start in workerd: the time from spawning a fresh `workerd serve` (the binary wrangler
 * and Miniflare run, with a generated config, no compatibility flags) to the first `200` from
 * `GET /healthz`, polled every millisecond. A trivial Worker is started the same way, in turn
 * with the example, and the difference, start by start, is the part sluice's script adds (its
 * parse, compile and top-level run in the isolate, and its first request); the rest is
 * workerd's own start. Node only.
 *
 * @module
 */
import { execFile, spawn } from "node:child_process";
import { request } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { WorkerBuild } from "../scripts/build-worker.ts";
import { nodeBinary, REPO_ROOT, stopChild } from "../tests/_support/modern-peer.ts";
import { freePort } from "../tests/_support/redis-server.ts";
import { EXAMPLE_COMPATIBILITY_DATE, WORKERD, workerdConfig } from "../tests/_support/workerd.ts";
import { type Spread, spreadOf } from "./_stats.ts";

/** The Worker's figures. */
export interface WorkerFigures {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Spawn to first response, in milliseconds, of the example. */
  readonly coldStartMs: Spread;
  /** The same of a trivial Worker. */
  readonly baselineMs: Spread;
  /** The example minus the trivial Worker, start by start. */
  readonly scriptMs: Spread;
  readonly compatibilityDate: string;
}

/**
 * Runs `scripts/build-worker.ts` from its source (with tsx: it finds wrangler and the example
 * relative to itself, which a compiled copy in bench/.tmp would not).
 */
function buildWorkerExample(outdir: string): Promise<WorkerBuild> {
  const script = join(REPO_ROOT, "scripts", "build-worker.ts");
  return new Promise((resolve, reject) => {
    execFile(
      nodeBinary(),
      ["--import", "tsx", script, outdir],
      { cwd: REPO_ROOT, timeout: 120_000 },
      (error, stdout) => {
        if (error !== null) reject(error);
        else resolve(JSON.parse(stdout.trim().split("\n").pop() ?? "") as WorkerBuild);
      },
    );
  });
}

const TRIVIAL = `export default {
  fetch() { return new Response('{"ok":true}', { headers: { "content-type": "application/json" } }); },
};
`;

/** The Worker's bindings: the example's secrets and an upstream that is never called. */
const BINDINGS = {
  SLUICE_STATE_KEY: "bench-cold-start-state-key-0123456789abcdef",
  GATEWAY_TOKEN: "bench-cold-start-gateway-token-0123456789abcdef",
  UPSTREAM_URL: "http://127.0.0.1:9/mcp",
};

/** The status of `GET url`, or 0 when nothing answers. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** Spawns workerd on `configPath` and times it to the first 200. */
async function coldStart(configPath: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(WORKERD, ["serve", configPath, `--socket-addr=http=127.0.0.1:${port}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  try {
    for (;;) {
      if ((await probe(`http://127.0.0.1:${port}/healthz`)) === 200) return performance.now() - started;
      if (child.exitCode !== null || performance.now() - started > 20_000) {
        throw new Error(`workerd did not answer /healthz on ${configPath}: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    await stopChild(child);
  }
}

/**
 * Bundles the example and times cold starts.
 *
 * @param starts Cold starts of each Worker.
 * @returns The figures.
 */
export async function benchWorker(starts: number): Promise<WorkerFigures> {
  const dir = await mkdtemp(join(tmpdir(), "sluice-bench-worker-"));
  try {
    const built = await buildWorkerExample(join(dir, "example"));
    await writeFile(join(dir, "trivial.js"), TRIVIAL);
    // Embedded paths are relative to the config file. workerd serve's --socket-addr moves the
    // config's socket to a free port, start by start.
    await writeFile(join(dir, "example.capnp"), workerdConfig(relative(dir, built.path), 8787, BINDINGS));
    await writeFile(join(dir, "trivial.capnp"), workerdConfig("trivial.js", 8787, BINDINGS));
    await coldStart(join(dir, "example.capnp")); // warm the disk cache
    const example: number[] = [];
    const trivial: number[] = [];
    for (let i = 0; i < starts; i++) {
      example.push(await coldStart(join(dir, "example.capnp")));
      trivial.push(await coldStart(join(dir, "trivial.capnp")));
    }
    return {
      bytes: built.bytes,
      gzipBytes: built.gzipBytes,
      coldStartMs: spreadOf(example),
      baselineMs: spreadOf(trivial),
      scriptMs: spreadOf(example.map((ms, i) => ms - (trivial[i] as number))),
      compatibilityDate: EXAMPLE_COMPATIBILITY_DATE,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
