/**
 * The chain's overhead per input request on this runtime: each case runs the same handler
 * directly and through the chain, side by side in one run, and the overhead is the difference,
 * run by run. Four groups ({@linkcode GROUPS}), each measured on its own with a chain and inputs
 * of its own (its cases interleave; no group's budget is another's), as one server's chain would
 * be:
 *
 * - by kind: a clamped sampling request, the 13-field server-everything form, a URL
 *   elicitation, and a request refused by policy;
 * - by form size, 1 to 100 fields, in two groups: the same form every time (what a server asking
 *   again and again sends), and a form never seen before on every call (a pool of distinct forms);
 * - by sampling message count, 1 to 1000 messages.
 *
 * @module
 */
import { type Chain, createChain } from "../src/chain/chain.ts";
import { compilePolicy } from "../src/policy/compile-policy.ts";
import { createMemoryStore } from "../src/limits/memory-store.ts";
import type { Handler, InputContext } from "../src/handler/handler.ts";
import { defer } from "../src/handler/deferral.ts";
import type { InputRequest } from "../src/protocol/input-request.ts";
import { measureMicro, type MicroCase, type MicroOptions } from "./_micro.ts";
import { type Spread, spreadOf } from "./_stats.ts";
import { formAnswerOf, formOf, KIND_CASES, messagesOf } from "./_chain-inputs.ts";

/** One case: nanoseconds per request, directly and through the chain, and the difference. */
export interface ChainRow {
  /** `kind`, `form-same`, `form-new` or `messages`. */
  readonly group: string;
  readonly name: string;
  /** The form's field count or the message count (0 for the kind group). */
  readonly size: number;
  readonly directNs: Spread;
  readonly chainNs: Spread;
  /** `chainNs - directNs`, run by run. */
  readonly addedNs: Spread;
}

/** The chain bench's sizes. */
export const FORM_SIZES: readonly number[] = [1, 3, 10, 30, 100];
export const MESSAGE_COUNTS: readonly number[] = [1, 10, 100, 1000];

const reply = { role: "assistant", content: { type: "text", text: "ok" }, model: "bench" } as const;
const answers = new Map<string, unknown>();

const handler: Handler = {
  sampling: () => reply,
  elicitationModes: ["form", "url"],
  elicitation: (params) => ("url" in params ? { action: "accept" } : answers.get(params.message)) as never,
};

const ctx: InputContext = {
  client: "bench",
  serverId: "bench",
  era: "modern",
  assigns: {},
  relatedRequestId: null,
  changes: [],
  signal: new AbortController().signal,
  defer,
};
// Contexts are built once: the direct baseline is the bare handler call.
const formCtx = { ...ctx, mode: "form" as const, fields: {} };
const urlCtx = { ...ctx, mode: "url" as const, url: "", host: "", idn: false, originMismatch: true };

interface Pair {
  readonly group: string;
  readonly name: string;
  readonly size: number;
  /** Requests used in turn (one, or a pool of distinct ones). */
  readonly requests: readonly InputRequest[];
}

function direct(request: InputRequest): unknown {
  const params = request.params as never;
  if (request.method === "sampling/createMessage") return handler.sampling?.(params, ctx);
  const isUrl = (request.params as { mode?: string }).mode === "url";
  return handler.elicitation?.(params, isUrl ? urlCtx : formCtx);
}

/** A pool of distinct forms of `size` fields. */
function formPool(size: number, quick: boolean): InputRequest[] {
  const count = Math.max(64, Math.min(quick ? 2_000 : 20_000, Math.floor((quick ? 10_000 : 100_000) / size)));
  return Array.from({ length: count }, (_, k) => formRequest(size, `p${k}_`));
}

function formRequest(size: number, prefix: string): InputRequest {
  const message = `form ${prefix}${size}`;
  answers.set(message, formAnswerOf(size, prefix));
  return {
    method: "elicitation/create",
    params: { message, requestedSchema: formOf(size, prefix) as never },
  };
}

/** The groups, in the order they run. */
const GROUPS = ["kind", "form-same", "form-new", "messages"] as const;

/**
 * The pairs of one group, made when the group runs, with their form answers: no group's inputs
 * are alive while another group is measured, and none outlive the section (the answer map is the
 * module's, and the suite's later sections run in the same process). The pools of new forms are
 * thousands of objects with keys of their own, and a Node process that holds them runs other code
 * several times slower, in some processes and not in others (for the chain's own cases: RESULTS.md,
 * "Measured by hand"); a gateway holds the inputs of the calls in flight, not thousands of forms.
 */
function pairsOf(group: typeof GROUPS[number], quick: boolean): Pair[] {
  answers.clear();
  switch (group) {
    case "kind":
      answers.set(KIND_CASES[1]?.request.params.message as string, KIND_CASES[1]?.answer);
      return KIND_CASES.map((c) => ({ group, name: c.name, size: 0, requests: [c.request] }));
    case "form-same":
      return FORM_SIZES.map((size) => ({
        group,
        name: `${size} fields, same form`,
        size,
        requests: [formRequest(size, "f")],
      }));
    case "form-new":
      return FORM_SIZES.map((size) => ({
        group,
        name: `${size} fields, new form`,
        size,
        requests: formPool(size, quick),
      }));
    case "messages":
      return MESSAGE_COUNTS.map((count) => ({
        group,
        name: `sampling, ${count} messages`,
        size: count,
        requests: [{
          method: "sampling/createMessage",
          params: { messages: messagesOf(count), maxTokens: 999_999 },
        } as InputRequest],
      }));
  }
}

function cycling(requests: readonly InputRequest[], f: (request: InputRequest) => unknown): () => unknown {
  if (requests.length === 1) {
    const only = requests[0] as InputRequest;
    return () => f(only);
  }
  let i = 0;
  return () => f(requests[i++ % requests.length] as InputRequest);
}

/** A chain of its own for one group, so no group's budget is another's. */
function chainFor(): Chain {
  return createChain({
    policy: compilePolicy({
      server: "bench",
      transport: { url: "https://mcp.example.com/mcp" },
      // A budget the bench never exhausts, so every request still pays for the budget check.
      inputRateLimit: { rate: 1_000_000, per: "1ms", burst: 1_000_000 },
    }),
    handler,
    client: "bench",
    store: createMemoryStore(),
  });
}

/**
 * Measures every case on this runtime, group by group (cases interleave within their group).
 *
 * @param options Runs and batch length (see `_micro.ts`).
 * @param quick Smaller pools of distinct forms.
 * @returns One row per case.
 */
export async function benchChain(options: MicroOptions, quick = false): Promise<ChainRow[]> {
  const context = { version: "2026-07-28" } as const;
  const rows: ChainRow[] = [];
  for (const group of GROUPS) {
    const members = pairsOf(group, quick);
    const cases: MicroCase[] = [];
    const chain = chainFor();
    for (const pair of members) {
      for (const request of pair.requests.slice(0, 3)) {
        const result = await chain.run(request, context);
        if (pair.name.startsWith("denied") === result.ok) {
          throw new Error(`bench case "${pair.name}" gave ${JSON.stringify(result).slice(0, 300)}`);
        }
      }
      // Awaited like the chain: a caller awaits a handler's answer, which may be a promise.
      cases.push({ name: `${pair.name}: direct`, fn: cycling(pair.requests, direct), awaited: true });
      cases.push({ name: `${pair.name}: chain`, fn: cycling(pair.requests, (r) => chain.run(r, context)) });
    }
    const timed = await measureMicro(cases, options);
    for (const pair of members) {
      const directNs = timed.get(`${pair.name}: direct`) as Spread;
      const chainNs = timed.get(`${pair.name}: chain`) as Spread;
      const addedNs = spreadOf(chainNs.runs.map((ns, i) => ns - (directNs.runs[i] as number)));
      rows.push({ group: pair.group, name: pair.name, size: pair.size, directNs, chainNs, addedNs });
    }
  }
  return rows;
}
