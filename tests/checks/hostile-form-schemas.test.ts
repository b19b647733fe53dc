// The hostile form-schema corpus (tests/fixtures/hostile-form-schemas.json): schemas outside the
// spec's flat primitive subset, malformed keywords, limits, and odd schemas inside the subset. Each
// case's `expected` is a whole refusal `{ code, message }`, or the compiled form: `shape` (the
// fields, keys that are `undefined` left out) and `sensitive` (the names flagged
// `sensitiveSuspected`). See `_hostile-inputs.ts` for `parse` and `special`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { np, same } from "../_support/exact.ts";
import { createElicitationFormCheck } from "../../src/checks/elicitation-form.ts";
import { type ExpectedRefusal, type HostileCase, isRefusal, materialise } from "./_hostile-inputs.ts";
import cases from "../fixtures/hostile-form-schemas.json" with { type: "json" };

interface Compiled {
  readonly shape: readonly Readonly<Record<string, unknown>>[];
  readonly sensitive: readonly string[];
}

interface SchemaCase extends HostileCase {
  readonly schema: unknown;
  readonly expected: ExpectedRefusal | Compiled;
}

const table = cases as unknown as readonly SchemaCase[];
const forms = createElicitationFormCheck();

/** The keys each kind of field has besides `name`, `required`, `kind` (and `integer`, `values`). */
const OPTIONAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ["minLength", "maxLength", "format", "default"],
  number: ["minimum", "maximum", "default"],
  boolean: ["default"],
  enum: ["default"],
  multi: ["minItems", "maxItems", "default"],
};

/** The whole verdict a case's `expected` stands for. */
function verdictOf(expected: SchemaCase["expected"]): unknown {
  if (isRefusal(expected)) return { ok: false, refusal: expected };
  const fields = expected.shape.map((field) => {
    const full: Record<string, unknown> = { ...field };
    for (const key of OPTIONAL_KEYS[String(field["kind"])] ?? []) if (!(key in full)) full[key] = undefined;
    return full;
  });
  const context = (name: unknown) => ({ sensitiveSuspected: expected.sensitive.includes(String(name)) });
  const contexts = Object.fromEntries(fields.map((field) => [field["name"], context(field["name"])]));
  return { ok: true, value: { shape: { fields }, fields: np(contexts) } };
}

describe(`createElicitationFormCheck() on the hostile schema corpus of ${table.length} cases`, () => {
  test(`the corpus holds ${table.length} cases (at least 110), notes unique, refused and accepted`, () => {
    assert.ok(table.length >= 110, `${table.length} cases`);
    assert.equal(new Set(table.map((entry) => entry.note)).size, table.length);
    assert.ok(table.some((entry) => isRefusal(entry.expected)));
    assert.ok(table.some((entry) => !isRefusal(entry.expected)));
  });

  for (const [index, entry] of table.entries()) {
    const verb = isRefusal(entry.expected) ? "refuses" : "accepts";
    test(`#${index + 1} ${verb} ${entry.note}`, () => {
      const expected = verdictOf(entry.expected);
      same(forms.check(materialise(entry, "schema")), expected);
      // The same verdict again, now that the check may remember the form.
      same(forms.check(materialise(entry, "schema")), expected);
    });
  }
});
