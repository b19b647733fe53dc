/**
 * Summarizes a CPU profile in the `.cpuprofile` format (Node's, Deno's and Bun's inspector): where the sampled time went, by function (self
 * time) and by origin (sluice's own files, each package, Node's internals, GC, idle), as Markdown.
 *
 * @module
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self time of one function or origin. */
export interface ProfileEntry {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/** A profile's totals and its top entries. */
export interface ProfileSummary {
  readonly totalMs: number;
  /** Sampled time outside JavaScript and the runtime: `(idle)`. */
  readonly idleMs: number;
  readonly functions: readonly ProfileEntry[];
  readonly origins: readonly ProfileEntry[];
  /** Busy time by broad category (sluice's code, Node's internals, native code, GC, …). */
  readonly categories: readonly ProfileEntry[];
}

/** The broad category of an origin. */
function categoryOf(origin: string): string {
  if (origin.startsWith("sluice ")) return "sluice's own code (src/)";
  if (origin.endsWith(" internals")) {
    return "the runtime's JS internals (HTTP, streams, fetch's Request/Response, timers, AbortSignal)";
  }
  if (origin === "(native)") return "native code (socket and pipe writes, JSON, microtasks)";
  if (origin === "(garbage collector)") return "garbage collection";
  if (origin === "undici") return "undici (createNodeFetch's HTTP client)";
  if (origin === "valibot") return "valibot (message validation)";
  if (origin === "hono" || origin === "@hono/node-server") {
    return "hono and @hono/node-server (the front's HTTP server)";
  }
  return "other (V8 bookkeeping, wasm HTTP parser, bench code)";
}

/** Where a script comes from: `sluice src/x/y.ts`, a package name, `node:internal`, or a V8 bucket. */
function originOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg !== null) return pkg[1] as string;
  if (url.startsWith("node:")) return "node: internals";
  // Deno's own scripts are `ext:` URLs; Bun's are `internal:` (its native code has no URL).
  if (url.startsWith("ext:")) return "deno: internals";
  if (url.startsWith("internal:") || url.startsWith("builtin:")) return "bun: internals";
  const own = /\/(src\/.+|mod)\.[jt]s$/.exec(url);
  if (own !== null) return `sluice ${own[1]}`;
  const bench = /\/(bench\/.+)\.[jt]s$/.exec(url);
  return bench !== null ? bench[1] as string : url;
}

function top(map: Map<string, number>, total: number, count: number): ProfileEntry[] {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, ms]) => ({
    name,
    ms,
    share: ms / total,
  }));
}

/**
 * Reads and summarizes a `.cpuprofile` file.
 *
 * @param path The file.
 * @param count How many functions and origins to keep.
 * @returns The summary.
 */
export function summarizeProfile(path: string, count = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const origins = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return;
    totalMs += ms;
    if (frame.functionName === "(idle)") {
      idleMs += ms;
      return;
    }
    const origin = originOf(frame.url, frame.functionName);
    const file = frame.url === "" ? "" : ` ${origin.replace(/^sluice /, "")}:${frame.lineNumber + 1}`;
    const name = `${frame.functionName || "(anonymous)"}${file}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    origins.set(origin, (origins.get(origin) ?? 0) + ms);
  });
  const busy = totalMs - idleMs;
  const categories = new Map<string, number>();
  for (const [origin, ms] of origins) {
    categories.set(categoryOf(origin), (categories.get(categoryOf(origin)) ?? 0) + ms);
  }
  return {
    totalMs,
    idleMs,
    functions: top(functions, busy, count),
    origins: top(origins, busy, count),
    categories: top(categories, busy, categories.size),
  };
}

/**
 * The summary as Markdown: totals, then the top origins and functions by self time.
 *
 * @param summary The summary.
 * @returns Markdown.
 */
export function profileMarkdown(summary: ProfileSummary): string {
  const busy = summary.totalMs - summary.idleMs;
  const row = (e: ProfileEntry) =>
    `| ${e.name.replaceAll("|", "\\|")} | ${e.ms.toFixed(0)} | ${(e.share * 100).toFixed(1)}% |`;
  return [
    `Sampled ${summary.totalMs.toFixed(0)} ms, of which ${
      busy.toFixed(0)
    } ms busy (the rest idle, waiting on I/O).`,
    "",
    "| Busy time by category | ms | share of busy |",
    "|---|--:|--:|",
    ...summary.categories.map(row),
    "",
    "| Self time by origin | ms | share of busy |",
    "|---|--:|--:|",
    ...summary.origins.map(row),
    "",
    "| Self time by function | ms | share of busy |",
    "|---|--:|--:|",
    ...summary.functions.map(row),
  ].join("\n");
}
