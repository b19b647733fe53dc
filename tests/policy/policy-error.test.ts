import { test } from "node:test";
import assert from "node:assert/strict";
import { describeProblem, type PolicyProblem } from "../../src/policy/policy-error.ts";

const parse = (line: number, column: number, lineText: string): PolicyProblem => ({
  source: "policies/a.policy.json",
  server: undefined,
  path: "",
  message: "the file does not parse: x",
  position: { line, column, lineText },
});

test("describeProblem() writes one line without a position, and file:line:column, the line and a caret with one", () => {
  assert.deepEqual(
    [
      describeProblem({
        source: "policies/a.policy.ts",
        server: "a",
        path: "era",
        message: '"era" is wrong',
      }),
      describeProblem(parse(12, 5, "  {,")),
      describeProblem(parse(3, 3, "\t\t]")),
      describeProblem(parse(1, 1, "")),
    ],
    [
      'policies/a.policy.ts: Policy "a": "era" is wrong',
      "policies/a.policy.json:12:5: Policy: the file does not parse: x\n  12 |   {,\n     |     ^",
      "policies/a.policy.json:3:3: Policy: the file does not parse: x\n  3 | \t\t]\n    | \t\t^",
      "policies/a.policy.json:1:1: Policy: the file does not parse: x\n  1 | \n    | ^",
    ],
  );
});

test("describeProblem() shows 100 characters of a long line around the column", () => {
  const line = `${"a".repeat(200)}}${"b".repeat(200)}`;
  const [, shown, caret] = describeProblem(parse(1, 201, line)).split("\n");
  assert.deepEqual([shown, caret], [
    `  1 | ...${"a".repeat(50)}}${"b".repeat(49)}...`,
    `    | ${" ".repeat(53)}^`,
  ]);
});

test("describeProblem() shows a control or invisible character of the line as ?, one a code unit, the caret in place", () => {
  const [, shown, caret] = describeProblem(parse(1, 9, '"u":"\x1b[2J\u202e\u{e0041}x"')).split("\n");
  assert.deepEqual([shown, caret], ['  1 | "u":"?[2J???x"', "    |         ^"]);
});
