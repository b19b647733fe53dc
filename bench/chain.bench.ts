/**
 * The chain's overhead per input request on this runtime: each case runs the same handler
 * directly and through the chain, side by side in one run, and reports the added time.
 *
 * @module
 */
import { bench, do_not_optimize, run } from "mitata";
import { createChain } from "../src/chain/chain.ts";
import { compilePolicy } from "../src/policy/compile-policy.ts";
import { createMemoryStore } from "../src/limits/memory-store.ts";
import type { Handler, InputContext } from "../src/handler/handler.ts";
import { defer } from "../src/chain/deferral.ts";
import type { InputRequest } from "../src/protocol/input-request.ts";
import everythingForm from "../tests/fixtures/server-everything-elicitation-schema.json" with {
  type: "json",
};

/** One benchmark case: nanoseconds per request, directly and through the chain. */
export interface ChainRow {
  readonly name: string;
  readonly directNs: number;
  readonly chainNs: number;
}

const reply = { role: "assistant", content: { type: "text", text: "ok" }, model: "bench" } as const;
const formAnswer = {
  action: "accept",
  content: {
    name: "Ada Lovelace",
    check: true,
    email: "ada@example.com",
    homepage: "https://example.com/ada",
    birthdate: "1815-12-10",
    untitledSingleSelectEnum: "Joey",
    untitledMultipleSelectEnum: ["Piano"],
    titledSingleSelectEnum: "hero-2",
    titledMultipleSelectEnum: ["fish-1", "fish-3"],
    legacyTitledEnum: "pet-2",
  },
} as const;

const handler: Handler = {
  sampling: () => reply,
  elicitationModes: ["form", "url"],
  elicitation: (params) => ("url" in params ? { action: "accept" } : formAnswer) as never,
};

const signal = new AbortController().signal;
const ctx: InputContext = {
  client: "bench",
  serverId: "bench",
  era: "modern",
  assigns: {},
  relatedRequestId: null,
  signal,
  defer,
};
// Contexts are built once: the direct baseline is the bare handler call.
const formCtx = { ...ctx, mode: "form" as const, fields: {} };
const urlCtx = (url: string) => ({
  ...ctx,
  mode: "url" as const,
  url,
  host: "login.example.com",
  idn: false,
  originMismatch: true,
});
const loginCtx = urlCtx("https://login.example.com/");
const httpCtx = urlCtx("http://login.example.com/");
const samplingParams = { messages: [], maxTokens: 4096 };
const formParams = { message: "x", requestedSchema: everythingForm as never };
const loginParams = { mode: "url" as const, message: "x", url: "https://login.example.com/" };
const httpParams = { mode: "url" as const, message: "x", url: "http://login.example.com/" };

const cases: Array<{ name: string; request: InputRequest; direct: () => unknown }> = [
  {
    name: "sampling request (clamped)",
    request: {
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "Summarise" } }],
        maxTokens: 999_999,
      },
    },
    direct: () => handler.sampling?.(samplingParams, ctx),
  },
  {
    name: "13-field form elicitation",
    request: {
      method: "elicitation/create",
      params: { message: "Please provide inputs", requestedSchema: everythingForm as never },
    },
    direct: () => handler.elicitation?.(formParams, formCtx),
  },
  {
    name: "URL elicitation",
    request: {
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://login.example.com/start?x=1" },
    },
    direct: () => handler.elicitation?.(loginParams, loginCtx),
  },
  {
    name: "denied request (http URL)",
    request: {
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "http://login.example.com/" },
    },
    direct: () => handler.elicitation?.(httpParams, httpCtx),
  },
];

/**
 * Measures every case on this runtime.
 *
 * @returns One row per case.
 */
export async function benchChain(): Promise<ChainRow[]> {
  const chain = createChain({
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
  for (const c of cases) {
    const check = await chain.run(c.request, { version: "2026-07-28" });
    if (c.name.startsWith("denied") === check.ok) {
      throw new Error(`bench case "${c.name}" gave ${JSON.stringify(check)}`);
    }
    bench(`${c.name}: direct`, async () => do_not_optimize(await c.direct()));
    bench(
      `${c.name}: chain`,
      async () => do_not_optimize(await chain.run(c.request, { version: "2026-07-28" })),
    );
  }
  const { benchmarks } = await run({ format: "quiet", throw: true });
  const avg = (name: string) => benchmarks.find((b) => b.alias === name)?.runs[0]?.stats?.avg ?? NaN;
  return cases.map((c) => ({
    name: c.name,
    directNs: avg(`${c.name}: direct`),
    chainNs: avg(`${c.name}: chain`),
  }));
}
