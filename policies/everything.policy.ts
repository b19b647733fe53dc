// The official reference server, @modelcontextprotocol/server-everything, run over stdio. It
// speaks the legacy era (2025-11-25) and exercises sampling, form and URL elicitation, roots,
// logs and tasks. Self-hosted only (stdio needs a process).
import { definePolicy } from "../mod.ts";

export default definePolicy({
  server: "everything",
  transport: { command: "npx", args: ["--no-install", "mcp-server-everything", "stdio"] },
  era: "legacy",
  sampling: { maxTokens: 4096, maxToolIterations: 5 },
  elicitation: { modes: ["form", "url"] },
  inputRateLimit: { rate: 10, per: "1s", burst: 20 },
  logLevel: "info",
});
