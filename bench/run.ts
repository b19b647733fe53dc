/**
 * `npm run bench`: every benchmark, side by side in one run, printed as a table.
 *
 * @module
 */
import { benchChain } from "./chain.bench.ts";
import { benchMrtr } from "./mrtr.bench.ts";
import { benchFront } from "./front.bench.ts";
import { benchSanitize } from "./sanitize.bench.ts";

const host = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
const runtime = host.Deno !== undefined
  ? `Deno ${host.Deno.version.deno}`
  : host.Bun !== undefined
  ? `Bun ${host.Bun.version}`
  : `Node ${process.version}`;
console.log(`sluice benchmarks on ${runtime}\n`);

console.log("Chain overhead per input request (target: under 5000 ns added)");
console.log("case                         direct ns    chain ns   added ns   ratio");
for (const row of await benchChain()) {
  const added = row.chainNs - row.directNs;
  console.log(
    `${row.name.padEnd(28)} ${row.directNs.toFixed(0).padStart(9)} ${row.chainNs.toFixed(0).padStart(11)} ${
      added.toFixed(0).padStart(10)
    } ${(row.chainNs / row.directNs).toFixed(1).padStart(6)}x  ${added < 5000 ? "ok" : "OVER TARGET"}`,
  );
}

console.log("\nMulti round-trip throughput: 1000 tools/call, each with one form elicitation, loopback peer");
console.log("(targets: sluice >= 1.5x the official client's calls/s, and within 1.25x of the floor's time)");
const rows = await benchMrtr();
const [ours, official, floor] = rows;
for (const row of rows) {
  console.log(
    `${row.name.padEnd(24)} ${row.callsPerSecond.toFixed(0).padStart(7)} calls/s ${
      row.msPerCall.toFixed(3).padStart(8)
    } ms/call`,
  );
}
if (ours !== undefined && official !== undefined && floor !== undefined) {
  const vsOfficial = ours.callsPerSecond / official.callsPerSecond;
  const vsFloor = ours.msPerCall / floor.msPerCall;
  console.log(`sluice / official: ${vsOfficial.toFixed(2)}x  ${vsOfficial >= 1.5 ? "ok" : "BELOW TARGET"}`);
  console.log(`sluice time / floor time: ${vsFloor.toFixed(2)}x  ${vsFloor <= 1.25 ? "ok" : "OVER TARGET"}`);
}

console.log("\nThe front: tools/call through the front (own process) vs straight to the same loopback peer");
console.log("(target: the front costs at most 20% of the direct throughput)");
console.log("case                        direct calls/s   front calls/s   front/direct");
for (const row of await benchFront()) {
  const ratio = row.frontPerSecond / row.directPerSecond;
  console.log(
    `${row.name.padEnd(28)} ${row.directPerSecond.toFixed(0).padStart(14)} ${
      row.frontPerSecond.toFixed(0).padStart(15)
    } ${ratio.toFixed(2).padStart(13)}  ${ratio >= 0.8 ? "ok" : "BELOW TARGET"}`,
  );
}

console.log("\nsanitizeText throughput on 1 MB (target: at least 200 MB/s on ASCII on Node)");
for (const r of await benchSanitize()) {
  const verdict = r.name !== "ASCII" || r.sanitizeMBps >= 200 ? "ok" : "BELOW TARGET";
  console.log(
    `${r.name.padEnd(26)} ${r.sanitizeMBps.toFixed(0).padStart(6)} MB/s   naive regex ${
      r.naiveMBps.toFixed(0).padStart(6)
    } MB/s  ${verdict}`,
  );
}
