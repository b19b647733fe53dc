import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createBudgetCheck } from "../../src/checks/budget.ts";
import { createCapabilityCheck, inputKindOf } from "../../src/checks/capability.ts";
import { createElicitationModeCheck } from "../../src/checks/elicitation-mode.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import { type RateLimitStore, StoreUnavailableError } from "../../src/limits/rate-limit-store.ts";

const fakeClock = (start = 0) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

describe("createBudgetCheck()", () => {
  const rate = { rate: 10, perMs: 1000, burst: 20 };
  const overBudget = (code: number, retry: number) => ({
    ok: false,
    refusal: {
      code,
      message:
        `Input request refused: over the policy's inputRateLimit of 10 per 1000 ms (burst 20); retry in ${retry} ms`,
    },
  });

  test("lets a burst of 20 through, then refuses sampling with the rejection code and others with -32000", () => {
    const clock = fakeClock();
    const budget = createBudgetCheck({
      store: createMemoryStore({ clock }),
      key: "input:a",
      rate,
      failOpen: false,
      samplingCode: -1,
    });
    const verdicts = Array.from({ length: 20 }, () => budget.check("elicitation/create"));
    assert.deepEqual(verdicts, Array.from({ length: 20 }, () => ({ ok: true, value: undefined })));
    assert.deepEqual(budget.check("sampling/createMessage"), overBudget(-1, 100));
    assert.deepEqual(budget.check("elicitation/create"), overBudget(-32000, 100));
    assert.deepEqual(budget.check("roots/list"), overBudget(-32000, 100));
    clock.advance(100);
    assert.deepEqual(budget.check("roots/list"), { ok: true, value: undefined });
    assert.deepEqual(budget.check("roots/list"), overBudget(-32000, 100));
  });

  test("refuses when the store throws or rejects, with the kind's code", async () => {
    const throwing: RateLimitStore = {
      take: () => {
        throw new StoreUnavailableError("test", "down");
      },
    };
    const rejecting: RateLimitStore = {
      take: () => Promise.reject(new StoreUnavailableError("test", "down")),
    };
    const refused = (code: number) => ({
      ok: false,
      refusal: { code, message: "Input request refused: the rate-limit store is unavailable" },
    });
    const a = createBudgetCheck({ store: throwing, key: "k", rate, failOpen: false, samplingCode: -1 });
    const b = createBudgetCheck({ store: rejecting, key: "k", rate, failOpen: false, samplingCode: -1 });
    assert.deepEqual(a.check("sampling/createMessage"), refused(-1));
    assert.deepEqual(await b.check("roots/list"), refused(-32000));
  });

  test("lets requests through a failing store only with rateLimitFailOpen", async () => {
    const rejecting: RateLimitStore = {
      take: () => Promise.reject(new StoreUnavailableError("test", "down")),
    };
    const budget = createBudgetCheck({ store: rejecting, key: "k", rate, failOpen: true, samplingCode: -1 });
    assert.deepEqual(await budget.check("sampling/createMessage"), { ok: true, value: undefined });
  });

  test("resolves an asynchronous store's answer", async () => {
    const store: RateLimitStore = {
      take: () => Promise.resolve({ allowed: false, remaining: 0, retryAfterMs: 42 }),
    };
    const budget = createBudgetCheck({ store, key: "k", rate, failOpen: false, samplingCode: -9 });
    assert.deepEqual(await budget.check("sampling/createMessage"), {
      ok: false,
      refusal: {
        code: -9,
        message:
          "Input request refused: over the policy's inputRateLimit of 10 per 1000 ms (burst 20); retry in 42 ms",
      },
    });
  });
});

describe("createCapabilityCheck()", () => {
  const gate = createCapabilityCheck({ sampling: true, elicitation: false, roots: false });

  test("passes declared kinds and refuses undeclared ones with -32601", () => {
    assert.deepEqual(gate.check("sampling/createMessage"), { ok: true, value: undefined });
    assert.deepEqual(gate.check("elicitation/create"), {
      ok: false,
      refusal: {
        code: -32601,
        message: "Input request refused: this client did not declare the elicitation capability",
      },
    });
    assert.deepEqual(gate.check("roots/list"), {
      ok: false,
      refusal: {
        code: -32601,
        message: "Input request refused: this client did not declare the roots capability",
      },
    });
  });

  test("refuses methods that are not input requests, including prototype names", () => {
    for (const method of ["tools/call", "__proto__", "constructor", "toString"]) {
      assert.deepEqual(gate.check(method), {
        ok: false,
        refusal: {
          code: -32601,
          message: `Input request refused: "${method}" is not an input request method`,
        },
      });
    }
  });
});

describe("createElicitationModeCheck()", () => {
  test("treats a missing mode as form, and refuses undeclared or unknown modes with -32602", () => {
    const { check } = createElicitationModeCheck(["form"]);
    assert.deepEqual([check(undefined), check("form")], [{ ok: true, value: "form" }, {
      ok: true,
      value: "form",
    }]);
    assert.deepEqual(check("url"), {
      ok: false,
      refusal: {
        code: -32602,
        message: 'Elicitation request refused: mode "url" is not one this client declared ("form")',
      },
    });
    assert.deepEqual(check("voice"), {
      ok: false,
      refusal: {
        code: -32602,
        message: 'Elicitation request refused: mode "voice" is not one this client declared ("form")',
      },
    });
    assert.deepEqual(createElicitationModeCheck([]).check(7), {
      ok: false,
      refusal: {
        code: -32602,
        message: "Elicitation request refused: mode 7 is not one this client declared (none)",
      },
    });
  });
});

describe("inputKindOf()", () => {
  test("names the capability of each input request method, and nothing for any other method", () => {
    assert.deepEqual(
      ["sampling/createMessage", "elicitation/create", "roots/list", "tools/call", "__proto__"].map(
        inputKindOf,
      ),
      ["sampling", "elicitation", "roots", undefined, undefined],
    );
  });
});
