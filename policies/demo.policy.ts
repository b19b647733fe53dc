// The demo server that `npm start` runs on loopback: a modern-era (2026-07-28) MCP server whose
// tools ask for every kind of input. Its sampling tool asks for far more tokens than this policy
// lets through, so the clamp is visible.
import { definePolicy } from "../mod.ts";

// `DEMO_PORT=3991 npm start` runs the demo server on 3991 (when 3971 is taken) and prints
// `DEMO_PORT=3991 npx sluice call …`: reading the same variable here points `sluice call` and
// `sluice serve` at the server actually started.
const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
const port = env?.["DEMO_PORT"]?.trim() || "3971";
if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
  throw new TypeError(
    `Policy "demo": DEMO_PORT must be an integer from 0 to 65535, received ${
      JSON.stringify(port.slice(0, 32))
    }`,
  );
}

export default definePolicy({
  server: "demo",
  transport: { url: `http://127.0.0.1:${port}/mcp` },
  era: "modern",
  sampling: { maxTokens: 1024 },
  elicitation: { modes: ["form", "url"], allowHosts: ["*.example.com", "example.com"] },
  // The demo handler answers roots itself, but has no sampling or elicitation callback: the
  // gateway passes sampling requests, forms and URLs down to its caller (the playground,
  // `sluice call`, an MCP host), after this policy's checks (maxTokens clamped to 1024), so a
  // person answers them. A caller that declares no sampling capability is refused the sampling
  // tool's request.
  passDown: ["elicitation", "sampling"],
});
