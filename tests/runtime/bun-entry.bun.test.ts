// The Bun entry (@sluice/mcp/bun) over real HTTP: Bun.serve in front of the modern peer, called by
// raw fetches and by sluice's own client (the cases every entry shares, in ./_entry-cases.ts); and
// Bun's idle timeout, kept on a body that stalls and lifted for a call that waits long.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { createGateway, serve } from "../../src/adapters/bun.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";
import { within } from "../_support/eventually.ts";
import { describeEntry, KEY } from "./_entry-cases.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

describeEntry("Bun", { serve, createGateway }, {
  peer: () => peer,
  bindingsFrom: (address) => ({
    requestIP: () => ({ address, family: address.includes(":") ? "IPv6" : "IPv4", port: 50_000 }),
  }),
});

describe("Bun's idle timeout (10 s)", () => {
  test(
    "serve() on Bun cuts a request whose body stalls, and answers a call that waits longer on its handler",
    {
      timeout: 60_000,
    },
    async () => {
      let stalledClosed: () => void = () => {};
      const cut = new Promise<void>((resolve) => (stalledClosed = resolve));
      const gateway = await serve({
        port: 0,
        stateKey: KEY,
        playground: false,
        policies: [{ server: "modern", transport: { url: peer.url }, era: "modern" }],
        // The call's answer waits until Bun has cut the stalled request: longer than the timeout.
        handler: { elicitation: async () => (await cut, { action: "decline" }) },
      });
      const stalled = connect(Number(new URL(gateway.url).port), "127.0.0.1");
      try {
        await once(stalled, "connect");
        stalled.on("close", stalledClosed);
        // One byte of the hundred the head announces, then nothing.
        stalled.write(
          "POST /mcp/modern HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
        );
        const caller = new LegacyCaller(fetch, `${gateway.url}/mcp/modern`);
        await caller.initialize();
        const call = caller.post({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "ask_form" },
        });
        const answer = await within("the call's answer, after Bun cut the stalled request", call, 30_000);
        assert.deepEqual([answer.status, await answer.json()], [200, {
          jsonrpc: "2.0",
          id: 1,
          result: {
            content: [{ type: "text", text: '{"action":"decline"}' }],
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
          },
        }]);
      } finally {
        stalledClosed();
        stalled.destroy();
        await gateway.close();
      }
    },
  );
});
