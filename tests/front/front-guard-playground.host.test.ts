// The Host and Origin guard in front of the self-hosted gateway's playground (createGateway of
// @sluice/mcp/node, which mounts it at GET /): a page reached by DNS rebinding or called from
// another origin is refused like the MCP endpoints; loopback names get the page.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createGateway } from "../../src/adapters/node.ts";
import type { GatewayOptions } from "../../src/adapters/gateway.ts";
import { answerOf, hostRefusal, originRefusal } from "../_support/gateway-caller.ts";

function gateway(options: Partial<GatewayOptions> = {}) {
  return createGateway({
    stateKey: "guard-playground-state-key-0123456789abcdef",
    policies: [{ server: "files", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
    ...options,
  });
}

describe("the guard in front of the playground", () => {
  test("GET / and the page's assets at Host rebind.attacker.example:8787 are refused with 403 and the exact body", async () => {
    const { app, client } = gateway();
    try {
      const answers = [];
      for (const path of ["/", "/playground.js", "/playground.css"]) {
        answers.push(
          await answerOf(await app.request(`http://rebind.attacker.example:8787${path}`), ["content-type"]),
        );
      }
      assert.deepEqual(answers, Array(3).fill(hostRefusal("rebind.attacker.example:8787")));
    } finally {
      await client.close();
    }
  });

  test("GET / at loopback names serves the page; from another Origin it is refused", async () => {
    const { app, client } = gateway();
    try {
      const page = await app.request("http://127.0.0.1:8787/");
      assert.deepEqual(
        [page.status, /<title>sluice playground<\/title>/.test(await page.text())],
        [200, true],
      );
      const ipv6 = await app.request("http://[::1]:8787/");
      await ipv6.body?.cancel();
      assert.equal(ipv6.status, 200);
      const foreign = await app.request("http://127.0.0.1:8787/", {
        headers: { origin: "https://evil.example" },
      });
      assert.deepEqual(await answerOf(foreign, ["content-type"]), originRefusal("https://evil.example"));
    } finally {
      await client.close();
    }
  });

  test('GET / at a name in "allowedHosts" serves the page (with auth given)', async () => {
    const { app, client } = gateway({ allowedHosts: ["gate.example.com"], auth: "none" });
    try {
      const page = await app.request("https://gate.example.com/");
      await page.body?.cancel();
      const other = await app.request("https://other.example.com/");
      await other.body?.cancel();
      assert.deepEqual([page.status, other.status], [200, 403]);
    } finally {
      await client.close();
    }
  });
});
