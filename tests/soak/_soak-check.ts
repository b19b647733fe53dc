/**
 * The assertions the soak's short form (`soak.node.test.ts`) and long form (`npm run soak`) share.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { SoakReport } from "./_soak-run.ts";

const MIB = 1024 * 1024;
const BUSY = "-32000 Busy: 8 server requests are already being answered";
const OVER_BUDGET =
  "-32000 Input request refused: over the policy's inputRateLimit of 10 per 1000 ms (burst 20); retry in N ms";

/**
 * The assertions both forms share.
 *
 * @param report What the soak came to.
 * @param options The flood sizes it ran with.
 */
export function assertSoak(report: SoakReport, options: { floodCount: number }): void {
  const { completed, failed, floodAnswers, samples } = report;
  assert.deepEqual(failed, {});
  for (const tool of ["ask_form", "ask_sample", "chatty", "echo", "flood", "noise"]) {
    assert.ok((completed[tool] ?? 0) > 0, `no ${tool} call completed`);
  }
  // Every server request of every flood was answered: accepted, busy, or over the budget.
  assert.deepEqual(
    Object.keys(floodAnswers).filter((key) => ![`result:accept`, BUSY, OVER_BUDGET].includes(key)),
    [],
  );
  const answered = Object.values(floodAnswers).reduce((a, b) => a + b, 0);
  assert.equal(answered, report.floods * options.floodCount);
  assert.equal(report.floods, completed.flood);
  // Every notification the flooder sent is delivered, dropped (queue full) or rate-limited (logs).
  const { flooder, modern } = samples.end.notifications;
  assert.ok(flooder !== undefined && modern !== undefined);
  assert.equal(flooder.delivered + flooder.dropped + flooder.rateLimited, report.noiseSent + report.floods);
  // The gateway's handler hears both servers (the front relays to its callers besides).
  assert.equal(
    flooder.delivered + modern.delivered,
    (samples.end.handled.notification ?? 0) + (samples.end.handled.log ?? 0),
  );
  // The front's handler ran once per sampling call, and per elicitation (deferred down or accepted).
  assert.equal(samples.end.handled.sampling, completed.ask_sample);
  assert.equal(
    samples.end.handled.elicitation,
    (completed.ask_form ?? 0) + (floodAnswers["result:accept"] ?? 0),
  );
  // Logs reached the downstream caller from both servers (the chatty tool's 20 per call, the
  // flooder's noise), each within the front's log budget for that server (the policies' default:
  // 50/s, burst 100); the rest stopped at the front. The caller's own budget is wide.
  assert.deepEqual(Object.keys(report.downstream).sort(), ["flooder", "modern"]);
  const budget = 100 + Math.ceil(50 * report.durationMs / 1000);
  for (const [server, relayed] of Object.entries(report.downstream)) {
    assert.deepEqual([relayed.dropped, relayed.rateLimited], [0, 0], server);
    assert.ok(
      relayed.delivered > 0 && relayed.delivered <= budget,
      `${server}: ${relayed.delivered} of at most ${budget}`,
    );
  }
  // Memory does not grow after warm-up.
  const { middle, end } = samples;
  assert.ok(
    end.peakRss <= middle.peakRss * 1.2 + 8 * MIB,
    `peak RSS ${end.peakRss} after ${middle.peakRss} half-way`,
  );
  assert.ok(
    end.heapUsed <= middle.heapUsed * 1.2 + 8 * MIB,
    `heap ${end.heapUsed} after ${middle.heapUsed} half-way`,
  );
}
