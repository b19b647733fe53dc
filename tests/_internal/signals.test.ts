import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  awaitShared,
  DeadlineReached,
  joinable,
  linkSignals,
  openFlow,
  openLeg,
  sharedWork,
  whenAborted,
} from "../../src/_internal/signals.ts";
import { FakeTime } from "../_support/fake-time.ts";

const leg = (time: FakeTime, ms = 100) => ({ ms, which: "leg" as const, timers: time });
const total = (time: FakeTime, ms = 1000) => ({ ms, which: "total" as const, timers: time });

describe("linkSignals()", () => {
  test("fires with the first source's reason and stops listening to the others", () => {
    const time = new FakeTime();
    const [a, b] = [new AbortController(), new AbortController()];
    const linked = linkSignals([a.signal, undefined, b.signal], total(time));
    a.abort("first");
    b.abort("second");
    assert.equal(linked.signal.reason, "first");
    assert.equal(time.pending, 0);
  });

  test("abort() fires it with the given reason and clears its deadline", () => {
    const time = new FakeTime();
    const linked = linkSignals([], total(time));
    assert.equal(time.pending, 1);
    linked.abort("closed");
    assert.equal(linked.signal.reason, "closed");
    assert.equal(time.pending, 0);
  });

  test("its deadline fires DeadlineReached with which and ms", async () => {
    const time = new FakeTime();
    const linked = linkSignals([], total(time, 250));
    await time.advance(249);
    assert.equal(linked.signal.aborted, false);
    await time.advance(1);
    assert.ok(linked.signal.reason instanceof DeadlineReached);
    assert.equal(linked.signal.reason.which, "total");
    assert.equal(linked.signal.reason.ms, 250);
    assert.equal(linked.signal.reason.message, "maxTotalTimeout of 250 ms reached");
  });
});

describe("whenAborted()", () => {
  test("calls each waiter once, in the order they began to wait, leaving out those that stopped", () => {
    const source = new AbortController();
    const heard: string[] = [];
    const stops = ["a", "b", "c"].map((name) => whenAborted(source.signal, () => void heard.push(name)));
    stops[1]!();
    source.abort();
    source.abort();
    assert.deepEqual(heard, ["a", "c"]);
  });

  test("many links to one source each follow it, and one disposed stays as it is", () => {
    const source = new AbortController();
    const links = Array.from({ length: 12 }, () => linkSignals([source.signal]));
    links[0]!.dispose();
    source.abort("gone");
    assert.deepEqual(links.map((link) => link.signal.reason), [undefined, ...Array(11).fill("gone")]);
  });
});

describe("openLeg()", () => {
  test("under a flow, the leg is the flow's own signal and its deadline ends the flow", async () => {
    const time = new FakeTime();
    const flow = openFlow([], { maxTotalTimeoutMs: 1000, timers: time });
    const one = openLeg(flow.signal, leg(time, 100));
    assert.equal(one.signal, flow.signal);
    await time.advance(100);
    assert.ok(flow.signal.reason instanceof DeadlineReached);
    assert.equal(flow.signal.reason.which, "leg");
    assert.equal(flow.signal.reason.message, "callTimeout of 100 ms reached");
    // The flow's own deadline went with the abort; the leg's fired.
    assert.equal(time.pending, 0);
  });

  test("under a flow, dispose clears the leg's deadline and leaves the flow running", async () => {
    const time = new FakeTime();
    const flow = openFlow([], { maxTotalTimeoutMs: 1000, timers: time });
    for (let i = 0; i < 3; i++) {
      const one = openLeg(flow.signal, leg(time, 100));
      await time.advance(99);
      one.dispose();
    }
    assert.equal(time.pending, 1); // the flow's total deadline only
    await time.advance(200);
    assert.equal(flow.signal.aborted, false);
    await time.advance(1000);
    assert.equal((flow.signal.reason as DeadlineReached).which, "total");
  });

  test("under a flow, the leg's abort() aborts the flow", () => {
    const time = new FakeTime();
    const flow = openFlow([], { maxTotalTimeoutMs: 1000, timers: time });
    openLeg(flow.signal).abort("leg failed");
    assert.equal(flow.signal.reason, "leg failed");
  });

  test("under an aborted flow, no deadline is armed", () => {
    const time = new FakeTime();
    const flow = openFlow([], { maxTotalTimeoutMs: 1000, timers: time });
    flow.abort("closed");
    const one = openLeg(flow.signal, leg(time));
    assert.equal(one.signal.reason, "closed");
    assert.equal(time.pending, 0);
  });

  test("under any other signal, the leg has a signal of its own and its deadline leaves the parent alone", async () => {
    const time = new FakeTime();
    const parent = linkSignals([], total(time));
    const one = openLeg(parent.signal, leg(time, 100));
    assert.notEqual(one.signal, parent.signal);
    await time.advance(100);
    assert.equal((one.signal.reason as DeadlineReached).which, "leg");
    assert.equal(parent.signal.aborted, false);
  });

  test("under any other signal, the parent's abort reaches the leg", () => {
    const parent = new AbortController();
    const one = openLeg(parent.signal);
    parent.abort("caller");
    assert.equal(one.signal.reason, "caller");
  });
});

describe("sharedWork() and awaitShared()", () => {
  /**
   * Work that settles when told (`promise`, marked by share()), and calls waiting for it, each with
   * its own controller.
   */
  function shared(owner = new AbortController()) {
    const work = sharedWork(owner.signal);
    let finish = (_value: string) => {};
    const promise = work.share(new Promise<string>((resolve) => (finish = resolve)));
    const wait = (reason?: string) => {
      const caller = new AbortController();
      if (reason !== undefined) caller.abort(reason);
      const outcome = awaitShared(promise, {
        signal: caller.signal,
        cancelled: (reason) => new Error(`left: ${reason}`),
      })
        .then((value) => `got ${value}`, (error: Error) => error.message);
      return { caller, outcome };
    };
    return { work, promise, finish, wait, owner };
  }

  test("a caller that gives up fails alone; the work goes on for the others", async () => {
    const { work, finish, wait } = shared();
    const [a, b] = [wait(), wait()];
    a.caller.abort("a closed");
    assert.equal(await a.outcome, "left: a closed");
    assert.equal(work.signal.aborted, false);
    finish("tools");
    assert.equal(await b.outcome, "got tools");
  });

  test("the work stops once the last caller waiting has given up, with its reason", async () => {
    const { work, wait } = shared();
    const [a, b] = [wait(), wait()];
    a.caller.abort("a closed");
    b.caller.abort("b closed");
    assert.deepEqual([await a.outcome, await b.outcome], ["left: a closed", "left: b closed"]);
    assert.deepEqual([work.signal.aborted, work.signal.reason], [true, "b closed"]);
  });

  test("settled work is never stopped, and a caller whose signal fired already still gets it", async () => {
    const { work, promise, finish, wait } = shared();
    finish("tools");
    // Settled, as the work's own reaction (registered by share(), before this await) has seen.
    assert.equal(await promise, "tools");
    const late = wait("too late");
    assert.equal(await late.outcome, "got tools");
    assert.equal(work.signal.aborted, false);
  });

  test("the owner's signal stops the work", () => {
    const owner = new AbortController();
    const { work } = shared(owner);
    owner.abort("closed");
    assert.deepEqual([work.signal.aborted, work.signal.reason], [true, "closed"]);
  });

  test("joinable() gives running and settled work, and no work once it was stopped and until it settles", async () => {
    const running = shared();
    assert.equal(joinable(running.promise), running.promise);
    assert.equal(joinable(undefined), undefined);
    // Not shared work: always joinable.
    const plain = Promise.resolve("plain");
    assert.equal(joinable(plain), plain);
    // Stopped by its last caller leaving, not settled yet.
    const left = shared();
    const only = left.wait();
    only.caller.abort("gone");
    assert.equal(await only.outcome, "left: gone");
    assert.equal(joinable(left.promise), undefined);
    left.finish("late");
    assert.equal(await left.promise, "late");
    assert.equal(joinable(left.promise), left.promise);
    // Stopped by its owner.
    const owner = new AbortController();
    const closed = shared(owner);
    owner.abort("closed");
    assert.equal(joinable(closed.promise), undefined);
    // Settled, then its owner closes: what it settled with is still known.
    const done = shared(owner);
    done.finish("tools");
    assert.equal(await done.promise, "tools");
    assert.equal(joinable(done.promise), done.promise);
  });
});
