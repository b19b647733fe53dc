// One server's sessions held to maxSessions and sessionIdleTimeout (the rule of the front's
// legacy callers' sessions and of its upstream sessions for 2026-07-28 callers): room made at the
// cap by closing the longest-unused idle session, none while all are in use, idle ones swept or
// closed when looked up.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CappedSessions } from "../../src/front/_capped-sessions.ts";
import { FakeTime } from "../_support/fake-time.ts";

/** A session that records its closing. */
class Held {
  busy = false;
  lastUsed: number;
  closed = 0;

  constructor(lastUsed: number) {
    this.lastUsed = lastUsed;
  }

  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
}

function sessions(time: FakeTime, maxSessions = 2) {
  const policy = { server: "docs", maxSessions, sessionIdleTimeoutMs: 60_000 };
  return new CappedSessions<string, Held>(policy, "sessions", { clock: time, timers: time });
}

describe("CappedSessions", () => {
  test("CappedSessions.makeRoom() at the cap closes the longest-unused idle session, not a busy older one", async () => {
    const time = new FakeTime(0);
    const held = sessions(time);
    const [busy, older, newer] = [new Held(1), new Held(2), new Held(3)];
    busy.busy = true;
    held.set("busy", busy);
    assert.equal(held.makeRoom(), true);
    held.set("older", older);
    assert.equal(held.makeRoom(), true);
    // The room was made by closing "older": held are "busy" and, after the next set, "newer".
    held.set("newer", newer);
    assert.deepEqual([...held.values()], [busy, newer]);
    assert.deepEqual([busy.closed, older.closed, newer.closed], [0, 1, 0]);
    await held.close();
  });

  test("CappedSessions.makeRoom() makes none while all are in use, and the refusal names the cap", async () => {
    const time = new FakeTime(0);
    const held = sessions(time, 1);
    const busy = new Held(0);
    busy.busy = true;
    held.set("a", busy);
    assert.equal(held.makeRoom(), false);
    assert.equal(busy.closed, 0);
    assert.equal(
      held.refusal,
      'Too many sessions: all sessions of server "docs" are in use (maxSessions 1 in its policy); try again later',
    );
    await held.close();
  });

  test("CappedSessions closes a session idle for sessionIdleTimeout, keeps a busy one, and stops sweeping when none is left", async () => {
    const time = new FakeTime(0);
    const held = sessions(time);
    const [idle, busy] = [new Held(0), new Held(0)];
    busy.busy = true;
    held.set("idle", idle);
    held.set("busy", busy);
    assert.equal(time.pending, 1);
    await time.advance(59_999);
    assert.deepEqual([idle.closed, held.has("idle")], [0, true]);
    await time.advance(15_000);
    assert.deepEqual([idle.closed, held.has("idle"), busy.closed, held.has("busy")], [1, false, 0, true]);
    held.delete("busy");
    await time.advance(15_000);
    assert.equal(time.pending, 0);
  });

  test("CappedSessions.get() of a session idle for sessionIdleTimeout closes it then, before the sweep comes", async () => {
    const time = new FakeTime(0);
    const held = sessions(time);
    // Sweeps run every 15 s: "idle" runs out at 60 001 ms, between the sweeps of 60 s and 75 s.
    const [idle, busy, fresh] = [new Held(1), new Held(0), new Held(30_000)];
    busy.busy = true;
    held.set("idle", idle);
    held.set("busy", busy);
    held.set("fresh", fresh);
    await time.advance(60_000);
    const before = [held.get("idle"), idle.closed];
    await time.advance(1);
    assert.deepEqual(
      [before, held.get("idle"), idle.closed, held.has("idle"), held.get("busy"), held.get("fresh")],
      [[idle, 0], undefined, 1, false, busy, fresh],
    );
    await held.close();
  });

  test("CappedSessions.close() closes every session and no sweep starts after it", async () => {
    const time = new FakeTime(0);
    const held = sessions(time);
    const first = new Held(0);
    held.set("first", first);
    await held.close();
    assert.deepEqual([first.closed, time.pending], [1, 0]);
    held.set("late", new Held(0));
    assert.equal(time.pending, 0);
  });
});
