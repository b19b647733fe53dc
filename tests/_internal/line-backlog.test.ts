// droppingBehind: lines go out while the stream holds at most MAX_LINE_BACKLOG bytes unwritten;
// past it they are dropped, and their count told before the next line written, or when asked.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { droppingBehind, MAX_LINE_BACKLOG } from "../../src/_internal/line-backlog.ts";

describe("droppingBehind()", () => {
  test("drops lines while the stream holds more than MAX_LINE_BACKLOG, and tells their count once, before the next line it writes", () => {
    const said: unknown[] = [];
    let held = 0;
    const lines = droppingBehind(
      { write: (text: string) => void (held += text.length, said.push(text)), backlog: () => held },
      (count) => void said.push(count),
    );
    lines.write("a\n", 1);
    held = MAX_LINE_BACKLOG;
    lines.write("b\n", 1);
    held = MAX_LINE_BACKLOG + 1;
    lines.write("c\nd\n", 2);
    lines.write("e\n", 1);
    lines.sayDropped();
    lines.write("f\n", 1);
    held = 0;
    lines.write("g\n", 1);
    lines.sayDropped();
    assert.deepEqual(said, ["a\n", "b\n", 3, 1, "g\n"]);
  });
});
