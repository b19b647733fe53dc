// The Bun entry (@sluice/mcp/bun) over real HTTP: Bun.serve in front of the modern peer, called by
// raw fetches and by sluice's own client. Bun has no cases of its own beyond ./_entry-cases.ts.
import { after, before } from "node:test";
import { createGateway, serve } from "../../src/adapters/bun.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { describeEntry } from "./_entry-cases.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

describeEntry("Bun", { serve, createGateway }, { peer: () => peer });
