/**
 * `npm run bench`: every benchmark, side by side in one run, printed as a table.
 *
 * @module
 */
import { benchChain } from "./chain.bench.ts";

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
