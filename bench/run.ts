/**
 * `npm run bench`: every benchmark, one process per runtime (Node, then Deno, then Bun, each
 * running `bench/suite.ts`), then a CPU profile of sluice's side of each missed target (Node),
 * then `bench/RESULTS.md` with SVG charts next to it, and the verdicts on the console.
 *
 * Options (after `npm run bench --`):
 * - `--quick`: small counts, to check the harness; writes to `bench/.tmp/quick/` instead.
 * - `--runtimes node,deno`: only these runtimes.
 * - `--only chain,mrtr`: only these sections (chain, sanitize, memory, mrtr, legacy, front, worker).
 * - `--no-profile`: no profiles of missed targets.
 * - `--out DIR`: where RESULTS.md and the charts go.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { REPO_ROOT } from "../tests/_support/modern-peer.ts";
import { bin, machineInfo, withLoadAfter } from "./_machine.ts";
import { summarizeProfile } from "./_cpu-profile.ts";
import { renderCharts } from "./_report-charts.ts";
import { renderResults } from "./_report.ts";
import type { RunResults, ScenarioProfile, SuiteResult } from "./_results.ts";
import { judgeTargets } from "./_targets.ts";
import { COMPILED_BENCH } from "./_processes.ts";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

const quick = process.argv.includes("--quick");
const runtimes = (flag("--runtimes") ?? "node,deno,bun").split(",");
const only = flag("--only");
const outDir = flag("--out") ?? join(REPO_ROOT, "bench", ...(quick ? [".tmp", "quick"] : []));
const work = mkdtempSync(join(tmpdir(), "sluice-bench-"));
const started = performance.now();
const startedAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** Runs a command with the console attached; rejects on a non-zero exit. */
function run(command: string, args: readonly string[]): Promise<void> {
  process.stderr.write(
    `\n$ ${[command.replace(REPO_ROOT, ""), ...args.map((a) => a.replace(REPO_ROOT, ""))].join(" ")}\n`,
  );
  const child = spawn(command, [...args], { cwd: REPO_ROOT, stdio: ["ignore", "inherit", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once(
      "exit",
      (code) => code === 0 ? resolve() : reject(new Error(`${command} exited with code ${code}`)),
    );
  });
}

function suiteCommand(runtime: string, out: string): [string, string[]] {
  const args = ["--out", out, ...(quick ? ["--quick"] : []), ...(only === undefined ? [] : ["--only", only])];
  switch (runtime) {
    case "node":
      return [process.execPath, ["--expose-gc", join(COMPILED_BENCH, "suite.js"), ...args]];
    case "deno":
      return [bin("deno"), [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        join(REPO_ROOT, "bench", "suite.ts"),
        ...args,
      ]];
    case "bun":
      return [bin("bun"), [join(REPO_ROOT, "bench", "suite.ts"), ...args]];
    default:
      throw new Error(`bench: unknown runtime "${runtime}", expected node, deno or bun`);
  }
}

const machine = machineInfo();
if (machine.loadBefore > machine.cores / 4) {
  process.stderr.write(
    `bench: the load average is ${
      machine.loadBefore.toFixed(2)
    } on ${machine.cores} cores: other work is running, the figures will be noisy\n`,
  );
}
const suites: SuiteResult[] = [];
const failures: string[] = [];
for (const runtime of runtimes) {
  const out = join(work, `${runtime}.json`);
  const [command, args] = suiteCommand(runtime, out);
  try {
    await run(command, args);
    suites.push(JSON.parse(readFileSync(out, "utf8")) as SuiteResult);
  } catch (error) {
    // One runtime failing must not lose the others' figures: it is reported instead.
    failures.push(`${runtime} suite: ${(error as Error).message}`);
  }
}

const verdicts = judgeTargets(suites, machine.cores);
const profiles: ScenarioProfile[] = [];
/** The command that profiles a scenario: `mrtr-deno` and `mrtr-bun` run on their runtime, the rest on Node. */
function profileCommand(scenario: string, dir: string): [string, string[]] {
  const seconds = quick ? "1.5" : "6";
  const source = join(REPO_ROOT, "bench", "profile.ts");
  if (scenario === "mrtr-deno") return [bin("deno"), ["run", "-A", source, "mrtr-global", dir, seconds]];
  if (scenario === "mrtr-bun") return [bin("bun"), [source, "mrtr-global", dir, seconds]];
  return [process.execPath, [join(COMPILED_BENCH, "profile.js"), scenario, dir, seconds]];
}

if (!process.argv.includes("--no-profile")) {
  const missed = verdicts.filter((v) => !v.ok && v.profile !== undefined);
  for (const scenario of [...new Set(missed.map((v) => v.profile as string))]) {
    const explains = missed.filter((v) => v.profile === scenario).map((v) => `${v.runtime}: ${v.target}`);
    // How the chain's cost grows is shown by the run's own points; a CPU profile adds nothing.
    if (scenario === "chain-growth") {
      profiles.push({ scenario, explains });
      continue;
    }
    const dir = join(work, `profile-${scenario}`);
    mkdirSync(dir);
    try {
      await run(...profileCommand(scenario, dir));
      const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile")) ?? "none";
      profiles.push({
        scenario,
        explains,
        summary: summarizeProfile(join(dir, file)),
      });
    } catch (error) {
      failures.push(`profile ${scenario}: ${(error as Error).message}`);
    }
  }
}

const results: RunResults = {
  machine: withLoadAfter(machine),
  suites,
  quick,
  startedAt,
  seconds: (performance.now() - started) / 1000,
  profiles,
  failures,
};
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "RESULTS.md"), renderResults(results, verdicts));
for (const [name, svg] of renderCharts(results)) writeFileSync(join(outDir, name), svg);
// Every run's values, for a closer look (not committed: bench/.tmp is ignored).
writeFileSync(join(COMPILED_BENCH, "..", "results.json"), JSON.stringify(results, null, 1));
rmSync(work, { recursive: true, force: true });

console.log(
  `\nTargets (${results.quick ? "QUICK RUN, " : ""}load ${machine.loadBefore.toFixed(2)} → ${
    results.machine.loadAfter.toFixed(2)
  }):`,
);
for (const v of verdicts) {
  console.log(`${v.ok ? "ok    " : "MISSED"}  ${v.runtime.padEnd(4)}  ${v.target}: ${v.measured}`);
}
for (const failure of failures) console.log(`FAILED  ${failure}`);
console.log(`\nWrote ${join(outDir, "RESULTS.md")} in ${(results.seconds / 60).toFixed(1)} minutes.`);
if (failures.length > 0) process.exitCode = 1;
