// The hostile sampling corpus (tests/fixtures/hostile-sampling.json): what the sampling checks
// judge, each case run through one check (`check`, built with `options`) on `input` (the params,
// or the messages for the tool loop and tool results checks, or whether a call is in flight for the
// idle check). `expected`
// is a whole refusal `{ code, message }`, `{ "same": true }` (passed on as the very input object),
// `{ "value": ... }` (a rewritten copy; the input is left as it was) or `{ "void": true }` (passed,
// nothing to pass on). See `_hostile-inputs.ts` for `parse` and `special`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { same } from "../_support/exact.ts";
import type { Verdict } from "../../src/checks/verdict.ts";
import { createSamplingMaxTokensCheck } from "../../src/checks/sampling-max-tokens.ts";
import { createSamplingContextCheck } from "../../src/checks/sampling-context.ts";
import { createSamplingIdleCheck } from "../../src/checks/sampling-idle.ts";
import { createSamplingToolLoopCheck, type ToolLoopMessage } from "../../src/checks/sampling-tool-loop.ts";
import { checkSamplingToolResults } from "../../src/checks/sampling-tool-results.ts";
import { createSamplingToolsCheck } from "../../src/checks/sampling-tools.ts";
import { type ExpectedRefusal, type HostileCase, isRefusal, materialise } from "./_hostile-inputs.ts";
import cases from "../fixtures/hostile-sampling.json" with { type: "json" };

type Expected =
  | ExpectedRefusal
  | { readonly same: true }
  | { readonly value: unknown }
  | { readonly void: true };

interface SamplingCase extends HostileCase {
  readonly check: "maxTokens" | "toolLoop" | "toolResults" | "tools" | "context" | "idle";
  readonly options: Readonly<Record<string, unknown>>;
  readonly input: unknown;
  readonly expected: Expected;
}

const table = cases as unknown as readonly SamplingCase[];

/** Builds the case's check and runs it; inputs are cast: hostile ones break the types on purpose. */
function judge(entry: SamplingCase, input: unknown): Verdict<unknown> {
  const options = entry.options as never;
  switch (entry.check) {
    case "maxTokens":
      return createSamplingMaxTokensCheck(options).check(input as { maxTokens: number });
    case "toolLoop":
      return createSamplingToolLoopCheck(options).check(input as ToolLoopMessage[]);
    case "toolResults":
      return checkSamplingToolResults(input as ToolLoopMessage[]);
    case "tools":
      return createSamplingToolsCheck(options).check(input as { tools?: unknown[] });
    case "context":
      return createSamplingContextCheck(options).check(input as { includeContext?: string });
    case "idle":
      return createSamplingIdleCheck(options).check(input as boolean);
  }
}

/** Asserts that a verdict is what `expected` describes, for the very `input` the check got. */
function assertVerdict(verdict: Verdict<unknown>, expected: Expected, input: unknown): void {
  if (isRefusal(expected)) {
    assert.deepEqual(verdict, { ok: false, refusal: expected });
  } else if ("same" in expected) {
    assert.equal(verdict.ok && verdict.value, input);
  } else if ("void" in expected) {
    assert.deepEqual(verdict, { ok: true, value: undefined });
  } else {
    same(verdict, { ok: true, value: expected.value });
    assert.notEqual(verdict.ok && verdict.value, input);
  }
}

describe(`the sampling checks on the hostile sampling corpus of ${table.length} cases`, () => {
  test(`the corpus holds ${table.length} cases, each check passing and all but the context check refusing`, () => {
    for (const check of ["maxTokens", "toolLoop", "toolResults", "tools", "context", "idle"]) {
      const mine = table.filter((entry) => entry.check === check);
      assert.equal(mine.some((entry) => isRefusal(entry.expected)), check !== "context", `${check} refuses`);
      assert.ok(mine.some((entry) => !isRefusal(entry.expected)), `${check} passes`);
    }
    assert.equal(new Set(table.map((entry) => `${entry.check}: ${entry.note}`)).size, table.length);
  });

  test("the corpus holds a tool loop of every length from 0 to 7 turns under the limit 5", () => {
    type Message = { readonly role: string; readonly content: unknown };
    const turns = (messages: readonly Message[]) =>
      messages.filter((message) =>
        message.role === "assistant" && JSON.stringify(message.content).includes('"type":"tool_use"')
      ).length;
    const lengths = table
      .filter((entry) => entry.check === "toolLoop" && entry.options["maxToolIterations"] === 5)
      .filter((entry) => entry.special === undefined && Array.isArray(entry.input))
      .filter((entry) =>
        (entry.input as unknown[]).every((message) => typeof message === "object" && message)
      )
      .map((entry) => turns(entry.input as Message[]));
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].filter((n) => !lengths.includes(n)), []);
  });

  for (const [index, entry] of table.entries()) {
    const expected = entry.expected;
    const verb = isRefusal(expected)
      ? `refuses (${expected.code})`
      : "value" in expected
      ? "rewrites"
      : "passes";
    test(`#${index + 1} ${entry.check} ${verb} ${entry.note}`, () => {
      const input = materialise(entry, "input");
      assertVerdict(judge(entry, input), expected, input);
      // The input is never modified (cases with getters cannot be compared).
      if (entry.special === undefined) same(input, materialise(entry, "input"));
    });
  }
});
