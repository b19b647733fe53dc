import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assertRate, type Rate, type TakeResult, TokenBucket } from "../../src/limits/token-bucket.ts";

const allowed = (remaining: number): TakeResult => ({ allowed: true, remaining, retryAfterMs: 0 });
const refused = (retryAfterMs: number): TakeResult => ({ allowed: false, remaining: 0, retryAfterMs });

/** Takes `count` times, spread evenly from `from` to `to` ms inclusive; returns how many were allowed. */
function flood(bucket: TokenBucket, count: number, from: number, to: number): number {
  let allowedCount = 0;
  for (let i = 0; i < count; i++) {
    if (bucket.take(from + (i * (to - from)) / (count - 1)).allowed) allowedCount++;
  }
  return allowedCount;
}

describe("TokenBucket", () => {
  test("TokenBucket starts full: burst 3 allows 3 with remaining 2, 1, 0, then refuses", () => {
    const bucket = new TokenBucket({ rate: 1, perMs: 1000, burst: 3 }, 0);
    assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)], [
      allowed(2),
      allowed(1),
      allowed(0),
      refused(1000),
    ]);
  });

  test("TokenBucket.take() at 10/s gives retryAfterMs 100, then 1 after 99 ms, then allows at 100 ms", () => {
    const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 1 }, 0);
    assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(99), bucket.take(100), bucket.take(100)], [
      allowed(0),
      refused(100),
      refused(1),
      allowed(0),
      refused(100),
    ]);
  });

  test("TokenBucket refills continuously: 250 ms at 10/s gives 2 whole tokens, then retryAfterMs 50", () => {
    const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 5 }, 0);
    for (let i = 0; i < 5; i++) bucket.take(0);
    assert.deepEqual([bucket.take(250), bucket.take(250), bucket.take(250)], [
      allowed(1),
      allowed(0),
      refused(50),
    ]);
  });

  test("TokenBucket refills to exactly burst and no further", () => {
    const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 20 }, 0);
    for (let i = 0; i < 20; i++) bucket.take(0);
    const results = Array.from({ length: 21 }, () => bucket.take(3_600_000));
    assert.deepEqual(results.slice(0, 2), [allowed(19), allowed(18)]);
    assert.deepEqual(results.slice(19), [allowed(0), refused(100)]);
  });

  test("TokenBucket counts 1 token per 3 ms exactly at rate 1000 per 3000 ms", () => {
    const bucket = new TokenBucket({ rate: 1000, perMs: 3000, burst: 1 }, 0);
    assert.deepEqual([bucket.take(0), bucket.take(2), bucket.take(3), bucket.take(5)], [
      allowed(0),
      refused(1),
      allowed(0),
      refused(1),
    ]);
  });

  test("TokenBucket floors a fractional now: 99.9 ms at 10/s is still 99 ms", () => {
    const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 1 }, 0.7);
    assert.deepEqual([bucket.take(0.7), bucket.take(99.9), bucket.take(100.2)], [
      allowed(0),
      refused(1),
      allowed(0),
    ]);
  });

  test("TokenBucket refills nothing while the clock goes backwards", () => {
    const bucket = new TokenBucket({ rate: 1, perMs: 1000, burst: 1 }, 5000);
    assert.deepEqual([bucket.take(5000), bucket.take(1000), bucket.take(5999), bucket.take(6000)], [
      allowed(0),
      refused(1000),
      refused(1),
      allowed(0),
    ]);
  });

  test("TokenBucket stays exact after a huge idle time with a huge rule", () => {
    const rate: Rate = { rate: 9_000_000_000, perMs: 1_000_000, burst: 9_000_000_000 };
    const bucket = new TokenBucket(rate, 0);
    bucket.take(0);
    assert.deepEqual(bucket.take(Number.MAX_SAFE_INTEGER), allowed(8_999_999_999));
  });

  test("TokenBucket: 100 000 takes over exactly 1000 ms at 50/s, burst 100, allow exactly 150", () => {
    const bucket = new TokenBucket({ rate: 50, perMs: 1000, burst: 100 }, 0);
    assert.equal(flood(bucket, 100_000, 0, 1000), 150);
  });

  test("TokenBucket: 100 000 takes over exactly 1000 ms at 10/s, burst 20, allow exactly 30", () => {
    const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 20 }, 0);
    assert.equal(flood(bucket, 100_000, 0, 1000), 30);
  });

  test("TokenBucket: 100 000 takes over 999.99 ms at 50/s, burst 100, allow exactly 149", () => {
    const bucket = new TokenBucket({ rate: 50, perMs: 1000, burst: 100 }, 0);
    assert.equal(flood(bucket, 100_000, 0, 999.99), 149);
  });

  test("TokenBucket: a second of flood after a full refill allows burst + rate again", () => {
    const bucket = new TokenBucket({ rate: 50, perMs: 1000, burst: 100 }, 0);
    assert.deepEqual([flood(bucket, 100_000, 0, 1000), flood(bucket, 100_000, 10_000, 11_000)], [150, 150]);
  });
});

describe("assertRate()", () => {
  test("assertRate() accepts { rate: 10, perMs: 1000, burst: 20 }", () => {
    assert.equal(assertRate({ rate: 10, perMs: 1000, burst: 20 }), undefined);
  });

  test("assertRate() refuses rate 0 naming the field", () => {
    assert.throws(() => assertRate({ rate: 0, perMs: 1000, burst: 20 }), {
      name: "RangeError",
      message: 'Rate limit "rate" must be a positive safe integer, received "0"',
    });
  });

  test("assertRate() refuses a fractional perMs", () => {
    assert.throws(() => assertRate({ rate: 1, perMs: 1.5, burst: 20 }), {
      name: "RangeError",
      message: 'Rate limit "perMs" must be a positive safe integer, received "1.5"',
    });
  });

  test("assertRate() refuses a string burst and NaN", () => {
    assert.throws(() => assertRate({ rate: 1, perMs: 1000, burst: "20" as unknown as number }), {
      message: 'Rate limit "burst" must be a positive safe integer, received "20"',
    });
    assert.throws(() => assertRate({ rate: Number.NaN, perMs: 1000, burst: 20 }), {
      message: 'Rate limit "rate" must be a positive safe integer, received "NaN"',
    });
  });

  test("assertRate() refuses a capacity beyond a safe integer", () => {
    assert.throws(() => assertRate({ rate: 1, perMs: 2 ** 30, burst: 2 ** 30 }), {
      name: "RangeError",
      message:
        'Rate limit "burst" × "perMs" must be at most "9007199254740991", received "1152921504606847000"',
    });
  });

  test("new TokenBucket() checks its rule", () => {
    assert.throws(() => new TokenBucket({ rate: 1, perMs: -5, burst: 1 }, 0), {
      message: 'Rate limit "perMs" must be a positive safe integer, received "-5"',
    });
  });
});
