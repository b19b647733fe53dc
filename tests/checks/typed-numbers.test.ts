// What a person types in a number field (the command line, the playground): the number when a
// number holds the digits as typed, else the text, which the answer check refuses. A handler's or
// a caller's answer of digits in a string is a string, whatever its digits.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isInexactNumber, numberFromText, valueProblem } from "../../src/checks/form/field-value.ts";

describe("numberFromText()", () => {
  test("reads decimal numbers a number holds as typed, in any notation, and keeps the rest as text", () => {
    const read = (text: string) => numberFromText(text);
    assert.deepEqual(
      ["42", " -1.5 ", ".5", "05", "1.50", "+5", "1e3", "1e21", "1e23", "0.1", "9007199254740991", "-0.000"]
        .map(read),
      [42, -1.5, 0.5, 5, 1.5, 5, 1000, 1e21, 1e23, 0.1, 9007199254740991, -0],
    );
    // Sent as a number, each would carry other digits than typed.
    const inexact = [
      "12345678901234567890",
      "12345678901234567890e0",
      "1.2345678901234567890e19",
      "9007199254740993e0",
      "9007199254740990.9",
      "1.0000000000000001",
      "0.30000000000000001",
    ];
    assert.deepEqual(inexact.map(read), inexact);
    assert.deepEqual(inexact.map(isInexactNumber), inexact.map(() => true));
    assert.deepEqual(["thirty", "1e400", "0x10", ""].map(read), ["thirty", Infinity, "0x10", ""]);
    assert.deepEqual(["thirty", "1e400", "42"].map(isInexactNumber), [false, false, false]);
  });

  test("the answer check refuses digits in a string as a string, from wherever they come", () => {
    const id = {
      name: "id",
      required: true,
      kind: "number",
      integer: true,
      minimum: undefined,
      maximum: 150,
      default: undefined,
    } as const;
    assert.deepEqual(
      ["12345678901234567890", "150"].map((value) => valueProblem(id, value)),
      ["expected an integer, received a string", "expected an integer, received a string"],
    );
  });
});
