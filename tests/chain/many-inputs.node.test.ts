// A round of more than ten input requests waits on one signal without a Node warning: each
// handler hears the call's abort through one listener per signal, not one each
// (Node warns with MaxListenersExceededWarning past ten listeners on an AbortSignal). Node only:
// the warning is Node's.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createClient } from "../../mod.ts";
import { result, scriptedServer, toolsList } from "../_support/scripted-server.ts";

const ROUND = 12;

describe("a round of many input requests", () => {
  test("12 roots requests in one round are answered, and Node prints no warning", async () => {
    const warnings: string[] = [];
    const hear = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", hear);
    const upstream = scriptedServer((request) => {
      const { id } = request.body;
      if (request.body.method === "tools/list") return toolsList(id, []);
      const answers = request.body.params?.inputResponses as Record<string, unknown> | undefined;
      if (answers !== undefined) {
        return result(id, {
          resultType: "complete",
          content: [{ type: "text", text: String(Object.keys(answers).length) }],
        });
      }
      const inputRequests = Object.fromEntries(
        Array.from({ length: ROUND }, (_, index) => [`r${index}`, { method: "roots/list", params: {} }]),
      );
      return result(id, { resultType: "input_required", inputRequests, requestState: "s" });
    });
    const client = createClient({
      name: "agent",
      fetch: upstream.fetch,
      handler: {
        roots: async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { roots: [] };
        },
      },
      policies: [{
        server: "many",
        transport: { url: "https://mcp.example.com/mcp" },
        era: "modern",
        maxInputRequests: ROUND,
        inputRateLimit: { rate: 100, per: "1s", burst: 100 },
      }],
    });
    try {
      const answered = await client.callTool("many", "ask_many");
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual([answered.content, warnings], [[{ type: "text", text: String(ROUND) }], []]);
    } finally {
      process.off("warning", hear);
      await client.close();
    }
  });
});
