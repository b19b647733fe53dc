/**
 * RESULTS.md's "Measured by hand" section: figures measured once, when the code they explain was
 * written, that no benchmark here measures again. Source comments say why the code is shaped so
 * and point here for the numbers, so no comment carries a figure that goes stale unseen.
 *
 * @module
 */

/** One figure: the code it explains, what was measured, where, and the result. */
interface HandMeasure {
  readonly code: string;
  readonly what: string;
  readonly on: string;
  readonly figure: string;
}

const HAND_MEASURES: readonly HandMeasure[] = [
  {
    code: "src/_internal/signals.ts",
    what: "making a new `AbortSignal`",
    on: "Node 20",
    figure: "~3 µs",
  },
  {
    code: "src/_internal/signals.ts",
    what: "CPU of an undici request given a freshly made signal, against one given a signal made " +
      "earlier (a whole loopback POST: ~170 µs)",
    on: "Node 20",
    figure: "~26 µs more",
  },
  {
    code: "src/_internal/signals.ts",
    what: "each linked signal layer a call used to add",
    on: "Node 20",
    figure: "25–40 µs",
  },
  {
    code: "src/transport/node-fetch.ts",
    what: "CPU of one small loopback POST: the global `fetch`, against `undici.request`",
    on: "Node 20",
    figure: "400–600 µs against 90–160 µs",
  },
  {
    code: "src/transport/fetch-with-redirects.ts",
    what: "`fetch` given a `Request` built first, against `fetch(url, init)`",
    on: "Node 20",
    figure: "100–200 µs more",
  },
  {
    code: "src/transport/body-reader.ts",
    what: "CPU of reading a small JSON body through a stream reader loop, against `arrayBuffer()`",
    on: "Deno 2.9",
    figure: "~140 µs more",
  },
  {
    code: "src/front/downstream-auth.ts",
    what: "authenticating a request with an ES256 JWT: verifying its signature, against a token " +
      "verified before",
    on: "not recorded",
    figure: "~150–160 µs against ~2 µs",
  },
  {
    code: "src/protocol/decode.ts",
    what: "valibot's `variant` in the MRTR client's CPU before `wireVariant`; the in-process MRTR " +
      "overhead per POST before and after it",
    on: "Bun 1.4",
    figure: "15% of the CPU; 20–30 µs → 16 µs",
  },
  {
    code: "src/_internal/copy.ts",
    what: "copying a one-key null-prototype record by a loop over its keys, against spread; a " +
      "retry's params (`buildRetryParams` + `withRequestMeta`) before and after",
    on: "Node 20",
    figure: "~10× faster; 4.05 µs → 0.62 µs",
  },
  {
    code: "src/chain/_handler-contexts.ts",
    what: "making an input callback's context: an object literal with a getter, or a spread " +
      "followed by new keys, against an instance of a small class",
    on: "Node 20",
    figure: "hundreds of ns against ~10 ns",
  },
  {
    code: "bench/chain.bench.ts",
    what: "the chain's time for the clamped sampling request when the process already holds " +
      "the pools of new forms (made before any group ran), against pools made when their own " +
      "group runs; 7 processes against 4, with the whole test suite running beside them",
    on: "Node 20",
    figure: "3.1–3.6 µs in each process against 1.1–1.5 µs (on a quiet machine, the pools made " +
      "first gave 1.1 µs in some processes and 2–5.5 µs in others)",
  },
];

/**
 * The section, in Markdown.
 *
 * @returns The heading, a note on what the figures are, and their table.
 */
export function handMeasuresSection(): string {
  return [
    "## Measured by hand",
    "",
    "Figures measured once, when the code they explain was written, and not measured again by " +
    "`npm run bench`: the code's comments say why it is shaped so and point here. Measure again " +
    "before leaning on one.",
    "",
    "| code | what was measured | on | figure |",
    "|---|---|---|---|",
    ...HAND_MEASURES.map((m) => `| \`${m.code}\` | ${m.what} | ${m.on} | ${m.figure} |`),
    "",
  ].join("\n");
}
