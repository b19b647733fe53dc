// Properties of the answer validation (src/checks/elicitation-answer.ts) against forms compiled
// from generated schemas: answers built to fit each field, the same edited anywhere inside, and
// values JSON cannot hold. No input throws; the verdict is stable; the answer is never modified;
// an accepted answer is a fixed point with the form's fields in the schema's order; an empty
// accepted form gets exactly the defaults; a refusal is -32603 and never echoes what the user
// typed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  createElicitationFormCheck,
  type FieldShape,
  type FormShape,
} from "../../src/checks/elicitation-form.ts";
import { checkElicitAnswer } from "../../src/checks/elicitation-answer.ts";
import { np } from "../_support/exact.ts";
import { sameRecords } from "../checks/_form-records.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";
import { hostileString, objectOf, wireValue } from "./_arbitraries.ts";
import { anyValue, realise } from "./_js-only-values.ts";
import { mutated } from "./_mutated.ts";
import { formSchema } from "./_protocol-arbitraries.ts";

const forms = createElicitationFormCheck();
/** Put into every free-text value: a refusal must never show it. */
const TYPED = "\u{1F511}typed";

/** Forms that compile, as the answer check receives them. */
const shape: fc.Arbitrary<FormShape> = formSchema.map((schema) => forms.check(schema))
  .filter((verdict) => verdict.ok)
  .map((verdict) => (verdict.ok ? verdict.value.shape : { fields: [] }));

/** A value meant to fit a field (free text may still break its bounds or format). */
function valueFor(field: FieldShape): fc.Arbitrary<unknown> {
  switch (field.kind) {
    case "string": {
      const formatted = {
        email: fc.constant("ada@example.com"),
        uri: fc.constant("https://example.com/a"),
        date: fc.constant("2024-02-29"),
        "date-time": fc.constant("2024-02-29T12:00:00+01:00"),
      };
      return field.format === undefined
        ? hostileString(Math.max(field.maxLength ?? 12, 1)).map((text) => TYPED + text)
        : formatted[field.format];
    }
    case "number":
      return field.integer
        ? fc.integer({ min: field.minimum ?? -1000, max: field.maximum ?? 1000 })
        : fc.double({ min: field.minimum ?? -1000, max: field.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...field.values);
    case "multi":
      return fc.subarray([...field.values]);
  }
}

/** Content for a form: each field present (fitting) or absent, in any order. */
function contentFor(form: FormShape): fc.Arbitrary<Record<string, unknown>> {
  const entries = form.fields.map((field) =>
    fc.option(valueFor(field).map((value) => [field.name, value] as const))
  );
  return fc.tuple(...entries).chain((picked) => fc.shuffledSubarray(picked, { minLength: picked.length }))
    .map(
      (picked) => objectOf(picked.filter((entry) => entry !== null)),
    );
}

const answerFor = (form: FormShape) =>
  fc.oneof(
    { weight: 3, arbitrary: contentFor(form).map((content) => ({ action: "accept", content })) },
    {
      weight: 3,
      arbitrary: mutated(contentFor(form).map((content) => ({ action: "accept", content })), wireValue),
    },
    { weight: 1, arbitrary: fc.constantFrom("decline", "cancel").map((action) => ({ action, content: {} })) },
  );
const formAndAnswer = shape.chain((form) => fc.tuple(fc.constant(form), answerFor(form)));

describe("checkElicitAnswer() properties", () => {
  test(
    propertyName(
      "checkElicitAnswer() is stable, never modifies the answer, and an accepted answer is a fixed point",
    ),
    () => {
      fc.assert(
        fc.property(formAndAnswer, ([form, answer]) => {
          const request = { mode: "form", shape: form } as const;
          const before = JSON.stringify(answer);
          const verdict = checkElicitAnswer(answer, request);
          sameRecords(checkElicitAnswer(answer, request), verdict);
          assert.equal(JSON.stringify(answer), before);
          if (!verdict.ok) {
            assert.equal(verdict.refusal.code, -32603);
            assert.match(verdict.refusal.message, /^Elicitation answer refused: /);
            assert.ok(!verdict.refusal.message.includes(TYPED), verdict.refusal.message);
            return;
          }
          const names = form.fields.map((field) => field.name);
          const keys = Object.keys(verdict.value.content ?? {});
          assert.deepEqual(keys, names.filter((name) => keys.includes(name)));
          sameRecords(checkElicitAnswer(verdict.value, request), verdict);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "checkElicitAnswer() sends an accepted empty form with exactly the defaults, or refuses a required field without one",
    ),
    () => {
      fc.assert(
        fc.property(shape, fc.boolean(), (form, withContent) => {
          const answer = withContent ? { action: "accept", content: {} } : { action: "accept" };
          const verdict = checkElicitAnswer(answer, { mode: "form", shape: form });
          const missing = form.fields.find((field) => field.required && field.default === undefined);
          if (missing !== undefined) {
            assert.equal(verdict.ok, false);
            return;
          }
          const defaults = form.fields.filter((field) => field.default !== undefined);
          sameRecords(verdict, {
            ok: true,
            value: {
              action: "accept",
              content: np(objectOf(defaults.map((field) => [field.name, field.default]))),
            },
          });
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName("checkElicitAnswer() of any answer, JSON or not, for a form or a URL, returns a verdict"),
    () => {
      fc.assert(
        fc.property(shape, anyValue, fc.boolean(), (form, generated, url) => {
          const request = url ? { mode: "url" } as const : { mode: "form", shape: form } as const;
          const verdict = checkElicitAnswer(realise(generated), request);
          assert.equal(typeof verdict.ok, "boolean");
          if (!verdict.ok) assert.equal(verdict.refusal.code, -32603);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );
});
