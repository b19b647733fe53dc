/**
 * A hostile legacy MCP server over stdio (2025-11-25), for the hardening tests. Tools: `echo`
 * answers `pid <its process id>` (so a test sees a restart); `endless-line` starts its answer
 * and never ends the line; `deep` answers with a line nested 100 000 levels deep.
 *
 * Run: `node --import tsx tests/hardening/_hostile-stdio-server.ts`.
 *
 * @module
 */
import process from "node:process";
import { createInterface } from "node:readline";

const DEPTH = 100_000;

function send(message: unknown): void {
  process.stdout.write(JSON.stringify(message) + "\n");
}

async function writeEndlessLine(id: unknown): Promise<void> {
  process.stdout.write(
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`,
  );
  const chunk = "a".repeat(64 * 1024);
  // Until the client kills this process.
  for (;;) {
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once("drain", resolve));
  }
}

function answer(message: { id?: unknown; method?: string; params?: Record<string, unknown> }): void {
  const { id, method, params = {} } = message;
  if (id === undefined) return;
  switch (method) {
    case "initialize":
      return send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "hostile-stdio", version: "1.0.0" },
        },
      });
    case "tools/list":
      return send({
        jsonrpc: "2.0",
        id,
        result: {
          tools: ["echo", "endless-line", "deep"].map((name) => ({ name, inputSchema: { type: "object" } })),
        },
      });
    case "tools/call":
      if (params.name === "endless-line") return void writeEndlessLine(id);
      if (params.name === "deep") {
        const nested = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
        process.stdout.write(
          `{"jsonrpc":"2.0","id":${
            JSON.stringify(id)
          },"result":{"content":[],"structuredContent":{"x":${nested}}}}\n`,
        );
        return;
      }
      return send({
        jsonrpc: "2.0",
        id,
        result: { content: [{ type: "text", text: `pid ${process.pid}` }] },
      });
    default:
      return send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "") answer(JSON.parse(line));
});
process.stdin.on("end", () => process.exit(0));
