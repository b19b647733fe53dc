/**
 * What limits a missed target, in figures from the same run: for each profiled scenario, a
 * paragraph computed from the measurements (CPU per call of each process, the best ratio the
 * measured server time allows); RESULTS.md puts the profile's summary after it.
 *
 * @module
 */
import type { RunResults, SuiteResult } from "./_results.ts";
import { fetchLabel, mrtrRow } from "./_targets-flows.ts";
import { runtimeLabel, showSpread } from "./_verdict.ts";

const us = (v: number) => `${v.toFixed(0)} µs`;
const node = (results: RunResults): SuiteResult | undefined =>
  results.suites.find((s) => s.runtime === "node");

function mrtrLimits(results: RunResults, runtime: string, fetch: string): string {
  const suite = results.suites.find((s) => s.runtime === runtime);
  const rows = suite?.sections.mrtr;
  if (suite === undefined || rows === undefined) return "";
  const lines = [...new Set(rows.map((r) => r.rounds))].map((rounds) => {
    const [ours, floor, official] = ["sluice", "floor", "official"].map((who) =>
      mrtrRow(rows, rounds, who, fetch)
    );
    if (ours === undefined || floor === undefined || official === undefined) return "";
    const posts = rounds + 1;
    const extra = (ours.cpuUsPerCall.median - floor.cpuUsPerCall.median) / posts;
    const wall = (r: typeof ours) => 1e6 / r.callsPerSecond.median;
    const ceiling = floor.callsPerSecond.median / official.callsPerSecond.median;
    return `| ${rounds} | ${posts} | ${us(wall(ours))} | ${us(wall(floor))} | ${
      us(ours.cpuUsPerCall.median)
    } | ${us(floor.cpuUsPerCall.median)} | ${us(extra)} | ${ceiling.toFixed(2)}× |`;
  });
  return [
    `Calls run one at a time, so a call's time is the client's CPU, the peer's CPU and the loopback round trips, one after the other. sluice, the floor and the official client use the same fetch (${
      fetchLabel(fetch)
    }) and the same peer; what separates them is sluice's own CPU per HTTP request: decoding and checking each response, running each form through the chain, building the retry, and the signals and deadlines of the call. The last column is the most any client could reach against the official client here: the floor's calls per second over the official client's, a client that spends no CPU of its own above a bare fetch loop. On ${
      runtimeLabel(suite)
    } ${suite.version}:`,
    "",
    "| rounds | POSTs per call | sluice time/call | floor time/call | sluice CPU/call | floor CPU/call | sluice's extra CPU per POST | floor / official client (calls/s) |",
    "|--:|--:|--:|--:|--:|--:|--:|--:|",
    ...lines,
    "",
  ].join("\n");
}

/** Each runtime's chain points by size, with every step's cost per item, for the growth targets. */
function chainGrowthLimits(results: RunResults): string {
  const groups = [["form-same", "same form", "field"], ["form-new", "new form each call", "field"], [
    "messages",
    "sampling messages",
    "message",
  ]] as const;
  const tables = results.suites.flatMap((suite) =>
    groups.flatMap(([group, label, unit]) => {
      const rows = (suite.sections.chain ?? []).filter((r) => r.group === group);
      if (rows.length < 2) return [];
      const steps = rows.slice(1).map((r, i) => {
        const before = rows[i] as typeof r;
        return `${((r.addedNs.median - before.addedNs.median) / (r.size - before.size)).toFixed(0)} ns`;
      });
      return [
        `${
          runtimeLabel(suite)
        }, ${label}: time added by the chain (ns, median [min–max] of the runs), then each step's cost per ${unit} from the size before it.`,
        "",
        `| ${unit}s | ${rows.map((r) => r.size).join(" | ")} |`,
        `|---|${rows.map(() => "--:").join("|")}|`,
        `| added | ${rows.map((r) => showSpread(r.addedNs, 0)).join(" | ")} |`,
        `| step per ${unit} | | ${steps.join(" | ")} |`,
        "",
      ];
    })
  );
  return [
    "A line fitted through these points judges the growth. A step dearer per item than 1.5× the fitted slope would be growth faster than linear; a step cheaper than the slope bends the curve the other way and lowers R² without any such growth, as does a point whose runs spread widely (garbage collection of the many fresh forms lands on some sizes and not others).",
    "",
    ...tables,
  ].join("\n");
}

function legacyLimits(results: RunResults, transport: string): string {
  const rows = node(results)?.sections.legacy?.filter((r) => r.transport === transport);
  const ours = rows?.find((r) => r.who === "sluice");
  const official = rows?.find((r) => r.who === "official");
  if (ours === undefined || official === undefined) return "";
  const wall = (r: typeof ours) => 1e6 / r.callsPerSecond.median;
  const rest = wall(official) - official.cpuUsPerCall.median;
  return `Over ${transport}, a call took ${us(wall(ours))} with sluice and ${
    us(wall(official))
  } with the official SDK; the clients' own CPU per call was ${us(ours.cpuUsPerCall.median)} and ${
    us(official.cpuUsPerCall.median)
  }. The rest of the official SDK's call, ${
    us(rest)
  }, is server-everything's own work and the round trips, the same for any client: a client that used no CPU at all would make at most ${
    (wall(official) / Math.max(rest, 1)).toFixed(2)
  }× the official SDK's calls per second against this server, one call at a time.\n`;
}

function frontLimits(results: RunResults): string {
  const front = node(results)?.sections.front;
  if (front === undefined) return "";
  const lines = front.cases.map((r) => {
    const { floor, sluice } = r.by;
    if (floor === undefined || sluice === undefined) return "";
    const [f, s] = [floor.cpuUs, sluice.cpuUs];
    return `| ${r.name} | ${us(f.client.median)} + ${us(f.peer.median)} + **${us(f.gateway.median)}** | ${
      us(s.client.median)
    } + ${us(s.peer.median)} + **${us(s.gateway.median)}** | ${us(s.gateway.median - f.gateway.median)} |`;
  });
  return [
    "A gateway is a second HTTP hop: the floor only relays bytes (and answers the form round); sluice's front also parses and checks the downstream request, sends it upstream with its own client, reads and checks the answer (and for `ask_form` runs the form through its policy), and writes the downstream response. CPU per call of each process (µs, medians):",
    "",
    "| case | floor: client + peer + **gateway** | sluice: client + peer + **gateway** | sluice's gateway CPU over the floor's |",
    "|---|--:|--:|--:|",
    ...lines.filter((line) => line !== ""),
    "",
    "On one machine a gateway's CPU competes with the client and the peer for the same cores: the CPU sluice's front spends over the floor's is what its time over the floor's is made of. Against a tool that takes 5 ms, the same CPU is a small part of the call's time.",
    "",
  ].join("\n");
}

/**
 * The explanation of a profiled scenario, from the run's figures.
 *
 * @param scenario The profile scenario.
 * @param results The run's results.
 * @returns Markdown (without the profile's tables).
 */
export function limitsOf(scenario: string, results: RunResults): string {
  switch (scenario) {
    case "mrtr":
      return mrtrLimits(results, "node", "undici");
    case "mrtr-global":
      return mrtrLimits(results, "node", "global");
    case "mrtr-deno":
      return mrtrLimits(results, "deno", "global");
    case "mrtr-bun":
      return mrtrLimits(results, "bun", "global");
    case "legacy-stdio":
      return legacyLimits(results, "stdio");
    case "legacy-http":
      return legacyLimits(results, "HTTP");
    case "front":
      return frontLimits(results);
    case "chain-growth":
      return chainGrowthLimits(results);
    default:
      return "";
  }
}
