// Properties of the form-schema subset check (src/checks/elicitation-form.ts): schemas of the
// spec's primitive subset edited anywhere inside (hostile keys such as `__proto__`, values of the
// wrong kind, deep nesting, -0, NaN, 1e309), schemas parsed from hostile JSON text, and values
// JSON cannot hold. No input throws; the verdict is the same on the second check and from a
// fresh check; the schema is never modified; a compiled form lists
// exactly the schema's properties, in order, frozen; a refusal is -32602 and shows no control,
// bidi or invisible character.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { createElicitationFormCheck } from "../../src/checks/elicitation-form.ts";
import { REMOVABLE } from "../../src/_internal/removable.ts";
import { NAME_ONLY_WORDS, SECRET_PHRASES, SECRET_WORDS } from "../../src/checks/form/secret-words.ts";
import { same } from "../_support/exact.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";
import { jsonText, objectOf, wireValue } from "./_arbitraries.ts";
import { anyValue, realise } from "./_js-only-values.ts";
import { mutated } from "./_mutated.ts";
import { formSchema } from "./_protocol-arbitraries.ts";

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const forms = createElicitationFormCheck();

/** Schemas: near-valid ones, schemas whose properties come from hostile JSON text, and JSON values. */
const schema = fc.oneof(
  { weight: 4, arbitrary: mutated(formSchema, wireValue) },
  {
    weight: 1,
    arbitrary: jsonText.map((text) => ({ type: "object", properties: JSON.parse(text) as unknown })),
  },
  { weight: 1, arbitrary: wireValue },
);

describe("createElicitationFormCheck() properties", () => {
  test(
    propertyName(
      "createElicitationFormCheck() of any schema is stable, from memory and from a fresh check, and never modifies it",
    ),
    () => {
      fc.assert(
        fc.property(schema, (requested) => {
          const before = JSON.stringify(requested);
          const verdict = forms.check(requested);
          same(forms.check(requested), verdict);
          same(createElicitationFormCheck().check(requested), verdict);
          assert.equal(JSON.stringify(requested), before);
          if (verdict.ok) return;
          assert.equal(verdict.refusal.code, -32602);
          assert.match(verdict.refusal.message, /^Elicitation schema refused: /);
          assert.doesNotMatch(verdict.refusal.message, UNSAFE);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "createElicitationFormCheck() compiles a form with the schema's properties in order, their required flags, frozen",
    ),
    () => {
      fc.assert(
        fc.property(schema, (requested) => {
          const verdict = forms.check(requested);
          if (!verdict.ok) return;
          const { properties, required } = requested as { properties: object; required?: unknown };
          const names = Object.keys(properties);
          const { shape, fields } = verdict.value;
          assert.deepEqual(shape.fields.map((field) => field.name), names);
          const listed = Array.isArray(required) ? required : [];
          assert.deepEqual(
            shape.fields.map((field) => field.required),
            names.map((name) => listed.includes(name)),
          );
          assert.deepEqual(Object.keys(fields), names);
          assert.equal(Object.getPrototypeOf(fields), null);
          assert.ok(Object.isFrozen(verdict.value) && Object.isFrozen(shape) && Object.isFrozen(fields));
          assert.ok(
            shape.fields.every((field) => Object.isFrozen(field) && Object.isFrozen(fields[field.name])),
          );
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(propertyName("createElicitationFormCheck() of any value, JSON or not, returns a verdict"), () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, mutated(formSchema, anyValue)), (generated) => {
        const verdict = forms.check(realise(generated));
        assert.equal(typeof verdict.ok, "boolean");
        if (!verdict.ok) assert.equal(verdict.refusal.code, -32602);
      }),
      PROPERTY_SETTINGS,
    );
  });

  /** Invisible characters a server may slip into a field name (default-ignorable or format). */
  const INVISIBLE = [
    "\u00ad",
    "\u034f",
    "\u061c",
    "\u180e",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u2060",
  ];
  const words = fc.constantFrom(
    ...SECRET_WORDS,
    ...NAME_ONLY_WORDS,
    ...[...SECRET_PHRASES].map((phrase) => phrase.replaceAll(" ", "_")),
    "spinner",
    "pinned",
    "tokenizer",
    "passport",
    "tokens",
    "user_name",
    "city",
  );
  /** The word with some ASCII characters made full-width and invisible characters put in. */
  const disguised = fc.tuple(
    words,
    fc.array(fc.boolean(), { maxLength: 40 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE, "\ufeff", "\ufe0f", "\u{e0020}")), {
      maxLength: 4,
    }),
  ).map(([word, widen, hide]) => {
    let out = [...word].map((
      char,
      i,
    ) => (widen[i] === true ? String.fromCharCode(char.charCodeAt(0) + 0xfee0) : char))
      .join("");
    for (const [at, char] of hide) {
      out = out.slice(0, at % (out.length + 1)) + char + out.slice(at % (out.length + 1));
    }
    return [word, out] as const;
  });
  const flagged = (name: string) => {
    const verdict = forms.check({ type: "object", properties: objectOf([[name, { type: "string" }]]) });
    return verdict.ok ? verdict.value.fields[name]?.sensitiveSuspected : verdict.refusal.message;
  };

  test(
    propertyName(
      "createElicitationFormCheck() flags a field name the same when it is disguised by width or invisibles",
    ),
    () => {
      fc.assert(
        fc.property(disguised, ([word, name]) => {
          assert.equal(flagged(name), flagged(word));
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  /** A title as the form check's documentation says a person sees it. */
  const shownAs = (title: string) =>
    title.replace(REMOVABLE, "").replace(/\p{Cs}/gu, "").normalize("NFKC").replace(/\s+/g, " ").trim()
      .slice(0, 300);
  /** Titles of plain words and of what shows as them: spaces of every kind, invisibles, other forms. */
  const title = fc.array(
    fc.constantFrom(
      "a",
      "B",
      "~",
      " ",
      "  ",
      "\t",
      "\u00a0",
      "\u200b",
      "\x7f",
      "\u00e9",
      "e\u0301",
      "\uff22",
    ),
    { maxLength: 6 },
  ).map((parts) => parts.join(""));

  test(
    propertyName(
      "createElicitationFormCheck() refuses two titles exactly when they show alike, or one shows nothing",
    ),
    () => {
      fc.assert(
        fc.property(title, title, (first, second) => {
          const verdict = forms.check({
            type: "object",
            properties: {
              x: { type: "string", oneOf: [{ const: "a", title: first }, { const: "b", title: second }] },
            },
          });
          const [one, two] = [shownAs(first), shownAs(second)];
          const why = one === ""
            ? "received one that shows nothing at index 0"
            : two === ""
            ? "received one that shows nothing at index 1"
            : one === two
            ? `received two shown as ${JSON.stringify(one)}, at indexes 0 and 1`
            : undefined;
          same(
            verdict.ok ? undefined : verdict.refusal.message,
            why === undefined
              ? undefined
              : `Elicitation schema refused: property "x", keyword "oneOf": expected options a person can tell apart, ${why}`,
          );
        }),
        PROPERTY_SETTINGS,
      );
    },
  );
});
