// What a server's long strings leave in memory once sanitized: a clamped copy keeps none of the
// original alive, and notifications waiting for a consumer that has not read them yet hold their
// sanitized entries, not the raw messages. Measured on the heap after a full collection (Node,
// Deno and Bun; workerd has no heap figures).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sanitizeText } from "../../src/notify/sanitize-text.ts";
import { createNotificationQueue } from "../../src/notify/notification-queue.ts";
import { heapAfterGc } from "../_support/heap.ts";
import { settle } from "../_support/fake-time.ts";
import { ManualClock, notification } from "./_queue-fixtures.ts";

const MIB = 1024 * 1024;

/** A fresh 1 MiB string, as a connection's `JSON.parse` makes it. */
function serverText(i: number): string {
  return JSON.parse(JSON.stringify(`${i} ${"server text ".repeat(MIB / 12)}`)) as string;
}

describe("what sanitized server text keeps alive", () => {
  test("sanitizeText() of 48 strings of 1 MiB, cut to 4096 characters each and kept, holds well under 8 MiB", () => {
    const before = heapAfterGc();
    const kept: string[] = [];
    for (let i = 0; i < 48; i++) kept.push(sanitizeText(serverText(i), 4096));
    const growth = heapAfterGc() - before;
    assert.deepEqual(kept.map((text) => text.length), Array(48).fill(4096));
    assert.ok(growth < 8 * MIB, `the heap grew by ${growth} bytes for 48 kept texts of 4096 characters`);
  });

  test("48 notifications of 1 MiB waiting for an iterator not yet read hold well under 8 MiB", async () => {
    const queue = createNotificationQueue({ client: "agent", clock: new ManualClock() });
    const waiting = queue.entries();
    const before = heapAfterGc();
    for (let i = 0; i < 48; i++) {
      queue.push("files", "modern", notification("notifications/resources/updated", { uri: serverText(i) }));
    }
    await settle();
    const growth = heapAfterGc() - before;
    const first = await waiting.next();
    const uri = first.done || first.value.kind !== "notification"
      ? undefined
      : String(first.value.params?.uri);
    assert.deepEqual([uri?.length, queue.stats().files], [4096, {
      delivered: 1,
      dropped: 0,
      rateLimited: 0,
    }]);
    assert.ok(growth < 8 * MIB, `the heap grew by ${growth} bytes for 48 waiting notifications`);
    await waiting.return?.();
  });
});
