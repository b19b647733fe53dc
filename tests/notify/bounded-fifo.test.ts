import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BoundedFifo } from "../../src/notify/_bounded-fifo.ts";

describe("BoundedFifo", () => {
  test("BoundedFifo keeps order across growth and wrap-around, and refuses past its capacity", () => {
    const fifo = new BoundedFifo<number>(20);
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 7; i++) fifo.push(next++);
      for (let i = 0; i < 3; i++) out.push(fifo.shift() as number);
    }
    for (let i = 0; i < 4; i++) fifo.push(next++);
    assert.equal(fifo.size, 20);
    assert.equal(fifo.push(99), false);
    while (fifo.size > 0) out.push(fifo.shift() as number);
    assert.deepEqual(out, Array.from({ length: 32 }, (_, i) => i));
    assert.equal(fifo.shift(), undefined);
  });

  test("BoundedFifo.clear() empties it, and it works again afterwards", () => {
    const fifo = new BoundedFifo<string>(2);
    fifo.push("a");
    fifo.clear();
    assert.deepEqual([fifo.size, fifo.push("b"), fifo.push("c"), fifo.push("d"), fifo.shift()], [
      0,
      true,
      true,
      false,
      "b",
    ]);
  });
});
