// droppingBehind: lines go out while the stream holds at most MAX_LINE_BACKLOG bytes unwritten;
// past it they are dropped, and their count told before the next line written, or when asked.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { droppingBehind, MAX_LINE_BACKLOG, queuedWrites } from "../../src/_internal/line-backlog.ts";

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

describe("queuedWrites()", () => {
  test("writes in order through one write at a time, what queued meanwhile in one batch, the rest of a short write again, and counts the bytes until written", async () => {
    const calls: string[] = [];
    const answers: ((count: number) => void)[] = [];
    let called = (): void => {};
    const sink = queuedWrites((bytes) => {
      calls.push(new TextDecoder().decode(bytes));
      called();
      return new Promise((resolve) => answers.push(resolve));
    });
    /** Answers the write that is out with `count`, and waits for the next one, if any. */
    const answer = (count: number) => {
      const next = new Promise<void>((resolve) => (called = resolve));
      answers.shift()?.(count);
      return next;
    };
    const backlogs = [sink.backlog()];
    sink.write("a\n");
    sink.write("bé\n");
    sink.write("c\n");
    backlogs.push(sink.backlog());
    // "a\n" is out; the two lines after it wait for it, then go out together; 3 of their 6 bytes
    // are taken, and the other 3 go out next.
    await answer(2);
    backlogs.push(sink.backlog());
    await answer(3);
    backlogs.push(sink.backlog());
    const flushed = sink.flushed().then(() => sink.backlog());
    answers.shift()?.(3);
    assert.deepEqual(
      [calls, backlogs, await flushed],
      [["a\n", "bé\nc\n", "\nc\n"], [0, 8, 6, 6], 0],
    );
  });

  test("a write that rejects ends the writes: what was queued is let go, and later lines are not queued", async () => {
    const calls: string[] = [];
    const sink = queuedWrites((bytes) => {
      calls.push(new TextDecoder().decode(bytes));
      return Promise.reject(new Error("EPIPE"));
    });
    sink.write("a\n");
    sink.write("b\n");
    await sink.flushed();
    sink.write("c\n");
    await sink.flushed();
    assert.deepEqual([calls, sink.backlog()], [["a\n"], 0]);
  });
});
