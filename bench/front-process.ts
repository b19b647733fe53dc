/**
 * The front as its own process for the benchmark (`@sluice/mcp/node`'s `serve`), in front of the
 * fast peer whose URL is the first argument. Its handler answers the peer's form elicitation, so
 * a caller sees one round. Prints `FRONT_URL <url>` once listening; exits when stdin ends.
 *
 * @module
 */
import { serve } from "../src/adapters/node.ts";

const upstream = process.argv[2];
if (upstream === undefined) throw new Error("front-process: pass the upstream URL");
const gateway = await serve({
  port: 0,
  stateKey: "bench-front-state-key-0123456789abcdef",
  handler: { elicitation: () => ({ action: "accept", content: { name: "Ada", age: 36 } }) },
  // A budget the bench never exhausts (the default 10/s would refuse it, as it should).
  policies: [{
    server: "peer",
    transport: { url: upstream },
    era: "modern",
    inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
  }],
});
console.log(`FRONT_URL ${gateway.url}/mcp/peer`);
process.stdin.on("end", () => void gateway.close().then(() => process.exit(0)));
process.stdin.resume();
