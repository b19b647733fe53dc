// @sluice/mcp/deno on Deno Deploy (DENO_DEPLOYMENT_ID set): every Host the platform delivers is
// the deployment's, so allowedHosts defaults to "routed", and auth is then required.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createGateway } from "../../src/adapters/deno.ts";
import type { GatewayOptions } from "../../src/adapters/gateway.ts";

const VARIABLE = "DENO_DEPLOYMENT_ID";
const OPTIONS: GatewayOptions = {
  stateKey: "deno-deploy-test-state-key-0123456789abcdef",
  policies: [{ server: "files", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
  playground: false,
};

/** Runs `work` with DENO_DEPLOYMENT_ID set (or unset), then restores it. */
async function deployment<T>(id: string | undefined, work: () => Promise<T>): Promise<T> {
  const saved = process.env[VARIABLE];
  if (id === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = id;
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env[VARIABLE];
    else process.env[VARIABLE] = saved;
  }
}

async function statuses(gateway: ReturnType<typeof createGateway>, bases: string[]): Promise<number[]> {
  const out = [];
  for (const base of bases) {
    const response = await gateway.fetch(new Request(`${base}/servers`));
    await response.body?.cancel();
    out.push(response.status);
  }
  return out;
}

describe("createGateway() of @sluice/mcp/deno on Deno Deploy", () => {
  test("createGateway() on Deploy without auth throws the exact TypeError naming Deno Deploy, with or without allowedHosts", async () => {
    await deployment("abc123", () => {
      for (const options of [OPTIONS, { ...OPTIONS, allowedHosts: ["gate.example.com"] }]) {
        assert.throws(() => createGateway(options), {
          name: "TypeError",
          message:
            '@sluice/mcp/deno: on Deno Deploy ("DENO_DEPLOYMENT_ID" is set) the gateway is on the internet, so "auth" is required: give bearer secrets ({ bearer: [{ secret, subject }] }), JWT settings ({ jwt: { issuer, jwks } }) or a function, or "none" to let anyone in',
        });
      }
      return Promise.resolve();
    });
  });

  test("createGateway() on Deploy with auth answers the deployment's names; off Deploy only loopback ones", async () => {
    const bases = ["https://sluice-abc123.deno.dev", "https://gate.example.com", "http://127.0.0.1:8000"];
    const onDeploy = await deployment("abc123", async () => {
      const gateway = createGateway({ ...OPTIONS, auth: "none" });
      try {
        return await statuses(gateway, bases);
      } finally {
        await gateway.client.close();
      }
    });
    const offDeploy = await deployment(undefined, async () => {
      const gateway = createGateway(OPTIONS);
      try {
        return await statuses(gateway, bases);
      } finally {
        await gateway.client.close();
      }
    });
    assert.deepEqual([onDeploy, offDeploy], [[200, 200, 200], [403, 403, 200]]);
  });

  test("createGateway() on Deploy keeps an explicit allowedHosts", async () => {
    const answered = await deployment("abc123", async () => {
      const gateway = createGateway({ ...OPTIONS, auth: "none", allowedHosts: ["gate.example.com"] });
      try {
        return await statuses(gateway, ["https://gate.example.com", "https://sluice-abc123.deno.dev"]);
      } finally {
        await gateway.client.close();
      }
    });
    assert.deepEqual(answered, [200, 403]);
  });
});
