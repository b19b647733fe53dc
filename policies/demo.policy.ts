// The demo server that `npm start` runs on loopback: a modern-era (2026-07-28) MCP server whose
// tools ask for every kind of input. Its sampling tool asks for far more tokens than this policy
// lets through, so the clamp is visible.
import { definePolicy } from "../mod.ts";

export default definePolicy({
  server: "demo",
  transport: { url: "http://127.0.0.1:3971/mcp" },
  era: "modern",
  sampling: { maxTokens: 1024 },
  elicitation: { modes: ["form", "url"], allowHosts: ["*.example.com", "example.com"] },
  // The demo handler answers sampling and roots itself, but has no elicitation callback: the
  // gateway passes forms and URLs down to its caller (the playground, `sluice call`, an MCP host),
  // after this policy's checks, so a person answers them.
  passDown: ["elicitation"],
});
