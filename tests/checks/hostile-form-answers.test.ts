// The hostile answer corpus (tests/fixtures/hostile-form-answers.json): answers that break valid
// form schemas (or a URL-mode request, `"mode": "url"`). Each case's `expected` is a whole refusal
// `{ code, message }`, or the answer sent on: `{ action, content? }`, its content's keys in the
// order expected (the schema's). See `_hostile-inputs.ts` for `parse` and `special`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { np, same } from "../_support/exact.ts";
import { sameRecords } from "./_form-records.ts";
import { checkElicitAnswer, type ElicitAnswerRequest } from "../../src/checks/elicitation-answer.ts";
import { createElicitationFormCheck } from "../../src/checks/elicitation-form.ts";
import { type ExpectedRefusal, type HostileCase, isRefusal, materialise } from "./_hostile-inputs.ts";
import cases from "../fixtures/hostile-form-answers.json" with { type: "json" };

interface Sent {
  readonly action: string;
  readonly content?: Readonly<Record<string, unknown>>;
}

interface AnswerCase extends HostileCase {
  readonly schema: unknown;
  readonly mode?: "url";
  readonly answer: unknown;
  readonly expected: ExpectedRefusal | Sent | string;
}

const table = cases as unknown as readonly AnswerCase[];
const forms = createElicitationFormCheck();

function requestOf(entry: AnswerCase): ElicitAnswerRequest {
  if (entry.mode === "url") return { mode: "url" };
  const verdict = forms.check(materialise(entry, "schema"));
  if (!verdict.ok) throw new Error(`${entry.note}: the schema is refused: ${verdict.refusal.message}`);
  return { mode: "form", shape: verdict.value.shape };
}

/** Asserts that a verdict is the refusal, or the answer sent on, that `expected` describes. */
function assertAnswerVerdict(verdict: unknown, expected: unknown): void {
  if (isRefusal(expected)) {
    same(verdict, { ok: false, refusal: expected });
    return;
  }
  assert.equal(typeof expected, "object");
  const sent = expected as Sent;
  if (sent.content === undefined) {
    same(verdict, { ok: true, value: { action: sent.action } });
    return;
  }
  sameRecords(verdict, { ok: true, value: { action: sent.action, content: np(sent.content) } });
  const content = (verdict as { value?: { content?: object } }).value?.content ?? {};
  assert.deepEqual(Object.keys(content), Object.keys(sent.content), "the content's keys, in order");
}

describe(`checkElicitAnswer() on the hostile answer corpus of ${table.length} cases`, () => {
  test(`the corpus holds ${table.length} cases (at least 110), notes unique, refused and sent`, () => {
    assert.ok(table.length >= 110, `${table.length} cases`);
    assert.equal(new Set(table.map((entry) => entry.note)).size, table.length);
    assert.ok(table.some((entry) => isRefusal(entry.expected)));
    assert.ok(table.some((entry) => !isRefusal(entry.expected)));
  });

  for (const [index, entry] of table.entries()) {
    const verb = isRefusal(entry.expected) ? "refuses" : "sends";
    test(`#${index + 1} ${verb} ${entry.note}`, () => {
      const request = requestOf(entry);
      const answer = materialise(entry, "answer");
      const expected = materialise(entry, "expected");
      assertAnswerVerdict(checkElicitAnswer(answer, request), expected);
      // Never modified (cases with getters and proxies cannot be compared).
      if (entry.special === undefined) same(answer, materialise(entry, "answer"));
    });
  }
});
