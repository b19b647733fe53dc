/**
 * Every benchmark that applies to this runtime, in one process, written as JSON for `run.ts`:
 * chain, sanitize, memory and MRTR everywhere; legacy, front and the Worker on Node only.
 *
 * `suite.ts --out results.json [--quick] [--only chain,mrtr]`
 *
 * Node runs the compiled copy (`node --expose-gc bench/.tmp/bench/suite.js`), Deno and Bun the
 * sources (`deno run -A --v8-flags=--expose-gc bench/suite.ts`, `bun bench/suite.ts`).
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import process from "node:process";
import { benchChain } from "./chain.bench.ts";
import { benchSanitize } from "./sanitize.bench.ts";
import { benchMemory } from "./memory.bench.ts";
import { benchMrtr } from "./mrtr.bench.ts";
import { runtimeName } from "./_processes.ts";
import type { SuiteResult } from "./_results.ts";

/** The sections, in the order they run. */
export const SECTIONS = ["chain", "sanitize", "memory", "mrtr", "legacy", "front", "worker"] as const;
/** The sections that run on Node only. */
export const NODE_ONLY: readonly string[] = ["legacy", "front", "worker"];

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

const quick = process.argv.includes("--quick");
const out = flag("--out");
const only = flag("--only")?.split(",");
const runtime = runtimeName();
const versions = process.versions as Record<string, string | undefined>;
const result: SuiteResult = {
  runtime,
  version: versions[runtime] ?? "?",
  quick,
  seconds: {},
  sections: {},
};

async function section<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
  const wanted = only === undefined || only.includes(name);
  if (!wanted || (runtime !== "node" && NODE_ONLY.includes(name))) return undefined;
  process.stderr.write(`[${runtime}] ${name} …\n`);
  const started = performance.now();
  const value = await work();
  const seconds = (performance.now() - started) / 1000;
  (result.seconds as Record<string, number>)[name] = seconds;
  process.stderr.write(`[${runtime}] ${name} done in ${seconds.toFixed(1)} s\n`);
  return value;
}

const s = result.sections;
s.chain = await section(
  "chain",
  () => benchChain(quick ? { runs: 3, batchMs: 40 } : { runs: 5, batchMs: 150 }, quick),
);
s.sanitize = await section(
  "sanitize",
  () => benchSanitize(quick ? { runs: 3, batchMs: 20 } : { runs: 5, batchMs: 200 }),
);
s.memory = await section(
  "memory",
  () =>
    benchMemory(
      quick ? { items: 2000, churnBatches: 3, every: 1 } : { items: 10_000, churnBatches: 10, every: 1 },
    ),
);
s.mrtr = await section("mrtr", () => benchMrtr(quick ? { posts: 60, runs: 3 } : { posts: 1000, runs: 5 }));
s.legacy = await section("legacy", async () => {
  const { benchLegacy } = await import("./legacy.bench.ts");
  return benchLegacy(quick ? { warmup: 20, calls: 20, runs: 3 } : { warmup: 1500, calls: 200, runs: 5 });
});
s.front = await section("front", async () => {
  const { benchFront } = await import("./front.bench.ts");
  return benchFront(quick ? { calls: 60, runs: 3, levels: [1, 4, 16, 64] } : { calls: 500, runs: 5 });
});
s.worker = await section("worker", async () => {
  const { benchWorker } = await import("./worker.bench.ts");
  return benchWorker(quick ? 3 : 9);
});

const json = JSON.stringify(result);
if (out === undefined) console.log(json);
else writeFileSync(out, json);
// Idle keep-alive sockets and helper pipes must not hold the process open.
process.exit(0);
