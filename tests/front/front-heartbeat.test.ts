// The heartbeat on a legacy caller's streams, through the whole front: a long call's POST turns
// into a stream at the first beat (after the priming event) and beats on, the GET stream beats
// while attached, and closing the gateway leaves no timer. The upstream is scripted (its
// tools/call never answers) and time is fake, so this runs the same on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { discovered, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { eventually, readUpTo, within } from "../_support/eventually.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";

const BEAT = ": heartbeat\n\n";

describe("the front's heartbeat on a legacy caller's streams", () => {
  test("a long call's POST streams from the first beat and beats on, the GET stream beats, and closing leaves no timer", async () => {
    const time = new FakeTime();
    const upstream = scriptedServer(({ body: { id, method } }) => {
      if (method === "tools/list") return toolsList(id, [{ name: "wait", inputSchema: { type: "object" } }]);
      if (method === "tools/call") return new Promise<Response>(() => {});
      return discovered(id);
    });
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      timers: time,
      clock: time,
      policies: [{
        server: "up",
        transport: { url: "https://up.example/mcp" },
        era: "modern",
        callTimeout: "5m",
      }],
    });
    const app = createFront({
      client,
      stateKey: "front-heartbeat-state-key-0123456789abcdef",
      allowedHosts: ["gate.example"],
      auth: "none",
      heartbeat: "15s",
    });
    const host = new LegacyCaller(
      async (url, init) => await app.fetch(new Request(url, init)),
      "https://gate.example/mcp/up",
    );
    await host.initialize();
    const call = host.post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "wait", arguments: {} },
    });
    await eventually(
      "the upstream tools/call",
      () => Promise.resolve(upstream.requests.find((r) => r.body.method === "tools/call")),
    );
    await time.advance(15_000);
    const response = await within("the call's answer at the first beat", call);
    assert.deepEqual([response.status, response.headers.get("content-type")], [200, "text/event-stream"]);
    const post = (response.body as ReadableStream<Uint8Array>).getReader();
    const listen = await host.listen();
    const get = (listen.body as ReadableStream<Uint8Array>).getReader();
    assert.equal(await readUpTo(get, "id: 0_0\ndata: \n\n"), "id: 0_0\ndata: \n\n");
    await time.advance(15_000);
    // The POST stream: its priming event, the beat that opened it, the next; the GET stream's first.
    const postSeen = `id: 1_0\ndata: \n\n${BEAT}${BEAT}`;
    assert.deepEqual([await readUpTo(post, postSeen), await readUpTo(get, BEAT)], [postSeen, BEAT]);
    await client.close();
    assert.equal(time.pending, 0);
  });
});
