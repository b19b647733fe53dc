import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { np, same } from "../_support/exact.ts";
import { createElicitationFormCheck, type FieldShape } from "../../src/checks/elicitation-form.ts";
import everything from "../fixtures/server-everything-elicitation-schema.json" with { type: "json" };

const forms = createElicitationFormCheck();

const no = { sensitiveSuspected: false };
const yes = { sensitiveSuspected: true };

describe("createElicitationFormCheck() on the server-everything form", () => {
  test("accepts the 13-field schema of trigger-elicitation-request, with no field suspected", () => {
    const verdict = forms.check(everything);
    same(verdict, {
      ok: true,
      value: {
        shape: { fields: EVERYTHING_FIELDS },
        fields: np({
          name: no,
          check: no,
          firstLine: no,
          email: no,
          homepage: no,
          birthdate: no,
          integer: no,
          number: no,
          untitledSingleSelectEnum: no,
          untitledMultipleSelectEnum: no,
          titledSingleSelectEnum: no,
          titledMultipleSelectEnum: no,
          legacyTitledEnum: no,
        }),
      },
    });
  });

  test("freezes the shape and its fields, and shares no array with the schema", () => {
    const schema = structuredClone(everything);
    const verdict = forms.check(schema);
    assert.equal(verdict.ok, true);
    if (!verdict.ok) return;
    const { shape } = verdict.value;
    assert.equal(Object.isFrozen(shape), true);
    for (const field of shape.fields) {
      assert.equal(Object.isFrozen(field), true, field.name);
    }
    const multi = shape.fields.find((field) => field.name === "untitledMultipleSelectEnum");
    assert.ok(multi?.kind === "multi");
    assert.notEqual(multi.values, schema.properties.untitledMultipleSelectEnum.items.enum);
    assert.notEqual(multi.default, schema.properties.untitledMultipleSelectEnum.default);
    assert.equal(Object.getPrototypeOf(verdict.value.fields), null);
  });

  test("never modifies the schema", () => {
    const schema = structuredClone(everything);
    forms.check(schema);
    same(schema, everything);
  });
});

const EVERYTHING_FIELDS: readonly FieldShape[] = [
  {
    name: "name",
    required: true,
    kind: "string",
    minLength: undefined,
    maxLength: undefined,
    format: undefined,
    default: undefined,
  },
  { name: "check", required: false, kind: "boolean", default: undefined },
  {
    name: "firstLine",
    required: false,
    kind: "string",
    minLength: undefined,
    maxLength: undefined,
    format: undefined,
    default: "It was a dark and stormy night.",
  },
  {
    name: "email",
    required: false,
    kind: "string",
    minLength: undefined,
    maxLength: undefined,
    format: "email",
    default: undefined,
  },
  {
    name: "homepage",
    required: false,
    kind: "string",
    minLength: undefined,
    maxLength: undefined,
    format: "uri",
    default: undefined,
  },
  {
    name: "birthdate",
    required: false,
    kind: "string",
    minLength: undefined,
    maxLength: undefined,
    format: "date",
    default: undefined,
  },
  { name: "integer", required: false, kind: "number", integer: true, minimum: 1, maximum: 100, default: 42 },
  {
    name: "number",
    required: false,
    kind: "number",
    integer: false,
    minimum: 0,
    maximum: 1000,
    default: 3.14,
  },
  {
    name: "untitledSingleSelectEnum",
    required: false,
    kind: "enum",
    values: ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
    default: "Monica",
  },
  {
    name: "untitledMultipleSelectEnum",
    required: false,
    kind: "multi",
    values: ["Guitar", "Piano", "Violin", "Drums", "Bass"],
    minItems: 1,
    maxItems: 3,
    default: ["Guitar"],
  },
  {
    name: "titledSingleSelectEnum",
    required: false,
    kind: "enum",
    values: ["hero-1", "hero-2", "hero-3"],
    default: "hero-1",
  },
  {
    name: "titledMultipleSelectEnum",
    required: false,
    kind: "multi",
    values: ["fish-1", "fish-2", "fish-3"],
    minItems: 1,
    maxItems: 3,
    default: ["fish-1"],
  },
  {
    name: "legacyTitledEnum",
    required: false,
    kind: "enum",
    values: ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
    default: "pet-1",
  },
];

describe("createElicitationFormCheck() accepted shapes", () => {
  test("accepts an empty form", () => {
    same(forms.check({ type: "object", properties: {} }), {
      ok: true,
      value: { shape: { fields: [] }, fields: np({}) },
    });
  });

  test("accepts $schema, a root title and description, and additionalProperties: false", () => {
    const verdict = forms.check({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      title: "Sign-up",
      description: "Tell us about you",
      additionalProperties: false,
      properties: { ok: { type: "boolean", default: false } },
    });
    same(verdict, {
      ok: true,
      value: {
        shape: { fields: [{ name: "ok", required: false, kind: "boolean", default: false }] },
        fields: np({ ok: no }),
      },
    });
  });

  test("treats __proto__ and constructor as ordinary property names", () => {
    const oddNames: Record<string, unknown> = Object.create(null);
    oddNames["__proto__"] = no;
    oddNames["constructor"] = no;
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__"]}',
    );
    const verdict = forms.check(schema);
    same(verdict, {
      ok: true,
      value: {
        shape: {
          fields: [
            {
              name: "__proto__",
              required: true,
              kind: "string",
              minLength: undefined,
              maxLength: undefined,
              format: undefined,
              default: undefined,
            },
            {
              name: "constructor",
              required: false,
              kind: "number",
              integer: true,
              minimum: undefined,
              maximum: undefined,
              default: undefined,
            },
          ],
        },
        fields: oddNames,
      },
    });
    assert.equal(Object.hasOwn(Object.prototype, "sensitiveSuspected"), false);
  });

  test("accepts enums up to maxEnumValues, and titled multi-select items with type string", () => {
    const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const check = createElicitationFormCheck({ maxEnumValues: 20, maxFields: 2 });
    const verdict = check.check({
      type: "object",
      properties: {
        one: { type: "string", enum: values, default: "v19" },
        many: {
          type: "array",
          items: { type: "string", anyOf: values.map((v) => ({ const: v, title: v.toUpperCase() })) },
        },
      },
    });
    same(verdict, {
      ok: true,
      value: {
        shape: {
          fields: [
            { name: "one", required: false, kind: "enum", values, default: "v19" },
            {
              name: "many",
              required: false,
              kind: "multi",
              values,
              minItems: undefined,
              maxItems: undefined,
              default: undefined,
            },
          ],
        },
        fields: np({ one: no, many: no }),
      },
    });
  });

  test("accepts defaults that fit every format", () => {
    const verdict = forms.check({
      type: "object",
      properties: {
        mail: { type: "string", format: "email", default: "ada@example.com" },
        site: { type: "string", format: "uri", default: "https://example.com/a?b=c#d" },
        day: { type: "string", format: "date", default: "2024-02-29" },
        when: { type: "string", format: "date-time", default: "2024-02-29T23:59:60.5+00:00" },
        short: { type: "string", minLength: 2, maxLength: 2, default: "😀😀" },
      },
    });
    assert.equal(verdict.ok, true);
  });

  test("accepts bounds some answer meets: minItems equal to the options, one integer in range, a fractional number range", () => {
    const verdict = forms.check({
      type: "object",
      properties: {
        both: { type: "array", items: { type: "string", enum: ["x", "y"] }, minItems: 2 },
        one: { type: "integer", minimum: 0.5, maximum: 1 },
        part: { type: "number", minimum: 0.5, maximum: 0.9 },
      },
      required: ["both"],
    });
    same(verdict, {
      ok: true,
      value: {
        shape: {
          fields: [
            {
              name: "both",
              required: true,
              kind: "multi",
              values: ["x", "y"],
              minItems: 2,
              maxItems: undefined,
              default: undefined,
            },
            {
              name: "one",
              required: false,
              kind: "number",
              integer: true,
              minimum: 0.5,
              maximum: 1,
              default: undefined,
            },
            {
              name: "part",
              required: false,
              kind: "number",
              integer: false,
              minimum: 0.5,
              maximum: 0.9,
              default: undefined,
            },
          ],
        },
        fields: np({ both: no, one: no, part: no }),
      },
    });
  });
});

describe("createElicitationFormCheck() refusals", () => {
  const check = createElicitationFormCheck({ maxFields: 3, maxEnumValues: 4 });
  const p = (prop: unknown) => ({ type: "object", properties: { x: prop } });
  const cases: [string, unknown, string][] = [
    ["a root that is an array", [], "expected an object, received an array"],
    ["a root that is a string", "object", 'expected an object, received "object"'],
    ["a root that is null", null, "expected an object, received null"],
    [
      "a root of type array",
      { type: "array", items: {} },
      'keyword "type": expected "object", received "array"',
    ],
    ["a root without type", { properties: {} }, 'keyword "type": expected "object", received nothing'],
    [
      "a root $ref",
      { type: "object", properties: {}, $ref: "#/$defs/x" },
      'keyword "$ref": not supported at the root of a form',
    ],
    [
      "root $defs",
      { type: "object", properties: {}, $defs: {} },
      'keyword "$defs": not supported at the root of a form',
    ],
    [
      "root allOf",
      { type: "object", properties: {}, allOf: [] },
      'keyword "allOf": not supported at the root of a form',
    ],
    [
      "root additionalProperties true",
      { type: "object", properties: {}, additionalProperties: true },
      'keyword "additionalProperties": expected false, received true',
    ],
    [
      "root $schema not a string",
      { type: "object", properties: {}, $schema: 7 },
      'keyword "$schema": expected a string, received 7',
    ],
    ["missing properties", { type: "object" }, 'keyword "properties": expected an object, received nothing'],
    [
      "properties an array",
      { type: "object", properties: [] },
      'keyword "properties": expected an object, received an array',
    ],
    ["too many fields", {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "string" },
        c: { type: "string" },
        d: { type: "string" },
      },
    }, 'keyword "properties": expected at most 3 properties, received 4'],
    [
      "required not an array",
      { type: "object", properties: { a: { type: "string" } }, required: "a" },
      'keyword "required": expected an array of property names, received "a"',
    ],
    ["required naming a missing property", {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["b"],
    }, 'keyword "required": expected names listed in "properties", received "b" at index 0'],
    [
      "required with a non-string",
      { type: "object", properties: { a: { type: "string" } }, required: [1] },
      'keyword "required": expected names listed in "properties", received 1 at index 0',
    ],
    ["required with a duplicate", {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a", "a"],
    }, 'keyword "required": expected unique names, received "a" twice'],
    ["required naming an inherited key", {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["constructor"],
    }, 'keyword "required": expected names listed in "properties", received "constructor" at index 0'],
    [
      "an empty property name",
      { type: "object", properties: { "": { type: "string" } } },
      'property "": expected a non-empty name',
    ],
    [
      "a property that is not an object",
      p("string"),
      'property "x": expected a schema object, received "string"',
    ],
    ["a property that is an array", p([]), 'property "x": expected a schema object, received an array'],
    [
      "a nested object",
      p({ type: "object", properties: { y: { type: "string" } } }),
      'property "x", keyword "type": expected "string", "number", "integer", "boolean" or "array", received "object"',
    ],
    [
      "a $ref property",
      p({ $ref: "#/$defs/x" }),
      'property "x", keyword "$ref": not supported in an elicitation form',
    ],
    [
      "a $ref next to a type",
      p({ type: "string", $ref: "#/$defs/x" }),
      'property "x", keyword "$ref": not supported for a string field',
    ],
    [
      "allOf on a property",
      p({ allOf: [{ type: "string" }] }),
      'property "x", keyword "allOf": not supported in an elicitation form',
    ],
    [
      "anyOf on a string",
      p({ type: "string", anyOf: [{ const: "a", title: "A" }] }),
      'property "x", keyword "anyOf": not supported for a string field',
    ],
    [
      "oneOf on a number",
      p({ type: "number", oneOf: [{ const: 1 }] }),
      'property "x", keyword "oneOf": not supported for a number field',
    ],
    [
      "a type list",
      p({ type: ["string", "null"] }),
      'property "x", keyword "type": expected "string", "number", "integer", "boolean" or "array", received an array',
    ],
    [
      "type null",
      p({ type: "null" }),
      'property "x", keyword "type": expected "string", "number", "integer", "boolean" or "array", received "null"',
    ],
    [
      "an unknown type",
      p({ type: "date" }),
      'property "x", keyword "type": expected "string", "number", "integer", "boolean" or "array", received "date"',
    ],
    [
      "a missing type",
      p({ title: "X" }),
      'property "x", keyword "type": expected "string", "number", "integer", "boolean" or "array", received nothing',
    ],
    [
      "pattern on a string",
      p({ type: "string", pattern: "^a+$" }),
      'property "x", keyword "pattern": not supported for a string field',
    ],
    [
      "an unknown format",
      p({ type: "string", format: "ipv4" }),
      'property "x", keyword "format": expected "email", "uri", "date" or "date-time", received "ipv4"',
    ],
    [
      "a non-string format",
      p({ type: "string", format: 1 }),
      'property "x", keyword "format": expected "email", "uri", "date" or "date-time", received 1',
    ],
    [
      "minLength negative",
      p({ type: "string", minLength: -1 }),
      'property "x", keyword "minLength": expected a non-negative integer, received -1',
    ],
    [
      "minLength fractional",
      p({ type: "string", minLength: 1.5 }),
      'property "x", keyword "minLength": expected a non-negative integer, received 1.5',
    ],
    [
      "maxLength as a string",
      p({ type: "string", maxLength: "10" }),
      'property "x", keyword "maxLength": expected a non-negative integer, received "10"',
    ],
    [
      "minLength above maxLength",
      p({ type: "string", minLength: 5, maxLength: 2 }),
      'property "x", keyword "minLength": expected at most "maxLength" (2), received 5',
    ],
    [
      "minimum as a string",
      p({ type: "number", minimum: "1" }),
      'property "x", keyword "minimum": expected a finite number, received "1"',
    ],
    [
      "maximum not finite",
      p({ type: "integer", maximum: null }),
      'property "x", keyword "maximum": expected a finite number, received null',
    ],
    [
      "minimum above maximum",
      p({ type: "integer", minimum: 10, maximum: 1 }),
      'property "x", keyword "minimum": expected at most "maximum" (1), received 10',
    ],
    [
      "an integer range holding no integer",
      p({ type: "integer", minimum: 0.5, maximum: 0.9 }),
      'property "x", keyword "minimum": expected an integer between it and "maximum" (0.9), received 0.5',
    ],
    [
      "minLength on a number",
      p({ type: "number", minLength: 1 }),
      'property "x", keyword "minLength": not supported for a number field',
    ],
    [
      "minimum on a string",
      p({ type: "string", minimum: 1 }),
      'property "x", keyword "minimum": not supported for a string field',
    ],
    [
      "enum on a number",
      p({ type: "number", enum: [1, 2] }),
      'property "x", keyword "enum": not supported for a number field',
    ],
    [
      "a title that is not a string",
      p({ type: "string", title: 1 }),
      'property "x", keyword "title": expected a string, received 1',
    ],
    [
      "a description that is not a string",
      p({ type: "boolean", description: ["x"] }),
      'property "x", keyword "description": expected a string, received an array',
    ],
    [
      "a string default of the wrong type",
      p({ type: "string", default: 1 }),
      'property "x", keyword "default": expected a string, received a number',
    ],
    [
      "a string default too short",
      p({ type: "string", minLength: 3, default: "ab" }),
      'property "x", keyword "default": expected at least 3 characters',
    ],
    [
      "an email default that is no email",
      p({ type: "string", format: "email", default: "nobody" }),
      'property "x", keyword "default": expected an email address',
    ],
    [
      "a date default that is no calendar date",
      p({ type: "string", format: "date", default: "2023-02-29" }),
      'property "x", keyword "default": expected a calendar date (YYYY-MM-DD)',
    ],
    [
      "an integer default with a fraction",
      p({ type: "integer", default: 1.5 }),
      'property "x", keyword "default": expected an integer, received a number with a fraction',
    ],
    [
      "a number default out of range",
      p({ type: "number", maximum: 10, default: 11 }),
      'property "x", keyword "default": expected at most 10',
    ],
    [
      "a boolean default as a string",
      p({ type: "boolean", default: "true" }),
      'property "x", keyword "default": expected a boolean, received a string',
    ],
    [
      "an enum default outside the enum",
      p({ type: "string", enum: ["a", "b"], default: "c" }),
      'property "x", keyword "default": expected one of the 2 allowed values',
    ],
    [
      "an empty enum",
      p({ type: "string", enum: [] }),
      'property "x", keyword "enum": expected at least one value, received none',
    ],
    [
      "an enum that is not an array",
      p({ type: "string", enum: "a" }),
      'property "x", keyword "enum": expected an array of strings, received "a"',
    ],
    [
      "an enum with a number",
      p({ type: "string", enum: ["a", 1] }),
      'property "x", keyword "enum": expected strings only, received 1 at index 1',
    ],
    [
      "a duplicate enum value",
      p({ type: "string", enum: ["a", "b", "a"] }),
      'property "x", keyword "enum": expected unique values, received "a" twice',
    ],
    [
      "too many enum values",
      p({ type: "string", enum: ["a", "b", "c", "d", "e"] }),
      'property "x", keyword "enum": expected at most 4 values, received 5',
    ],
    [
      "enumNames of the wrong length",
      p({ type: "string", enum: ["a", "b"], enumNames: ["A"] }),
      'property "x", keyword "enumNames": expected 2 names (one per "enum" value), received 1',
    ],
    [
      "enumNames with a number",
      p({ type: "string", enum: ["a", "b"], enumNames: ["A", 2] }),
      'property "x", keyword "enumNames": expected strings only, received 2 at index 1',
    ],
    [
      "oneOf titles that look the same once a zero-width space is removed (Keep my data meaning delete_all)",
      p({
        type: "string",
        oneOf: [{ const: "keep", title: "Keep my data" }, {
          const: "delete_all",
          title: "Keep my data\u200b",
        }],
      }),
      'property "x", keyword "oneOf": expected options a person can tell apart, received two shown as "Keep my data", at indexes 0 and 1',
    ],
    [
      "a oneOf title of a bidi override alone",
      p({ type: "string", oneOf: [{ const: "a", title: "A" }, { const: "b", title: " \u202e " }] }),
      'property "x", keyword "oneOf": expected options a person can tell apart, received one that shows nothing at index 1',
    ],
    [
      "multi-select anyOf titles alike but for spaces around",
      p({
        type: "array",
        items: { anyOf: [{ const: "a", title: "Same" }, { const: "b", title: " Same" }] },
      }),
      'property "x", keyword "items.anyOf": expected options a person can tell apart, received two shown as "Same", at indexes 0 and 1',
    ],
    [
      "untitled enum values alike once a zero-width space is removed",
      p({ type: "string", enum: ["Keep my data", "Keep my data\u200b"] }),
      'property "x", keyword "enum": expected options a person can tell apart, received two shown as "Keep my data", at indexes 0 and 1',
    ],
    [
      "oneOf titles alike but for a no-break space and a doubled space",
      p({
        type: "string",
        oneOf: [{ const: "a", title: "Keep my data" }, { const: "b", title: "Keep\u00a0my  data" }],
      }),
      'property "x", keyword "oneOf": expected options a person can tell apart, received two shown as "Keep my data", at indexes 0 and 1',
    ],
    [
      "oneOf titles alike in NFKC form: a composed and a decomposed é, a full-width K",
      p({
        type: "string",
        oneOf: [
          { const: "a", title: "Keep caf\u00e9" },
          { const: "b", title: "\uff2beep cafe\u0301" },
        ],
      }),
      'property "x", keyword "oneOf": expected options a person can tell apart, received two shown as "Keep caf\u00e9", at indexes 0 and 1',
    ],
    [
      "oneOf titles alike in their first 300 characters",
      p({
        type: "string",
        oneOf: [{ const: "a", title: `${"x".repeat(300)} keep` }, {
          const: "b",
          title: `${"x".repeat(300)} delete`,
        }],
      }),
      // The message quotes 96 characters of it.
      `property "x", keyword "oneOf": expected options a person can tell apart, received two shown as "${
        "x".repeat(96)
      }…", at indexes 0 and 1`,
    ],
    [
      "enumNames alike",
      p({ type: "string", enum: ["a", "b"], enumNames: ["Yes", "Yes\u2060"] }),
      'property "x", keyword "enumNames": expected options a person can tell apart, received two shown as "Yes", at indexes 0 and 1',
    ],
    [
      "enum and oneOf together",
      p({ type: "string", enum: ["a"], oneOf: [{ const: "a", title: "A" }] }),
      'property "x", keyword "oneOf": not supported for a single-select field with "enum"',
    ],
    [
      "minLength on an enum",
      p({ type: "string", enum: ["a"], minLength: 1 }),
      'property "x", keyword "minLength": not supported for a single-select field with "enum"',
    ],
    [
      "oneOf with a missing title",
      p({ type: "string", oneOf: [{ const: "a" }] }),
      'property "x", keyword "oneOf": expected {"const": string, "title": string}, received another shape at index 0',
    ],
    [
      "oneOf with an extra keyword",
      p({ type: "string", oneOf: [{ const: "a", title: "A", description: "x" }] }),
      'property "x", keyword "oneOf": expected {"const": string, "title": string}, received the keyword "description" at index 0',
    ],
    [
      "oneOf with a number const",
      p({ type: "string", oneOf: [{ const: 1, title: "A" }] }),
      'property "x", keyword "oneOf": expected {"const": string, "title": string}, received another shape at index 0',
    ],
    [
      "oneOf with a duplicate const",
      p({ type: "string", oneOf: [{ const: "a", title: "A" }, { const: "a", title: "B" }] }),
      'property "x", keyword "oneOf": expected unique values, received "a" twice',
    ],
    [
      "oneOf entries that are not objects",
      p({ type: "string", oneOf: ["a"] }),
      'property "x", keyword "oneOf": expected {"const": string, "title": string}, received "a" at index 0',
    ],
    [
      "an array of objects",
      p({ type: "array", items: { type: "object", properties: {} } }),
      'property "x", keyword "items.type": expected "string", received "object"',
    ],
    [
      "an array of numbers",
      p({ type: "array", items: { type: "number", enum: [1] } }),
      'property "x", keyword "items.type": expected "string", received "number"',
    ],
    [
      "an array of free strings",
      p({ type: "array", items: { type: "string" } }),
      'property "x", keyword "items.enum": expected an array of strings, received nothing',
    ],
    [
      "an array without items",
      p({ type: "array" }),
      'property "x", keyword "items": expected {"type": "string", "enum": [...]} or {"anyOf": [...]}, received nothing',
    ],
    [
      "array items as a list",
      p({ type: "array", items: [{ type: "string" }] }),
      'property "x", keyword "items": expected {"type": "string", "enum": [...]} or {"anyOf": [...]}, received an array',
    ],
    [
      "array items with an extra keyword",
      p({ type: "array", items: { type: "string", enum: ["a"], minLength: 1 } }),
      'property "x", keyword "items.minLength": not supported in the items of a multi-select field',
    ],
    [
      "titled items with a wrong type",
      p({ type: "array", items: { type: "number", anyOf: [{ const: "a", title: "A" }] } }),
      'property "x", keyword "items.type": expected "string", received "number"',
    ],
    [
      "titled items with an extra keyword",
      p({ type: "array", items: { anyOf: [{ const: "a", title: "A" }], enum: ["a"] } }),
      'property "x", keyword "items.enum": not supported in the items of a multi-select field',
    ],
    [
      "minItems above maxItems",
      p({ type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 2, maxItems: 1 }),
      'property "x", keyword "minItems": expected at most "maxItems" (1), received 2',
    ],
    [
      "minItems above the number of options of a required field",
      { ...p({ type: "array", items: { type: "string", enum: ["x"] }, minItems: 2 }), required: ["x"] },
      'property "x", keyword "minItems": expected at most the number of "items.enum" values (1) for a required field, received 2',
    ],
    [
      "minItems above the number of titled options of a required field",
      {
        ...p({
          type: "array",
          items: { anyOf: [{ const: "a", title: "A" }, { const: "b", title: "B" }] },
          minItems: 3,
        }),
        required: ["x"],
      },
      'property "x", keyword "minItems": expected at most the number of "items.anyOf" values (2) for a required field, received 3',
    ],
    [
      "uniqueItems on an array",
      p({ type: "array", items: { type: "string", enum: ["a"] }, uniqueItems: true }),
      'property "x", keyword "uniqueItems": not supported for a multi-select field',
    ],
    [
      "a multi-select default outside the enum",
      p({ type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["c"] }),
      'property "x", keyword "default": expected only allowed values, received another value at index 0',
    ],
    [
      "a multi-select default with a repeat",
      p({ type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a", "a"] }),
      'property "x", keyword "default": expected unique values, received a repeated value at index 1',
    ],
    [
      "a multi-select default over maxItems",
      p({
        type: "array",
        items: { anyOf: [{ const: "a", title: "A" }, { const: "b", title: "B" }] },
        maxItems: 1,
        default: ["a", "b"],
      }),
      'property "x", keyword "default": expected at most 1 selected values, received 2',
    ],
    [
      "a multi-select default that is a string",
      p({ type: "array", items: { type: "string", enum: ["a"] }, default: "a" }),
      'property "x", keyword "default": expected an array of strings, received a string',
    ],
    [
      "a const property",
      p({ const: "x" }),
      'property "x", keyword "const": not supported in an elicitation form',
    ],
    [
      "an if/then property",
      p({ type: "string", if: {}, then: {} }),
      'property "x", keyword "if": not supported for a string field',
    ],
  ];

  test("has at least 30 refused schemas", () => {
    assert.ok(cases.length >= 30, `${cases.length} cases`);
  });

  for (const [what, schema, reason] of cases) {
    test(`refuses ${what}`, () => {
      same(check.check(schema), {
        ok: false,
        refusal: { code: -32602, message: `Elicitation schema refused: ${reason}` },
      });
    });
  }

  test("refuses a revoked proxy without throwing", () => {
    const { proxy, revoke } = Proxy.revocable({ type: "object", properties: {} }, {});
    revoke();
    same(forms.check(proxy), {
      ok: false,
      refusal: {
        code: -32602,
        message: "Elicitation schema refused: expected plain JSON, reading it threw TypeError",
      },
    });
  });

  test("names an untrusted property in quotes, escaped", () => {
    const schema = { type: "object", properties: { 'a\u202eb"c': { type: "object" } } };
    same(forms.check(schema), {
      ok: false,
      refusal: {
        code: -32602,
        message:
          'Elicitation schema refused: property "a\\u202Eb\\"c", keyword "type": expected "string", "number", "integer", "boolean" or "array", received "object"',
      },
    });
  });
});

describe("createElicitationFormCheck() configuration errors", () => {
  const cases: [string, unknown, string][] = [
    [
      "a zero maxFields",
      { maxFields: 0 },
      'createElicitationFormCheck: "maxFields" must be a positive integer, received 0',
    ],
    [
      "a string maxEnumValues",
      { maxEnumValues: "5" },
      'createElicitationFormCheck: "maxEnumValues" must be a positive integer, received "5"',
    ],
    [
      "an unknown option",
      { maxField: 5 },
      'createElicitationFormCheck: unknown option "maxField", expected one of maxFields, maxEnumValues',
    ],
    [
      "options that are not an object",
      5,
      "createElicitationFormCheck: options must be an object, received 5",
    ],
  ];
  for (const [what, options, message] of cases) {
    test(`throws a TypeError for ${what}`, () => {
      assert.throws(() => createElicitationFormCheck(options as never), { name: "TypeError", message });
    });
  }

  test("returns a frozen checker", () => {
    assert.equal(Object.isFrozen(forms), true);
  });
});

describe("createElicitationFormCheck() sensitiveSuspected", () => {
  function flag(name: string, property: Record<string, unknown> = {}): boolean | undefined {
    const verdict = forms.check({ type: "object", properties: { [name]: { type: "string", ...property } } });
    assert.equal(verdict.ok, true, verdict.ok ? "" : verdict.refusal.message);
    return verdict.ok ? verdict.value.fields[name]?.sensitiveSuspected : undefined;
  }

  const suspectedNames = [
    "password",
    "Password",
    "user_password",
    "userPassword",
    "new-password",
    "PASSWORD_CONFIRM",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "pin",
    "pinCode",
    "pin_number",
    "PIN",
    "secret",
    "clientSecret",
    "client_secret",
    "token",
    "accessToken",
    "refresh-token",
    "apiKey",
    "API_KEY",
    "api-key",
    "APIKey",
    "x-api-key",
    "apikey",
    "accessKey",
    "aws_access_key_id",
    "privateKey",
    "secretKey",
    "jwt",
    "idJWT",
    "mnemonic",
    "signingKey",
    "credentials",
    "creditCard",
    "credit_card_number",
    "cardNumber",
    "CardNumber",
    "cvv",
    "CVV2",
    "cvc",
    "cvv2Code",
    "ssn",
    "socialSecurityNumber",
    "iban",
    "IBAN",
    "bankAccount",
    "accountNumber",
    "routingNumber",
    "sortCode",
    "otp",
    "otpCode",
    "totp",
    "2fa",
    "2FA",
    "mfaCode",
    "oneTimeCode",
    "one_time_password",
    "verificationCode",
    "securityCode",
    "authCode",
    "authorizationCode",
    "recoveryCodes",
    "backupCode",
    "seedPhrase",
    "recovery_phrase",
    "twoFactorCode",
    "password2",
    "Password1",
    "new_password_2",
    "apiKey2",
    "pin1",
  ];
  for (const name of suspectedNames) {
    test(`flags a field named ${name}`, () => assert.equal(flag(name), true));
  }

  const ordinaryNames = [
    "spinner",
    "pinned",
    "spinach",
    "pinnacle",
    "tokenizer_model",
    "tokenizer",
    "maxTokens",
    "tokens",
    "passport",
    "passenger",
    "compass",
    "bypass",
    "secretary",
    "keyboard",
    "monkey",
    "sortKey",
    "primary_key",
    "keyName",
    "accountName",
    "account_id",
    "cardTitle",
    "postalCode",
    "countryCode",
    "zipCode",
    "codeName",
    "oneTimeSetup",
    "timeCode",
    "socialMedia",
    "apiVersion",
    "bankName",
    "phoneNumber",
    "number",
    "name",
    "email",
    "homepage",
    "optional",
    "options",
    "ssnake",
    "cvvv",
    "ibanez",
    "mfaa",
    "passwordless",
    "tokenizer2",
    "tokens2",
  ];
  for (const name of ordinaryNames) {
    test(`does not flag a field named ${name}`, () => assert.equal(flag(name), false));
  }

  test("flags by title or description", () => {
    assert.equal(flag("field1", { title: "Your Password" }), true);
    assert.equal(flag("field2", { title: "Credit card number" }), true);
    assert.equal(flag("field3", { description: "Paste the API key from your dashboard." }), true);
    assert.equal(flag("field4", { description: "The one-time code we texted you" }), true);
    assert.equal(flag("field5", { title: "Social Security Number" }), true);
    assert.equal(flag("field6", { description: "Enter the bank account to debit" }), true);
    // A name-only word counts as a whole title too, and not among other words.
    assert.equal(flag("field7", { title: "PIN" }), true);
    assert.equal(flag("field8", { title: " Mnemonic " }), true);
    for (
      const title of [
        "Map pin location",
        "Pin to top of the board",
        "Mnemonic you use to remember the planets",
      ]
    ) {
      assert.equal(flag("field9", { title }), false, title);
    }
    assert.equal(
      flag("field10", { title: "Favourite cookie", description: "How many boxes of each cookie?" }),
      false,
    );
  });

  test("does not flag a pin mentioned in a description, or ordinary prose", () => {
    assert.equal(
      flag("field1", {
        description: "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
      }),
      false,
    );
    assert.equal(
      flag("field2", { title: "Spinner speed", description: "Pinned tokens per minute for the tokenizer" }),
      false,
    );
    assert.equal(flag("field3", { description: "Account name shown on your card" }), false);
  });

  test("flags free-entry fields only: numbers, plain text and uri text", () => {
    const verdict = forms.check({
      type: "object",
      properties: {
        pin: { type: "integer" },
        cvv: { type: "number" },
        webhookSecretUrl: { type: "string", format: "uri" },
        passwordResetEmail: { type: "string", format: "email" },
        tokenExpiry: { type: "string", format: "date-time" },
        rememberPassword: { type: "boolean" },
        otpMethod: { type: "string", enum: ["sms", "app"] },
        secretQuestions: { type: "array", items: { type: "string", enum: ["pet", "street"] } },
      },
    });
    same(
      verdict.ok && verdict.value.fields,
      np({
        pin: yes,
        cvv: yes,
        webhookSecretUrl: yes,
        passwordResetEmail: no,
        tokenExpiry: no,
        rememberPassword: no,
        otpMethod: no,
        secretQuestions: no,
      }),
    );
  });
});
