/**
 * CPU profiles of sluice's side of one benchmark scenario, for a missed target: `run.ts` runs
 * this after the benchmarks and summarizes the profile into RESULTS.md. On Node, but for
 * `mrtr-global`, which Deno and Bun run too (their inspectors write the same format).
 *
 * `node bench/.tmp/bench/profile.js <scenario> <dir> <seconds>` writes `.cpuprofile` files to
 * `dir`. Scenarios: `mrtr` (the edge client with `createNodeFetch()`, 3 rounds per call),
 * `mrtr-global` (the same with the runtime's global fetch: how Deno and Bun are profiled, with
 * `deno run -A bench/profile.ts mrtr-global <dir> <seconds>` or `bun bench/profile.ts ...`),
 * `legacy-stdio` and `legacy-http` (the legacy client against server-everything), `chain` (the
 * four kind cases), `sanitize` (1 MB of ASCII), `front` (the front's own process, profiled
 * from its start while `echo` runs with 8 calls in flight through it) and `front-form` (the same
 * with `ask_form`, one form round the front answers).
 *
 * Client-side scenarios are profiled with `node:inspector` around the work only (after a
 * warm-up), so start-up and the peers' setup are left out.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createClient as createLegacyClient } from "../src/legacy.ts";
import { createClient } from "../mod.ts";
import { createNodeFetch } from "../src/transport/node-fetch.ts";
import { everythingStdioCommand, startEverythingHttp } from "../tests/_support/everything.ts";
import { awaitLine, nodeBinary, REPO_ROOT } from "../tests/_support/modern-peer.ts";
import { COMPILED_BENCH, startFastPeer } from "./_processes.ts";
import { KIND_CASES } from "./_chain-inputs.ts";

const [scenario = "mrtr", dir = ".", secondsText = "4"] = process.argv.slice(2);
const seconds = Number(secondsText);
const BUDGET = { rate: 1_000_000, per: "1s", burst: 1_000_000 } as const;

/** Runs `work` for the given time (after a warm-up of a third of it), profiled. */
async function profiled(work: () => Promise<unknown> | unknown): Promise<void> {
  const until = (ms: number) => performance.now() + ms;
  for (const end = until((seconds * 1000) / 3); performance.now() < end;) await work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  for (const end = until(seconds * 1000); performance.now() < end;) await work();
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(join(dir, `${scenario}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

async function mrtr(own: "node" | "global"): Promise<void> {
  const peer = await startFastPeer();
  const fetch = own === "node" ? createNodeFetch() : undefined;
  const client = createClient({
    name: "profile",
    ...(fetch === undefined ? {} : { fetch }),
    handler: { elicitation: () => ({ action: "accept", content: { name: "Ada", age: 36 } }) },
    policies: [{
      server: "peer",
      transport: { url: peer.url },
      era: "modern",
      maxRounds: 16,
      inputRateLimit: BUDGET,
    }],
  });
  await profiled(() => client.callTool("peer", "ask_rounds", { rounds: 3 }));
  await client.close();
  await fetch?.close();
  await peer.stop();
}

async function legacy(transport: "stdio" | "http"): Promise<void> {
  const server = transport === "http" ? await startEverythingHttp() : undefined;
  const client = createLegacyClient({
    name: "profile",
    handler: { sampling: () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }) },
    policies: [{
      server: "everything",
      transport: server === undefined ? everythingStdioCommand() : { url: server.url },
      era: "legacy",
      inputRateLimit: BUDGET,
    }],
  });
  const args = { prompt: "hi", maxTokens: 100 };
  await profiled(() => client.callTool("everything", "trigger-sampling-request", args));
  await client.close();
  await server?.stop();
}

async function chain(): Promise<void> {
  const { createChain } = await import("../src/chain/chain.ts");
  const { compilePolicy } = await import("../src/policy/compile-policy.ts");
  const { createMemoryStore } = await import("../src/limits/memory-store.ts");
  const run = createChain({
    policy: compilePolicy({
      server: "p",
      transport: { url: "https://mcp.example.com/mcp" },
      inputRateLimit: BUDGET,
    }),
    handler: {
      sampling: () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }),
      elicitationModes: ["form", "url"],
      elicitation: (params) => ("url" in params ? { action: "accept" } : KIND_CASES[1]?.answer) as never,
    },
    client: "profile",
    store: createMemoryStore(),
  }).run;
  await profiled(async () => {
    for (const c of KIND_CASES) await run(c.request, { version: "2026-07-28" });
  });
}

async function sanitize(): Promise<void> {
  const { sanitizeText } = await import("../src/notify/sanitize-text.ts");
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(22_000);
  await profiled(() => sanitizeText(text, text.length));
}

/** The front's process, profiled by Node itself from its start to its exit, under `tool` with 8 calls in flight. */
async function front(tool: "echo" | "ask_form"): Promise<void> {
  const peer = await startFastPeer();
  const child = spawn(
    nodeBinary(),
    [
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      "--cpu-prof-interval=200",
      join(COMPILED_BENCH, "front-process.js"),
      peer.url,
    ],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  const url = await awaitLine(child, "stdout", /^FRONT_URL (\S+)$/);
  child.stdout?.resume();
  const fetch = createNodeFetch();
  const client = createClient({
    name: "profile",
    fetch,
    handler: { elicitation: () => ({ action: "accept", content: { name: "Ada", age: 36 } }) },
    policies: [{ server: "peer", transport: { url }, era: "modern", inputRateLimit: BUDGET }],
  });
  const end = performance.now() + seconds * 1000;
  const args = tool === "echo" ? { text: "x" } : {};
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() < end) text(await client.callTool("peer", tool, args));
  }));
  await client.close();
  await fetch.close();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin?.end();
  await exited;
  await peer.stop();
}

const scenarios: Record<string, () => Promise<void>> = {
  mrtr: () => mrtr("node"),
  "mrtr-global": () => mrtr("global"),
  "legacy-stdio": () => legacy("stdio"),
  "legacy-http": () => legacy("http"),
  chain,
  sanitize,
  front: () => front("echo"),
  "front-form": () => front("ask_form"),
};
const chosen = scenarios[scenario];
if (chosen === undefined) throw new Error(`profile: unknown scenario "${scenario}"`);
await chosen();
process.exit(0);
