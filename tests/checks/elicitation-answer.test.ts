import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { np, same } from "../_support/exact.ts";
import { sameRecords } from "./_form-records.ts";
import { EVERYTHING_FORM_DEFAULTS } from "../_support/everything-form.ts";
import { checkElicitAnswer } from "../../src/checks/elicitation-answer.ts";
import { createElicitationFormCheck, type FormShape } from "../../src/checks/elicitation-form.ts";
import everything from "../fixtures/server-everything-elicitation-schema.json" with { type: "json" };
import sep1034 from "../fixtures/sep1034-elicitation-schema.json" with { type: "json" };

const forms = createElicitationFormCheck();

function shapeOf(schema: unknown): FormShape {
  const verdict = forms.check(schema);
  if (!verdict.ok) throw new Error(verdict.refusal.message);
  return verdict.value.shape;
}

function refused(reason: string) {
  return { ok: false, refusal: { code: -32603, message: `Elicitation answer refused: ${reason}` } };
}

const everythingForm = { mode: "form", shape: shapeOf(everything) } as const;
const strictForm = {
  mode: "form",
  shape: shapeOf({
    type: "object",
    properties: {
      code: { type: "string", minLength: 2, maxLength: 3 },
      when: { type: "string", format: "date-time" },
      site: { type: "string", format: "uri" },
      mail: { type: "string", format: "email" },
      pick: { type: "string", enum: Array.from({ length: 20 }, (_, i) => `v${i}`) },
      picks: {
        type: "array",
        items: { type: "string", enum: Array.from({ length: 20 }, (_, i) => `v${i}`) },
      },
    },
  }),
} as const;
const urlRequest = { mode: "url" } as const;

describe("checkElicitAnswer() SEP-1034 defaults", () => {
  test("fills in the string, integer, number, enum and boolean defaults of the conformance scenario", () => {
    const expected = {
      ok: true,
      value: {
        action: "accept",
        content: np({ name: "John Doe", age: 30, score: 95.5, status: "active", verified: true }),
      },
    };
    const form = { mode: "form", shape: shapeOf(sep1034) } as const;
    sameRecords(checkElicitAnswer({ action: "accept", content: {} }, form), expected);
    sameRecords(checkElicitAnswer({ action: "accept" }, form), expected);
  });

  test("keeps what the user gave over the default", () => {
    const form = { mode: "form", shape: shapeOf(sep1034) } as const;
    sameRecords(checkElicitAnswer({ action: "accept", content: { age: 41, verified: false } }, form), {
      ok: true,
      value: {
        action: "accept",
        content: np({ name: "John Doe", age: 41, score: 95.5, status: "active", verified: false }),
      },
    });
  });

  test("fills in the server-everything defaults around the required name, in schema order", () => {
    const verdict = checkElicitAnswer({
      action: "accept",
      content: { email: "ada@example.com", name: "Ada" },
    }, everythingForm);
    sameRecords(verdict, {
      ok: true,
      value: {
        action: "accept",
        content: np({
          name: "Ada",
          firstLine: EVERYTHING_FORM_DEFAULTS.firstLine,
          email: "ada@example.com",
          integer: 42,
          number: 3.14,
          untitledSingleSelectEnum: "Monica",
          untitledMultipleSelectEnum: ["Guitar"],
          titledSingleSelectEnum: "hero-1",
          titledMultipleSelectEnum: ["fish-1"],
          legacyTitledEnum: "pet-1",
        }),
      },
    });
    same(verdict.ok && Object.keys(verdict.value.content ?? {}), [
      "name",
      "firstLine",
      "email",
      "integer",
      "number",
      "untitledSingleSelectEnum",
      "untitledMultipleSelectEnum",
      "titledSingleSelectEnum",
      "titledMultipleSelectEnum",
      "legacyTitledEnum",
    ]);
  });

  test("copies default arrays, so the answer never shares them with the shape", () => {
    const first = checkElicitAnswer({ action: "accept", content: { name: "A" } }, everythingForm);
    const list = first.ok ? first.value.content?.["untitledMultipleSelectEnum"] : undefined;
    assert.ok(Array.isArray(list));
    list.push("Piano");
    const second = checkElicitAnswer({ action: "accept", content: { name: "A" } }, everythingForm);
    same(second.ok && second.value.content?.["untitledMultipleSelectEnum"], ["Guitar"]);
  });
});

describe("checkElicitAnswer() accepted answers", () => {
  test("accepts a complete server-everything answer and returns a fresh copy", () => {
    const content = {
      name: "Ada Lovelace",
      check: true,
      firstLine: "Call me Ishmael.",
      email: "ada.lovelace+mcp@example.co.uk",
      homepage: "https://example.com/~ada?x=1#top",
      birthdate: "1815-12-10",
      integer: 100,
      number: 0,
      untitledSingleSelectEnum: "Phoebe",
      untitledMultipleSelectEnum: ["Drums", "Bass", "Piano"],
      titledSingleSelectEnum: "hero-3",
      titledMultipleSelectEnum: ["fish-3", "fish-1"],
      legacyTitledEnum: "pet-5",
    };
    const answer = { action: "accept", content, _meta: { trace: "x" } };
    const before = structuredClone(answer);
    const verdict = checkElicitAnswer(answer, everythingForm);
    sameRecords(verdict, { ok: true, value: { action: "accept", content: np(content) } });
    same(answer, before);
    assert.notEqual(verdict.ok && verdict.value, answer);
    assert.notEqual(verdict.ok && verdict.value.content, content);
    assert.notEqual(
      verdict.ok && verdict.value.content?.["untitledMultipleSelectEnum"],
      content.untitledMultipleSelectEnum,
    );
  });

  test("drops the content of a declined or cancelled answer", () => {
    for (const action of ["decline", "cancel"] as const) {
      const answer = { action, content: { name: "secret" }, _meta: {} };
      same(checkElicitAnswer(answer, everythingForm), { ok: true, value: { action } });
      same(checkElicitAnswer(answer, urlRequest), { ok: true, value: { action } });
    }
  });

  test("accepts a URL-mode accept without content", () => {
    same(checkElicitAnswer({ action: "accept", _meta: { a: 1 } }, urlRequest), {
      ok: true,
      value: { action: "accept" },
    });
  });

  test("counts lengths in code points and accepts every format in its valid forms", () => {
    const valid = [
      { code: "😀😀" },
      { code: "abc" },
      { when: "2024-02-29T23:59:60Z" },
      { when: "2024-07-01T01:59:60+02:00" },
      { when: "1999-12-31t23:59:59.123456z" },
      { when: "2024-06-30T12:00:00-09:30" },
      { site: "urn:isbn:0451450523" },
      { site: "mailto:ada@example.com" },
      { site: "https://example.com/%E2%82%AC?q=a+b" },
      { mail: "用户@例子.广告" },
      { mail: "o'brien@example.com" },
      { pick: "v19" },
      { picks: ["v0", "v19", "v7"] },
    ];
    for (const content of valid) {
      sameRecords(checkElicitAnswer({ action: "accept", content }, strictForm), {
        ok: true,
        value: { action: "accept", content: np(content) },
      });
    }
  });
});

describe("checkElicitAnswer() refusals", () => {
  const name = { name: "Ada" };
  const cases: [string, unknown, string, typeof everythingForm | typeof strictForm | typeof urlRequest][] = [
    ["an answer that is null", null, "expected an object, received null", everythingForm],
    ["an answer that is an array", [], "expected an object, received an array", everythingForm],
    ["an answer that is a string", "accept", "expected an object, received a string", everythingForm],
    [
      "a missing action",
      { content: name },
      '"action" expected "accept", "decline" or "cancel", received nothing',
      everythingForm,
    ],
    [
      "an unknown action",
      { action: "ok" },
      '"action" expected "accept", "decline" or "cancel", received "ok"',
      everythingForm,
    ],
    [
      "an upper-case action",
      { action: "ACCEPT" },
      '"action" expected "accept", "decline" or "cancel", received "ACCEPT"',
      everythingForm,
    ],
    [
      "a numeric action",
      { action: 1 },
      '"action" expected "accept", "decline" or "cancel", received 1',
      urlRequest,
    ],
    [
      "content that is an array",
      { action: "accept", content: [] },
      '"content" expected an object, received an array',
      everythingForm,
    ],
    [
      "content that is null",
      { action: "accept", content: null },
      '"content" expected an object, received null',
      everythingForm,
    ],
    [
      "content that is a string",
      { action: "accept", content: "Ada" },
      '"content" expected an object, received a string',
      everythingForm,
    ],
    [
      "a URL accept with content",
      { action: "accept", content: {} },
      'a URL-mode "accept" expected no content, received some',
      urlRequest,
    ],
    [
      "a URL accept with null content",
      { action: "accept", content: null },
      'a URL-mode "accept" expected no content, received some',
      urlRequest,
    ],
    [
      "a missing required field",
      { action: "accept", content: {} },
      'field "name" is required, received nothing',
      everythingForm,
    ],
    [
      "an undefined required field",
      { action: "accept", content: { name: undefined } },
      'field "name" is required, received nothing',
      everythingForm,
    ],
    [
      "a string field holding a number",
      { action: "accept", content: { name: 7 } },
      'field "name" expected a string, received a number',
      everythingForm,
    ],
    [
      "an extra field",
      { action: "accept", content: { ...name, extra: 1 } },
      'field "extra" is not in the form, expected only its fields',
      everythingForm,
    ],
    [
      "an extra __proto__ field",
      { action: "accept", content: JSON.parse('{"name":"Ada","__proto__":{"x":1}}') },
      'field "__proto__" is not in the form, expected only its fields',
      everythingForm,
    ],
    [
      "a malformed email",
      { action: "accept", content: { ...name, email: "not-an-email" } },
      'field "email" expected an email address',
      everythingForm,
    ],
    [
      "an email with two @",
      { action: "accept", content: { ...name, email: "a@b@example.com" } },
      'field "email" expected an email address',
      everythingForm,
    ],
    [
      "an email with a display name",
      { action: "accept", content: { ...name, email: "Ada <ada@example.com>" } },
      'field "email" expected an email address',
      everythingForm,
    ],
    [
      "an email without a dot in the domain",
      { action: "accept", content: { ...name, email: "ada@localhost" } },
      'field "email" expected an email address',
      everythingForm,
    ],
    [
      "an email with a double dot",
      { action: "accept", content: { ...name, email: "ada..l@example.com" } },
      'field "email" expected an email address',
      everythingForm,
    ],
    [
      "a relative uri",
      { action: "accept", content: { ...name, homepage: "example.com/ada" } },
      'field "homepage" expected an absolute URI with a scheme',
      everythingForm,
    ],
    [
      "a uri with a space",
      { action: "accept", content: { ...name, homepage: "https://example.com/a b" } },
      'field "homepage" expected an absolute URI with a scheme',
      everythingForm,
    ],
    [
      "a uri with a bad escape",
      { action: "accept", content: { ...name, homepage: "https://example.com/%zz" } },
      'field "homepage" expected an absolute URI with a scheme',
      everythingForm,
    ],
    [
      "a uri with non-ASCII",
      { action: "accept", content: { ...name, homepage: "https://example.com/€" } },
      'field "homepage" expected an absolute URI with a scheme',
      everythingForm,
    ],
    [
      "February 29 of a common year",
      { action: "accept", content: { ...name, birthdate: "2023-02-29" } },
      'field "birthdate" expected a calendar date (YYYY-MM-DD)',
      everythingForm,
    ],
    [
      "month 13",
      { action: "accept", content: { ...name, birthdate: "2024-13-01" } },
      'field "birthdate" expected a calendar date (YYYY-MM-DD)',
      everythingForm,
    ],
    [
      "April 31",
      { action: "accept", content: { ...name, birthdate: "2024-04-31" } },
      'field "birthdate" expected a calendar date (YYYY-MM-DD)',
      everythingForm,
    ],
    [
      "a date without zero padding",
      { action: "accept", content: { ...name, birthdate: "2024-1-1" } },
      'field "birthdate" expected a calendar date (YYYY-MM-DD)',
      everythingForm,
    ],
    [
      "a date with a time",
      { action: "accept", content: { ...name, birthdate: "2024-01-01T00:00:00Z" } },
      'field "birthdate" expected a calendar date (YYYY-MM-DD)',
      everythingForm,
    ],
    [
      "an integer with a fraction",
      { action: "accept", content: { ...name, integer: 3.5 } },
      'field "integer" expected an integer, received a number with a fraction',
      everythingForm,
    ],
    [
      "an integer given as a string",
      { action: "accept", content: { ...name, integer: "42" } },
      'field "integer" expected an integer, received a string',
      everythingForm,
    ],
    [
      "an integer below its minimum",
      { action: "accept", content: { ...name, integer: 0 } },
      'field "integer" expected at least 1',
      everythingForm,
    ],
    [
      "an integer above its maximum",
      { action: "accept", content: { ...name, integer: 101 } },
      'field "integer" expected at most 100',
      everythingForm,
    ],
    [
      "NaN",
      { action: "accept", content: { ...name, number: Number.NaN } },
      'field "number" expected a finite number',
      everythingForm,
    ],
    [
      "Infinity",
      { action: "accept", content: { ...name, number: Number.POSITIVE_INFINITY } },
      'field "number" expected a finite number',
      everythingForm,
    ],
    [
      "a number below its minimum",
      { action: "accept", content: { ...name, number: -0.5 } },
      'field "number" expected at least 0',
      everythingForm,
    ],
    [
      "a number given as a boolean",
      { action: "accept", content: { ...name, number: true } },
      'field "number" expected a number, received a boolean',
      everythingForm,
    ],
    [
      "a boolean given as a string",
      { action: "accept", content: { ...name, check: "yes" } },
      'field "check" expected a boolean, received a string',
      everythingForm,
    ],
    [
      "a value outside an untitled enum",
      { action: "accept", content: { ...name, untitledSingleSelectEnum: "Gunther" } },
      'field "untitledSingleSelectEnum" expected one of the 6 allowed values',
      everythingForm,
    ],
    [
      "a title instead of a titled enum's value",
      { action: "accept", content: { ...name, titledSingleSelectEnum: "Superman" } },
      'field "titledSingleSelectEnum" expected one of the 3 allowed values',
      everythingForm,
    ],
    [
      "a legacy enum name instead of its value",
      { action: "accept", content: { ...name, legacyTitledEnum: "Cats" } },
      'field "legacyTitledEnum" expected one of the 5 allowed values',
      everythingForm,
    ],
    [
      "an enum given as an array",
      { action: "accept", content: { ...name, legacyTitledEnum: ["pet-1"] } },
      'field "legacyTitledEnum" expected a string, received an array',
      everythingForm,
    ],
    [
      "too few selected values",
      { action: "accept", content: { ...name, untitledMultipleSelectEnum: [] } },
      'field "untitledMultipleSelectEnum" expected at least 1 selected values, received 0',
      everythingForm,
    ],
    [
      "too many selected values",
      {
        action: "accept",
        content: { ...name, untitledMultipleSelectEnum: ["Guitar", "Piano", "Violin", "Drums"] },
      },
      'field "untitledMultipleSelectEnum" expected at most 3 selected values, received 4',
      everythingForm,
    ],
    [
      "a repeated selected value",
      { action: "accept", content: { ...name, untitledMultipleSelectEnum: ["Guitar", "Guitar"] } },
      'field "untitledMultipleSelectEnum" expected unique values, received a repeated value at index 1',
      everythingForm,
    ],
    [
      "a multi-select given as a string",
      { action: "accept", content: { ...name, untitledMultipleSelectEnum: "Guitar" } },
      'field "untitledMultipleSelectEnum" expected an array of strings, received a string',
      everythingForm,
    ],
    [
      "a title instead of a titled multi-select value",
      { action: "accept", content: { ...name, titledMultipleSelectEnum: ["Tuna"] } },
      'field "titledMultipleSelectEnum" expected only allowed values, received another value at index 0',
      everythingForm,
    ],
    [
      "a number in a multi-select",
      { action: "accept", content: { ...name, titledMultipleSelectEnum: ["fish-1", 2] } },
      'field "titledMultipleSelectEnum" expected an array of strings, received a number at index 1',
      everythingForm,
    ],
    [
      "a string shorter than minLength in code points",
      { action: "accept", content: { code: "😀" } },
      'field "code" expected at least 2 characters',
      strictForm,
    ],
    [
      "a string longer than maxLength",
      { action: "accept", content: { code: "abcd" } },
      'field "code" expected at most 3 characters',
      strictForm,
    ],
    [
      "a lone surrogate",
      { action: "accept", content: { code: "a\ud800" } },
      'field "code" expected well-formed Unicode text, received a lone surrogate',
      strictForm,
    ],
    [
      "a date-time without an offset",
      { action: "accept", content: { when: "2024-01-01T10:00:00" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a date-time with a space separator",
      { action: "accept", content: { when: "2024-01-01 10:00:00Z" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a date-time at hour 24",
      { action: "accept", content: { when: "2024-01-01T24:00:00Z" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a leap second that is not 23:59:60 UTC",
      { action: "accept", content: { when: "2024-01-01T10:00:60Z" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a date-time with an empty fraction",
      { action: "accept", content: { when: "2024-01-01T10:00:00.Z" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a date-time with a bad offset",
      { action: "accept", content: { when: "2024-01-01T10:00:00+24:00" } },
      'field "when" expected an RFC 3339 date-time with a time zone offset',
      strictForm,
    ],
    [
      "a uri with only a scheme-like prefix",
      { action: "accept", content: { site: "1http://x" } },
      'field "site" expected an absolute URI with a scheme',
      strictForm,
    ],
    [
      "an email with a bidi override",
      { action: "accept", content: { mail: "ada\u202e@example.com" } },
      'field "mail" expected an email address',
      strictForm,
    ],
    [
      "a value outside a long enum",
      { action: "accept", content: { pick: "v20" } },
      'field "pick" expected one of the 20 allowed values',
      strictForm,
    ],
    [
      "a repeat in a long multi-select",
      { action: "accept", content: { picks: ["v0", "v1", "v0"] } },
      'field "picks" expected unique values, received a repeated value at index 2',
      strictForm,
    ],
  ];

  test("has at least 30 broken answers", () => {
    assert.ok(cases.length >= 30, `${cases.length} cases`);
  });

  for (const [what, answer, reason, request] of cases) {
    test(`refuses ${what}`, () => {
      same(checkElicitAnswer(answer, request), refused(reason));
    });
  }

  test("refuses content whose getter throws, without throwing", () => {
    const content = {
      name: "Ada",
      get email(): string {
        throw new Error("boom");
      },
    };
    same(
      checkElicitAnswer({ action: "accept", content }, everythingForm),
      refused("expected plain JSON, reading it threw Error"),
    );
  });

  test("never echoes the user's value in a refusal", () => {
    const verdict = checkElicitAnswer({
      action: "accept",
      content: { name: "Ada", email: "hunter2-correct-horse" },
    }, everythingForm);
    same(verdict, refused('field "email" expected an email address'));
    assert.equal(JSON.stringify(verdict).includes("hunter2"), false);
  });
});
