import { test } from "node:test";
import assert from "node:assert/strict";
import { findJsonSyntaxError } from "../../src/cli/_json-syntax-error.ts";

test("findJsonSyntaxError() finds nothing wrong in JSON, deep nesting included", () => {
  const texts = [
    '{"a": [1, -2.5e+3, true, false, null, "x\\n\\u00e9"], "b": {}}',
    " [ ] ",
    '"only a string"',
    `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
  ];
  assert.deepEqual(texts.map((text) => findJsonSyntaxError(text)), [
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test("findJsonSyntaxError() names the offset, what it found and what JSON expects there", () => {
  const cases = [
    "",
    '{"a": 1,}',
    "[1, 2,]",
    "{ not json",
    "{'a': 1}",
    '{"a" 1}',
    '{"a": 1 "b": 2}',
    '{"a": 01}',
    '{"a": .5}',
    '{"a": "line\nbreak"}',
    '{"a": "tab\there"}',
    '{"a": "\\x"}',
    '{"a": "open',
    "[1] // note",
    '{"a": undefined}',
    "[1",
  ];
  assert.deepEqual(cases.map((text) => findJsonSyntaxError(text)), [
    { offset: 0, what: "unexpected end of file, expected a value" },
    {
      offset: 8,
      what:
        'unexpected "}", expected a property name in double quotes (JSON allows no comma after the last item)',
    },
    { offset: 6, what: 'unexpected "]", expected a value (JSON allows no comma after the last item)' },
    { offset: 2, what: 'unexpected "not", expected a property name in double quotes or "}"' },
    {
      offset: 1,
      what:
        'unexpected "\'", expected a property name in double quotes or "}" (JSON strings and names take double quotes)',
    },
    { offset: 5, what: 'unexpected "1", expected ":" after the property name' },
    { offset: 8, what: 'unexpected string "b", expected "," or "}"' },
    { offset: 7, what: 'unexpected "1", expected "," or "}"' },
    { offset: 6, what: 'unexpected ".", expected a value' },
    { offset: 11, what: "unexpected line break in a string, expected a closing double quote" },
    { offset: 10, what: "unexpected control character U+0009 in a string, expected it escaped" },
    {
      offset: 7,
      what: 'invalid escape "\\\\x" in a string, expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX',
    },
    { offset: 6, what: "unterminated string, expected a closing double quote" },
    {
      offset: 4,
      what: 'unexpected "/", expected the end of the file after the value (JSON allows no comments)',
    },
    { offset: 6, what: 'unexpected "undefined", expected a value' },
    { offset: 2, what: 'unexpected end of file, expected "," or "]"' },
  ]);
});

test("findJsonSyntaxError() with duplicates finds a name given twice in one object, whatever its escapes, and only there", () => {
  const repeated = (text: string) => findJsonSyntaxError(text, { duplicates: true });
  const twice = (name: string) =>
    `property name ${
      JSON.stringify(name)
    } given twice in one object, expected each once (JSON.parse keeps only the last)`;
  assert.deepEqual(
    [
      '{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}',
      '{"a": {}, "b": [], "c": {"d": {}}, "e": 1}',
      '{"sampling": {"maxTokens": 100}, "sampling": {"context": true}}',
      '{"a": {"x": 1, "y": {"x": 2}, "x": 3}}',
      '{"\\u0061": 1, "a": 2}',
    ].map(repeated),
    [
      undefined,
      undefined,
      { offset: 33, what: twice("sampling") },
      { offset: 30, what: twice("x") },
      { offset: 14, what: twice("a") },
    ],
  );
  // Without the option, such a text is JSON.
  assert.equal(findJsonSyntaxError('{"a": 1, "a": 2}'), undefined);
});
