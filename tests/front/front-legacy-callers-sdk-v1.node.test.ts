// The front's legacy face for the official `@modelcontextprotocol/sdk` 1.32.2 client (a 2025-11-25
// host: `initialize`, a session, SSE), in process before the modern peer: what that client makes
// of the gateway's answers where the raw tests in front-legacy-callers.host.test.ts assert bytes.
//
// Node only: the sdk's subpath exports name no types Deno can read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createClient } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { type Fetch, holdingUpstream } from "../_support/legacy-caller.ts";

let peer: ModernPeer | undefined;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

/** A front over the modern peer ("modern"), reaching it with `upstreamFetch`. */
function gateway(upstreamFetch: Fetch) {
  const client = createClient({
    name: "gate",
    fetch: upstreamFetch,
    policies: [{ server: "modern", transport: { url: peer?.url ?? "" }, era: "modern" }],
  });
  const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.test"], auth: "none" });
  const fetch: Fetch = async (url, init) => await app.fetch(new Request(url, init));
  return { client, fetch };
}

const KEY = "front-legacy-callers-sdk-v1-key-0123456789";

describe("the front's legacy face, for the sdk 1.32.2 client", () => {
  test("the official sdk 1.32.2 client that aborts a call before anything streamed reads the empty answer without an error, and calls on", async () => {
    const { upstreamFetch, reached, aborted } = holdingUpstream('"tools/call"');
    const { client, fetch } = gateway(upstreamFetch);
    // The host's fetch keeps a copy of the first tools/call POST's answer.
    let answered = (_answer: [number, string | null, string]) => {};
    const answer = new Promise<[number, string | null, string]>((resolve) => answered = resolve);
    const recording = async (url: string | URL, init?: RequestInit) => {
      const response = await fetch(String(url), init ?? {});
      if (!String(init?.body).includes('"tools/call"') || response.body === null) return response;
      const [mine, copy] = response.body.tee();
      const { status, headers } = response;
      void new Response(copy).text().then((text) => answered([status, headers.get("content-type"), text]));
      return new Response(mine, response);
    };
    const host = new SdkClient({ name: "sdk-v1-host", version: "1.32.2" });
    const errors: string[] = [];
    host.onerror = (error) => void errors.push(String(error));
    const transport = new SdkTransport(new URL("http://gate.test/mcp/modern"), { fetch: recording });
    await host.connect(transport);
    const controller = new AbortController();
    const call = host.callTool({ name: "add", arguments: { a: 2, b: 40 } }, undefined, {
      signal: controller.signal,
    })
      .catch((error: Error) => error.message);
    await reached;
    controller.abort("the user stopped it");
    const failed = await call;
    const next = await host.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    assert.deepEqual(
      [failed, await answer, aborted(), next.content, errors],
      [
        "MCP error -32001: the user stopped it",
        [200, "text/event-stream", ""],
        true,
        [{ type: "text", text: "3" }],
        [],
      ],
    );
    await transport.terminateSession();
    await host.close();
    await client.close();
  });
});
