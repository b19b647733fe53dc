// The self-hosted entries' gateway (selfHostedGateway, behind @sluice/mcp/node, /deno and /bun)
// serves the playground at GET / unless told not to.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { selfHostedGateway } from "../../src/adapters/_self-hosted.ts";
import type { GatewayOptions } from "../../src/adapters/gateway.ts";

function gateway(options: Partial<GatewayOptions> = {}) {
  return selfHostedGateway(
    {
      stateKey: "playground-test-state-key-0123456789",
      policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
      ...options,
    },
    { environment: () => undefined, terminal: false, peerAddress: () => undefined },
  );
}

async function statuses(app: ReturnType<typeof gateway>["app"]): Promise<number[]> {
  const out = [];
  for (const path of ["/", "/playground.js", "/playground.css", "/healthz"]) {
    const response = await app.request(path);
    out.push(response.status);
    await response.body?.cancel();
  }
  return out;
}

describe("the self-hosted gateway and the playground", () => {
  test("says once on stderr, never on stdout (the decision events' JSON lines), that it serves the playground when no one asked, and nothing when playground is set", async () => {
    const lines: Record<"stdout" | "stderr", string[]> = { stdout: [], stderr: [] };
    const { log, error } = console;
    console.log = (...args: unknown[]) => void lines.stdout.push(args.map(String).join(" "));
    console.error = (...args: unknown[]) => void lines.stderr.push(args.map(String).join(" "));
    try {
      for (const options of [{}, { playground: true }, { playground: false }]) {
        await gateway(options).client.close();
      }
    } finally {
      Object.assign(console, { log, error });
    }
    assert.deepEqual(lines, {
      stdout: [],
      stderr: ["sluice: this gateway serves the playground at GET / (pass playground: false to turn it off)"],
    });
  });

  test("serves the page, its script and style sheet next to the front by default and with playground: true", async () => {
    for (const options of [{}, { playground: true }]) {
      const { app, client } = gateway(options);
      try {
        assert.deepEqual([options, await statuses(app)], [options, [200, 200, 200, 200]]);
        assert.match(await (await app.request("/")).text(), /<title>sluice playground<\/title>/);
      } finally {
        await client.close();
      }
    }
  });

  test("answers 404 at GET / and the page's routes with playground: false", async () => {
    const { app, client } = gateway({ playground: false });
    try {
      assert.deepEqual(await statuses(app), [404, 404, 404, 200]);
    } finally {
      await client.close();
    }
  });

  test('refuses a playground option that is not a boolean: "playground" must be a boolean', () => {
    assert.throws(() => gateway({ playground: "yes" as unknown as boolean }), {
      name: "TypeError",
      message: 'sluice gateway: "playground" must be a boolean, received "string"',
    });
  });
});
