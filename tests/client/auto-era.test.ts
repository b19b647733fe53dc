// An `era: "auto"` server's probe (`server/discover`) through the edge entry's client: a probe that
// did not finish is forgotten and made again by the next call, one that did is kept, for the
// client's own calls and for the era the front asks about with its caller's fetch. A probe is
// shared by the calls waiting for it: one of them cancelled fails alone.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { result } from "../_support/scripted-server.ts";
import { clientInternals } from "../../src/client/client-internals.ts";
import { gate } from "../_support/gate.ts";
import { eventually } from "../_support/eventually.ts";
import { cancelFirstOfTwo, failure, setup } from "./_client-fixtures.ts";

const discovered = { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} };

function autoServer() {
  return setup((request) => result(request.body.id, discovered), { policy: { era: "auto" } });
}

/** What the server answers besides `server/discover`: no tools, and a tool call with no content. */
const answers: Readonly<Record<string, Record<string, unknown>>> = {
  "tools/list": { resultType: "complete", tools: [] },
  "tools/call": { resultType: "complete", content: [] },
};

/** An "auto" server whose answers wait at `held`. */
function heldAutoServer(held: ReturnType<typeof gate>) {
  return setup(async (request) => {
    await held.opened;
    return result(request.body.id, answers[request.body.method] ?? discovered);
  }, { policy: { era: "auto" } });
}

const cancelledProbe = ["cancelled", undefined, 'Call of server/discover to server "demo" was cancelled'];

/** What a caller of the front's tools/call is told when it gives up during the probe. */
const cancelledCall = ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled'];

describe('createClient() with era "auto"', () => {
  test("probes again after a cancelled probe, then keeps the session it found", async () => {
    const { client, server } = autoServer();
    assert.deepEqual(await failure(client.discover("demo", { signal: AbortSignal.abort() })), [
      "cancelled",
      undefined,
      'Call of server/discover to server "demo" was cancelled',
    ]);
    assert.deepEqual(await client.discover("demo"), discovered);
    assert.deepEqual(await client.discover("demo"), discovered);
    await client.close();
    // The cancelled probe sent nothing; the second call's probe and its own discover, then the
    // third call's discover on the kept session.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
      "server/discover",
    ]);
  });

  test("the era the front asks about is probed again after a cancelled probe, then kept", async () => {
    const { client, server } = autoServer();
    const internals = clientInternals(client);
    assert.notEqual(internals, undefined);
    const eraOf = (signal: AbortSignal) =>
      internals!.eraOf("demo", { signal, method: "tools/call", fetch: server.fetch });
    assert.deepEqual(await failure(eraOf(AbortSignal.abort())), cancelledCall);
    assert.equal(await eraOf(new AbortController().signal), "modern");
    assert.equal(await eraOf(new AbortController().signal), "modern");
    await client.close();
    // The cancelled probe sent nothing; only the one whose era was kept reached the server.
    assert.deepEqual(server.requests.map((request) => request.body.method), ["server/discover"]);
  });

  test("a call cancelled during the probe fails alone: the other call waiting for it goes on", async () => {
    const held = gate();
    const { client, server } = heldAutoServer(held);
    const call = (signal: AbortSignal) => client.discover("demo", { signal });
    assert.deepEqual(await cancelFirstOfTwo(call, { gate: held, sent: () => server.requests[0] }), [
      cancelledProbe,
      discovered,
    ]);
    await client.close();
    // One probe for both calls, then the second call's own discover.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
    ]);
  });

  test("a call made once the probe was stopped by its only caller leaving probes anew, where it got that probe's cancellation", async () => {
    const held = gate();
    const { client, server } = heldAutoServer(held);
    const controller = new AbortController();
    const first = failure(client.discover("demo", { signal: controller.signal }));
    await eventually("the probe sent", () => server.requests[0]);
    controller.abort();
    // In the same turn: the stopped probe has not settled yet.
    const second = client.discover("demo");
    held.open();
    assert.deepEqual(await first, cancelledProbe);
    assert.deepEqual(await second, discovered);
    await client.close();
    // The stopped probe, the second call's own probe, then its discover on the session found.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
      "server/discover",
    ]);
  });

  test("a tool call cancelled during the probe is told of its own tools/call; the other goes on", async () => {
    const held = gate();
    const { client, server } = heldAutoServer(held);
    const call = (signal: AbortSignal) => client.callTool("demo", "echo", {}, { signal });
    assert.deepEqual(await cancelFirstOfTwo(call, { gate: held, sent: () => server.requests[0] }), [
      ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled'],
      { resultType: "complete", content: [] },
    ]);
    await client.close();
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "tools/list",
      "tools/call",
    ]);
  });

  test("a caller of the front cancelled during the probe of the era fails alone: the other one gets the era", async () => {
    const held = gate();
    const { client, server } = heldAutoServer(held);
    const eraOf = (signal: AbortSignal) =>
      clientInternals(client)!.eraOf("demo", { signal, method: "tools/call", fetch: server.fetch });
    assert.deepEqual(await cancelFirstOfTwo(eraOf, { gate: held, sent: () => server.requests[0] }), [
      cancelledCall,
      "modern",
    ]);
    await client.close();
    assert.deepEqual(server.requests.map((request) => request.body.method), ["server/discover"]);
  });

  test("a caller of the front cancelled while the client's own probe runs is told of its own call: the client's call goes on", async () => {
    const held = gate();
    const { client, server } = heldAutoServer(held);
    const eraOf = (signal: AbortSignal) =>
      clientInternals(client)!.eraOf("demo", { signal, method: "tools/call", fetch: server.fetch });
    const discovering = client.discover("demo");
    assert.deepEqual(
      await cancelFirstOfTwo(eraOf, { gate: held, sent: () => server.requests[0] }),
      [cancelledCall, "modern"],
    );
    assert.deepEqual(await discovering, discovered);
    await client.close();
    // The client's probe, shared by the front's callers, then the client's own discover.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
    ]);
  });

  test("a -32022 naming only versions sluice does not speak fails the call naming them (a modern server: no fall back), and one naming a 2025 version means legacy", async () => {
    const answered = (supported: string[]) =>
      setup((request) =>
        Response.json({
          jsonrpc: "2.0",
          id: request.body.id,
          error: {
            code: -32022,
            message: "Unsupported protocol version",
            data: { supported, requested: "2026-07-28" },
          },
        }, { status: 400 }), { policy: { era: "auto" } });
    const outcomes: unknown[] = [];
    for (const supported of [["2027-01-01"], ["2027-01-01", "2025-11-25"]]) {
      const { client } = answered(supported);
      outcomes.push(await failure(client.discover("demo")));
      await client.close();
    }
    assert.deepEqual(outcomes, [
      [
        "protocol",
        -32022,
        'Server "demo" refused server/discover: it supports "2027-01-01", and this client speaks "2026-07-28" in the modern era',
      ],
      [
        "config",
        undefined,
        'Server "demo" needs the legacy era or stdio, which this entry does not speak: import createClient from "@sluice/mcp/legacy" (self-hosted)',
      ],
    ]);
  });

  test("an outage answering the probe (HTTP 500, 502, 503, 408, 429) fails the call with it, and the next call probes again; 400, 404 and 405 mean legacy", async () => {
    const outcomes: unknown[] = [];
    for (const status of [500, 502, 503, 408, 429, 400, 404, 405]) {
      let down = true;
      const { client, server } = setup((request) => {
        if (down) return new Response("unavailable", { status });
        return result(request.body.id, discovered);
      }, { policy: { era: "auto" } });
      const error = await client.discover("demo").catch((caught) => caught);
      down = false;
      const after = await client.discover("demo").catch((caught) => caught.kind);
      await client.close();
      outcomes.push([
        status,
        [error.kind, error.code, error.message, error.data],
        after,
        server.requests.map((request) => request.body.method),
      ]);
    }
    const outage = (status: number) => [
      status,
      [
        "transport",
        undefined,
        `Server "demo" answered server/discover with HTTP ${status}`,
        { status, body: "unavailable" },
      ],
      discovered,
      ["server/discover", "server/discover", "server/discover"],
    ];
    // The edge entry speaks no legacy era: a server found legacy is refused before any request.
    const legacy = (status: number) => [
      status,
      [
        "config",
        undefined,
        'Server "demo" needs the legacy era or stdio, which this entry does not speak: import createClient from "@sluice/mcp/legacy" (self-hosted)',
        undefined,
      ],
      discovered,
      ["server/discover", "server/discover", "server/discover"],
    ];
    assert.deepEqual(outcomes, [
      outage(500),
      outage(502),
      outage(503),
      outage(408),
      outage(429),
      legacy(400),
      legacy(404),
      legacy(405),
    ]);
  });
});
