/**
 * The charts of RESULTS.md, as SVG files written next to it: MRTR throughput by round count (one
 * per runtime), chain overhead by form size and by message count, the front's throughput and the
 * cores kept busy by concurrency, and memory per pending item over churn.
 *
 * @module
 */
import { type ChartPoint, type ChartSeries, PALETTE, renderLineChart } from "./_line-chart.ts";
import type { RunResults } from "./_results.ts";
import type { Spread } from "./_stats.ts";
import { runtimeLabel } from "./_verdict.ts";
import type { ContenderFigures, FrontRow } from "./front.bench.ts";

/** A point at the median, its whisker over the interquartile range of the runs. */
const point = (x: number, s: Spread, f = (v: number) => v): ChartPoint => ({
  x,
  y: f(s.median),
  lo: f(s.q1),
  hi: f(s.q3),
});

/** Dash patterns, one per runtime (Node solid). */
const DASHES: readonly (string | undefined)[] = [undefined, "7 4", "2 3"];

function mrtrCharts(results: RunResults, out: Map<string, string>): void {
  for (const suite of results.suites) {
    const rows = suite.sections.mrtr;
    if (rows === undefined) continue;
    const names = [...new Set(rows.map((r) => `${r.who}|${r.fetch}`))];
    const series: ChartSeries[] = names.map((key, i) => {
      const [who, fetch] = key.split("|");
      return {
        name: `${who === "official" ? "official 2.4.0" : who}${suite.runtime === "node" ? `, ${fetch}` : ""}`,
        color: PALETTE[["sluice", "official", "floor"].indexOf(who ?? "")] ?? PALETTE[i],
        dash: fetch === "global" && suite.runtime === "node" ? "7 4" : undefined,
        points: rows.filter((r) => `${r.who}|${r.fetch}` === key).map((r) =>
          point(r.rounds, r.callsPerSecond)
        ),
      };
    });
    out.set(
      `mrtr-${suite.runtime}.svg`,
      renderLineChart({
        title: `MRTR tool calls per second by input rounds (${runtimeLabel(suite)})`,
        xLabel: "input rounds per call (each round: one more POST)",
        yLabel: "calls per second (one at a time)",
        xTicks: [0, 1, 3, 10],
        logY: true,
        series,
      }),
    );
  }
}

function chainCharts(results: RunResults, out: Map<string, string>): void {
  const form: ChartSeries[] = [];
  const messages: ChartSeries[] = [];
  results.suites.forEach((suite, i) => {
    const rows = suite.sections.chain;
    if (rows === undefined) return;
    const color = PALETTE[i];
    const us = (v: number) => v / 1000;
    const of = (group: string) =>
      rows.filter((r) => r.group === group).map((r) => point(r.size, r.addedNs, us));
    const name = runtimeLabel(suite);
    form.push({ name: `${name}, same form`, color, points: of("form-same") });
    form.push({ name: `${name}, new form`, color, dash: "7 4", points: of("form-new") });
    messages.push({ name, color, points: of("messages") });
  });
  out.set(
    "chain-form-size.svg",
    renderLineChart({
      title: "Chain overhead per form elicitation by form size",
      xLabel: "fields in the form",
      yLabel: "µs added per request",
      series: form,
    }),
  );
  out.set(
    "chain-messages.svg",
    renderLineChart({
      title: "Chain overhead per sampling request by message count",
      xLabel: "messages in the request",
      yLabel: "µs added per request",
      series: messages,
    }),
  );
}

/** A curve row's figures of one contender (the curve runs direct and sluice). */
function figures(row: FrontRow, who: "direct" | "sluice"): ContenderFigures {
  const found = row.by[who];
  if (found === undefined) {
    throw new TypeError(`front curve: no "${who}" figures at ${row.inFlight} in flight`);
  }
  return found;
}

function frontChart(results: RunResults, out: Map<string, string>): void {
  const curve = results.suites.find((s) => s.runtime === "node")?.sections.front?.curve;
  if (curve === undefined || curve.length === 0) return;
  out.set(
    "front-concurrency.svg",
    renderLineChart({
      title: "echo calls per second by calls in flight (Node)",
      xLabel: "calls in flight",
      yLabel: "calls per second",
      logX: true,
      xTicks: curve.map((r) => r.inFlight),
      series: [
        {
          name: "direct to the peer",
          points: curve.map((r) => point(r.inFlight, figures(r, "direct").perSecond)),
        },
        {
          name: "through the front",
          points: curve.map((r) => point(r.inFlight, figures(r, "sluice").perSecond)),
        },
      ],
    }),
  );
  out.set(
    "front-cores.svg",
    renderLineChart({
      title: "Cores kept busy by client, front and peer (Node)",
      xLabel: "calls in flight",
      yLabel: "cores busy (CPU seconds per second)",
      logX: true,
      xTicks: curve.map((r) => r.inFlight),
      series: [
        {
          name: "direct to the peer",
          points: curve.map((r) => point(r.inFlight, figures(r, "direct").coresBusy)),
        },
        {
          name: "through the front",
          points: curve.map((r) => point(r.inFlight, figures(r, "sluice").coresBusy)),
        },
      ],
    }),
  );
}

function memoryChart(results: RunResults, out: Map<string, string>): void {
  const series: ChartSeries[] = [];
  results.suites.forEach((suite, r) => {
    (suite.sections.memory ?? []).forEach((row, k) => {
      series.push({
        name: `${runtimeLabel(suite)}: ${
          row.name.replace("pending legacy server request", "legacy request")
        }`,
        color: PALETTE[k],
        dash: DASHES[r],
        points: row.perItem.map((p) => ({ x: p.allocated / 1000, y: p.bytes })),
      });
    });
  });
  if (series.length === 0) return;
  out.set(
    "memory-churn.svg",
    renderLineChart({
      title: "Heap bytes per pending item as items come and go",
      xLabel: "items made so far (thousands)",
      yLabel: "bytes per pending item",
      logY: true,
      series,
    }),
  );
}

/**
 * Renders every chart the results have data for.
 *
 * @param results The run's results.
 * @returns File name to SVG.
 */
export function renderCharts(results: RunResults): Map<string, string> {
  const out = new Map<string, string>();
  mrtrCharts(results, out);
  chainCharts(results, out);
  frontChart(results, out);
  memoryChart(results, out);
  return out;
}
