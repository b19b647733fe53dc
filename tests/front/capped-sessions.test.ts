// One server's sessions held to maxSessions and sessionIdleTimeout (the rule of the front's
// legacy callers' sessions and of its upstream sessions for 2026-07-28 callers): room made at the
// cap by closing the longest-unused idle session, fairly between callers (a caller takes only its
// own or a bigger holder's, and one with open streams but no request in flight only from a
// caller holding two or more and more than half),
// none while all are in use, idle ones swept or closed when looked up.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CappedSessions } from "../../src/front/_capped-sessions.ts";
import { FakeTime } from "../_support/fake-time.ts";

/** A session that records its closing. */
class Held {
  busy = false;
  streamsOnly = false;
  lastUsed: number;
  readonly owner: string;
  closed = 0;

  constructor(lastUsed: number, owner = "") {
    this.lastUsed = lastUsed;
    this.owner = owner;
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
    assert.equal(held.makeRoom(""), true);
    held.set("older", older);
    assert.equal(held.makeRoom(""), true);
    // The room was made by closing "older": held are "busy" and, after the next set, "newer".
    held.set("newer", newer);
    assert.deepEqual([...held.values()], [busy, newer]);
    assert.deepEqual([busy.closed, older.closed, newer.closed], [0, 1, 0]);
    await held.close();
  });

  test("CappedSessions.makeRoom() for a caller closes an idle session of its own or of a bigger holder (the biggest's), never one of a caller holding no more", async () => {
    const time = new FakeTime(0);
    const held = sessions(time, 4);
    // bob holds three sessions, alice one, the longest unused.
    const [alice, bob1, bob2, bob3] = [
      new Held(1, "alice"),
      new Held(2, "bob"),
      new Held(3, "bob"),
      new Held(4, "bob"),
    ];
    for (const [key, session] of Object.entries({ alice, bob1, bob2, bob3 })) held.set(key, session);
    // bob's next takes bob's own longest unused, not alice's older one.
    assert.equal(held.makeRoom("bob"), true);
    held.set("bob4", new Held(5, "bob"));
    // carol, holding none, takes from bob, the biggest holder, not alice's longer unused one.
    assert.equal(held.makeRoom("carol"), true);
    held.set("carol", new Held(6, "carol"));
    assert.deepEqual([...held.keys()], ["alice", "bob3", "bob4", "carol"]);
    // Now dave, holding none, may take alice's idle one (she holds more than he); carol, holding
    // one, may not take alice's only one, nor (bob holds 2 of 4, half, and both in use) bob's.
    held.get("carol")!.busy = true;
    for (const key of ["bob3", "bob4"]) held.get(key)!.busy = true;
    assert.deepEqual([held.makeRoom("carol"), held.makeRoom("dave")], [false, true]);
    assert.deepEqual([alice.closed, bob1.closed, bob2.closed, bob3.closed], [1, 1, 1, 0]);
    await held.close();
  });

  test("CappedSessions.makeRoom() closes a session of a caller holding two or more and more than half, in use by its streams alone, for another caller only", async () => {
    const time = new FakeTime(0);
    const held = sessions(time, 4);
    const bobs = [1, 2, 3, 4].map((at) => new Held(at, "bob"));
    bobs.forEach((session, i) => {
      session.busy = true;
      // The longest unused has a request in flight: it is never closed to make room.
      session.streamsOnly = i > 0;
      held.set(`bob${i}`, session);
    });
    // bob, holding every session, gets no fifth; alice gets bob's longest unused with streams only.
    assert.deepEqual([held.makeRoom("bob"), held.makeRoom("alice")], [false, true]);
    held.set("alice", new Held(5, "alice"));
    held.get("alice")!.busy = true;
    assert.deepEqual(bobs.map((session) => session.closed), [0, 1, 0, 0]);
    // bob holds 3 of 4, more than half: carol may take one too; then bob holds 2, half, and no more goes.
    assert.equal(held.makeRoom("carol"), true);
    held.set("carol", new Held(6, "carol"));
    held.get("carol")!.busy = true;
    assert.deepEqual([held.makeRoom("dave"), bobs.map((session) => session.closed)], [false, [0, 1, 1, 0]]);
    await held.close();
  });

  test("CappedSessions.makeRoom() at maxSessions 1 never closes a connected caller's only session for another", async () => {
    const time = new FakeTime(0);
    const held = sessions(time, 1);
    const alice = new Held(1, "alice");
    alice.busy = true;
    alice.streamsOnly = true;
    held.set("alice", alice);
    assert.deepEqual([held.makeRoom("bob"), alice.closed], [false, 0]);
    // Idle, it makes room as before.
    alice.busy = false;
    assert.deepEqual([held.makeRoom("bob"), alice.closed], [true, 1]);
    await held.close();
  });

  test("CappedSessions.makeRoom() makes none while all are in use, and the refusal names the cap", async () => {
    const time = new FakeTime(0);
    const held = sessions(time, 1);
    const busy = new Held(0);
    busy.busy = true;
    held.set("a", busy);
    assert.equal(held.makeRoom(""), false);
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
