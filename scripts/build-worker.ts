/**
 * Bundles `examples/worker/` (or any Worker's folder) exactly as a deploy would: `wrangler deploy
 * --dry-run --minify` (wrangler's own esbuild settings, its `alias` from wrangler.jsonc), offline,
 * with wrangler's banner (and so its update check) and metrics off. Used by the Worker end-to-end
 * test, the package test (a user's Worker over the installed tarball) and the benchmark.
 *
 * `npx tsx scripts/build-worker.ts [outdir]` prints `{ path, bytes, gzipBytes }` as JSON.
 *
 * @example
 * ```ts
 * import { buildWorkerExample } from "./build-worker.ts";
 * const built = await buildWorkerExample("bench/.tmp/worker");
 * console.log(built.path); // "bench/.tmp/worker/index.js"
 * ```
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The repository root. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The example's folder, where wrangler reads wrangler.jsonc. */
export const WORKER_EXAMPLE_DIR: string = join(ROOT, "examples", "worker");
/** How long wrangler may take (it takes about 1.5 s). */
const TIMEOUT_MS = 60_000;

/** The example's bundled main module. */
export interface WorkerBuild {
  /** The absolute path of the main module. */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its size gzipped (level 9) in bytes: what the Workers size limit counts. */
  readonly gzipBytes: number;
}

/**
 * Bundles the example Worker into `outdir` with wrangler, minified.
 *
 * @param outdir Where wrangler writes the bundle (created if missing; files in it are replaced).
 * @returns The main module's path, its size and its gzipped size.
 * @throws {Error} When wrangler fails, takes longer than 60 s, or writes not exactly one `.js` module.
 */
export function buildWorkerExample(outdir: string): Promise<WorkerBuild> {
  return buildWorker(WORKER_EXAMPLE_DIR, outdir);
}

/**
 * Bundles the Worker of a folder (its `wrangler.jsonc`) into `outdir` with wrangler, minified, as
 * `wrangler deploy` would.
 *
 * @param folder The Worker's folder, where wrangler reads its config and resolves its imports.
 * @param outdir Where wrangler writes the bundle (created if missing; files in it are replaced).
 * @returns The main module's path, its size and its gzipped size.
 * @throws {Error} When wrangler fails, takes longer than 60 s, or writes not exactly one `.js` module.
 */
export async function buildWorker(folder: string, outdir: string): Promise<WorkerBuild> {
  const out = resolve(outdir);
  const logs = await mkdtemp(join(tmpdir(), "sluice-wrangler-logs-"));
  try {
    await wrangler(folder, ["deploy", "--dry-run", "--outdir", out, "--minify"], logs);
  } finally {
    await rm(logs, { recursive: true, force: true });
  }
  const modules = (await readdir(out)).filter((name) => name.endsWith(".js"));
  if (modules.length !== 1) {
    throw new Error(
      `buildWorker(): expected wrangler to write one ".js" module to "${out}", found "${modules.join(", ")}"`,
    );
  }
  const path = join(out, modules[0] as string);
  const code = await readFile(path);
  return { path, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** Runs wrangler in `folder`, offline and quiet; rejects with its output on failure. */
function wrangler(folder: string, args: readonly string[], logs: string): Promise<void> {
  const env = {
    ...process.env,
    CI: "true",
    NO_COLOR: "1",
    WRANGLER_SEND_METRICS: "false",
    // The banner is what checks the registry for a newer wrangler.
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_LOG_PATH: logs,
  };
  return new Promise((done, fail) => {
    execFile(
      join(ROOT, "node_modules", ".bin", "wrangler"),
      [...args],
      { cwd: folder, env, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) return done();
        fail(
          new Error(
            `buildWorker(): wrangler ${
              args.join(" ")
            } in "${folder}" failed: ${error.message}\n${stdout}${stderr}`,
          ),
        );
      },
    );
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? await mkdtemp(join(tmpdir(), "sluice-worker-"));
  console.log(JSON.stringify(await buildWorkerExample(outdir)));
}
