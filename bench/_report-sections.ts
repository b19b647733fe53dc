/**
 * The measured sections of RESULTS.md, as Markdown tables: every figure is the median of the
 * runs with the min–max of the runs in brackets.
 *
 * @module
 */
import type { RunResults, SuiteResult } from "./_results.ts";
import { ratioOf, type Spread } from "./_stats.ts";
import { runtimeLabel, showSpread } from "./_verdict.ts";
import { fetchLabel, mrtrFetches, mrtrRow } from "./_targets-flows.ts";
import { type ContenderFigures, FRONT_CONTENDERS, type FrontRow, type ProcessCpu } from "./front.bench.ts";

const rate = (s: Spread) => showSpread(s, 0);
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(" | ")} |`,
    `|${head.map((_, i) => (i === 0 ? "---" : "--:")).join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

function mrtrTable(suite: SuiteResult): string {
  const rows = suite.sections.mrtr ?? [];
  return table(
    [
      "rounds",
      "contender",
      "calls/s",
      "client CPU µs/call",
      "sluice / this (calls/s, same fetch)",
      "this / floor (time, same fetch)",
    ],
    rows.map((r) => {
      const ours = mrtrRow(rows, r.rounds, "sluice", r.fetch);
      const floor = mrtrRow(rows, r.rounds, "floor", r.fetch);
      return [
        String(r.rounds),
        r.name,
        rate(r.callsPerSecond),
        showSpread(r.cpuUsPerCall, 0),
        ours === undefined || r === ours
          ? ""
          : `${showSpread(ratioOf(ours.callsPerSecond, r.callsPerSecond))}×`,
        floor === undefined || r.who === "floor"
          ? ""
          : `${showSpread(ratioOf(floor.callsPerSecond, r.callsPerSecond))}×`,
      ];
    }),
  );
}

/** The round count of the MRTR headline: one form round, the common case. */
const HEADLINE_ROUNDS = 1;

/**
 * The MRTR headline: at one form round, sluice against the official client and the floor on the
 * same fetch, every runtime and fetch; and on Node, which entry is faster.
 */
function mrtrHeadline(results: RunResults): string {
  const lines: string[][] = [];
  let entries = "";
  for (const suite of results.suites) {
    const rows = suite.sections.mrtr ?? [];
    for (const fetch of mrtrFetches(suite)) {
      const [ours, official, floor] = ["sluice", "official", "floor"].map((who) =>
        mrtrRow(rows, HEADLINE_ROUNDS, who, fetch)
      );
      if (ours === undefined || official === undefined || floor === undefined) continue;
      lines.push([
        `${runtimeLabel(suite)} ${suite.version}`,
        fetchLabel(fetch),
        `${showSpread(ratioOf(ours.callsPerSecond, official.callsPerSecond))}×`,
        `${showSpread(ratioOf(floor.callsPerSecond, ours.callsPerSecond))}×`,
        `${showSpread(ratioOf(ours.cpuUsPerCall, official.cpuUsPerCall))}×`,
        `${showSpread(ratioOf(ours.cpuUsPerCall, floor.cpuUsPerCall))}×`,
      ]);
    }
    const root = mrtrRow(rows, HEADLINE_ROUNDS, "sluice", "global");
    const selfHosted = mrtrRow(rows, HEADLINE_ROUNDS, "sluice", "undici");
    if (root !== undefined && selfHosted !== undefined) {
      entries = `On ${
        runtimeLabel(suite)
      }, the self-hosted entry (\`@sluice/mcp/legacy\`, \`createNodeFetch()\`) made ${
        showSpread(ratioOf(selfHosted.callsPerSecond, root.callsPerSecond))
      }× the calls per second of the root entry (global fetch) at one form round.`;
    }
  }
  if (lines.length === 0) return "";
  return [
    `Headline: one call at a time with ${HEADLINE_ROUNDS} form round, every contender on the same fetch. The client CPU columns are the bench process's own CPU time per call (the peer runs in its own process), which other work on the machine disturbs less than the wall time.`,
    "",
    table([
      "runtime",
      "fetch on every side",
      "sluice / official client (calls/s)",
      "sluice / floor (time per call)",
      "client CPU per call: sluice / official client",
      "sluice / floor (client CPU)",
    ], lines),
    "",
    entries,
    "",
  ].join("\n");
}

function chainTables(suite: SuiteResult): string {
  const rows = suite.sections.chain ?? [];
  const ns = (s: Spread) => showSpread(s, 0);
  return table(
    ["case", "direct ns", "through the chain ns", "added ns"],
    rows.map((r) => [r.name, ns(r.directNs), ns(r.chainNs), ns(r.addedNs)]),
  );
}

function frontCasesTable(rows: readonly FrontRow[]): string {
  const ratio = (a: Spread | undefined, b: Spread | undefined) =>
    a === undefined || b === undefined ? "" : `${showSpread(ratioOf(a, b))}×`;
  const us = (f: ContenderFigures | undefined) => f === undefined ? "" : showSpread(f.cpuUs.gateway, 0);
  return table(
    [
      "case",
      "calls",
      ...FRONT_CONTENDERS.map((who) => `${who} calls/s`),
      "sluice time / floor",
      "sluice time / direct",
      "gateway CPU µs/call: floor",
      "sluice",
      "official",
      "sluice / official calls/s",
    ],
    rows.map((r) => {
      const { direct, floor, sluice, official } = r.by;
      return [
        r.name,
        String(r.calls),
        ...FRONT_CONTENDERS.map((who) => {
          const figures = r.by[who];
          return figures === undefined ? "" : rate(figures.perSecond);
        }),
        ratio(floor?.perSecond, sluice?.perSecond),
        ratio(direct?.perSecond, sluice?.perSecond),
        us(floor),
        us(sluice),
        us(official),
        ratio(sluice?.perSecond, official?.perSecond),
      ];
    }),
  );
}

function frontCurveTable(rows: readonly FrontRow[]): string {
  const cpu = (c: ProcessCpu | undefined, gateway: boolean) =>
    c === undefined
      ? ""
      : [c.client, c.peer, ...(gateway ? [c.gateway] : [])].map((s) => s.median.toFixed(0)).join(" + ");
  return table(
    [
      "in flight",
      "calls",
      "direct calls/s",
      "front calls/s",
      "front time / direct",
      "cores busy: direct",
      "cores busy: front",
      "CPU µs/call direct: client + peer",
      "through the front: client + peer + front",
    ],
    rows.map((r) => {
      const { direct, sluice } = r.by;
      return [
        String(r.inFlight),
        String(r.calls),
        direct === undefined ? "" : rate(direct.perSecond),
        sluice === undefined ? "" : rate(sluice.perSecond),
        direct === undefined || sluice === undefined
          ? ""
          : `${showSpread(ratioOf(direct.perSecond, sluice.perSecond))}×`,
        direct === undefined ? "" : showSpread(direct.coresBusy),
        sluice === undefined ? "" : showSpread(sluice.coresBusy),
        cpu(direct?.cpuUs, false),
        cpu(sluice?.cpuUs, true),
      ];
    }),
  );
}

/** One section: its heading and introduction, and each runtime's part (if it ran there). */
interface Section {
  readonly intro: string;
  readonly part: (suite: SuiteResult) => string | undefined;
  /** Text before the runtimes' parts, from all of them. */
  readonly lead?: (results: RunResults) => string;
  /** Text after the runtimes' parts. */
  readonly outro?: (results: RunResults) => string;
}

const SECTIONS: readonly Section[] = [
  {
    intro:
      "## MRTR throughput\n\nOne `tools/call` of `ask_rounds` at a time against the fast loopback peer (`bench/fast-peer.ts`, a Node process); each input round is one form elicitation and one more POST. `client CPU` is the bench process's CPU time per call (the peer runs in its own process). Every ratio compares contenders on the same fetch. With the global fetch, sluice is the root entry as it comes. On Node, every contender runs a second time on `createNodeFetch()` (sluice's `undici.request` fetch): sluice as the self-hosted entry (`@sluice/mcp/legacy`) as it comes, which uses it on Node, and the official client and the floor given one as `fetch`. Deno and Bun have one fetch, their own, which both of sluice's entries use. Chart whiskers span the interquartile range of the runs.",
    lead: mrtrHeadline,
    part: (s) =>
      s.sections.mrtr === undefined
        ? undefined
        : `${mrtrTable(s)}\n\n![MRTR on ${runtimeLabel(s)}](mrtr-${s.runtime}.svg)`,
  },
  {
    intro:
      "## Legacy flow: tools/call with one sampling request\n\n`trigger-sampling-request` of `@modelcontextprotocol/server-everything` (2025-11-25), one call at a time; over stdio each client runs its own server, over HTTP both talk to one server. sluice's legacy entry uses `createNodeFetch()` on Node by default; the official SDK 1.x uses the global fetch.",
    part: (s) =>
      s.sections.legacy === undefined ? undefined : table(
        ["transport", "contender", "warm-up calls", "calls/run", "calls/s", "client CPU µs/call"],
        s.sections.legacy.map((r) => [
          r.transport,
          r.name,
          String(r.warmup),
          String(r.calls),
          rate(r.callsPerSecond),
          showSpread(r.cpuUsPerCall, 0),
        ]),
      ),
  },
  {
    intro:
      "## Chain overhead per input request\n\nThe same handler called directly and through the chain, in turn; `added` is the difference run by run. Each group runs on its own chain (one server's). `same form` sends one form again and again; `new form` sends a form never seen before every time (a pool of distinct forms). Chart whiskers span the interquartile range of the runs.\n\n![chain by form size](chain-form-size.svg)\n\n![chain by message count](chain-messages.svg)",
    part: (s) => s.sections.chain === undefined ? undefined : chainTables(s),
  },
  {
    intro:
      "## sanitizeText throughput\n\n1 MB (10^6 UTF-8 bytes) of each kind of text; MB/s counts input bytes.",
    part: (s) =>
      s.sections.sanitize === undefined ? undefined : table(
        ["input", "sanitizeText MB/s", "naive regex MB/s"],
        s.sections.sanitize.map((r) => [r.name, showSpread(r.sanitizeMBps, 0), showSpread(r.naiveMBps, 0)]),
      ),
  },
  {
    intro:
      "## The front\n\n`tools/call` from one bench client to the fast peer by four contenders side by side in each run, each gateway its own process in front of the same peer: `direct` (no gateway), `floor` (a bare pass-through proxy, `node:http` and an undici pool, parsing only to answer the form round: the least one extra hop costs), `sluice` (`serve()` of `@sluice/mcp/node`) and `official` (`McpServer` and `Client` of the official SDK 2.4.0 as a hand-written gateway, on the same `@hono/node-server` and the same upstream fetch as sluice's). `ask_form` is one form round answered by the gateway itself. Time ratios are taken run by run (time per call is one over calls/s); a gateway's CPU per call is its own process's CPU time (from `/proc`) over the calls.",
    part: (s) => s.sections.front === undefined ? undefined : frontCasesTable(s.sections.front.cases),
    outro: (results) => {
      const front = results.suites.find((s) => s.runtime === "node")?.sections.front;
      return front === undefined ? "" : [
        "### Throughput by concurrency (`echo`, Node)",
        "",
        "Chart whiskers span the interquartile range of the runs.",
        "",
        "![front by concurrency](front-concurrency.svg)",
        "",
        "![cores busy by concurrency](front-cores.svg)",
        "",
        frontCurveTable(front.curve),
        "",
      ].join("\n");
    },
  },
  {
    intro:
      "## Memory per pending item\n\nHeap growth over a baseline with the items pending, after full GCs, divided by the item count; measured once per batch as batches are made and let go (the chart). `kept` is what the heap still holds over the baseline per item once all are let go. `message alone` is the decoded message itself, which each item holds.\n\n![memory over churn](memory-churn.svg)",
    part: (s) =>
      s.sections.memory === undefined ? undefined : table(
        ["item", "pending at once", "bytes per item", "kept after release B/item", "message alone B"],
        s.sections.memory.map((r) => [
          r.name,
          String(r.items),
          showSpread(r.perItemBytes, 0),
          r.retainedBytes.toFixed(0),
          r.messageBytes.toFixed(0),
        ]),
      ),
  },
];

/**
 * The measured sections.
 *
 * @param results The run's results.
 * @returns Markdown.
 */
export function measuredSections(results: RunResults): string {
  const out: string[] = [];
  for (const section of SECTIONS) {
    const parts = results.suites.flatMap((suite) => {
      const text = section.part(suite);
      return text === undefined ? [] : [`### ${runtimeLabel(suite)} ${suite.version}\n\n${text}\n`];
    });
    if (parts.length === 0) continue;
    const lead = section.lead === undefined ? [] : [section.lead(results)];
    out.push(`${section.intro}\n`, ...lead, ...parts, section.outro?.(results) ?? "");
  }
  return out.join("\n");
}
