// The front's limits: downstream bodies within the server's maxMessageBytes (an endless one is
// cut and cancelled), downstream JSON within maxJsonDepth, and an upstream round (or a legacy
// upstream's -32042) within maxInputRequests, against the hostile server over real loopback HTTP.
// Also the entry told once a body has been read (the Bun entry lifts its idle timeout then).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { type HostilePeer, startHostilePeer } from "./_hostile-peer.ts";
import { gate } from "../_support/gate.ts";
import { BODY_READ } from "../../src/front/entry-bindings.ts";
import { initializeMessage } from "../_support/legacy-caller.ts";

let peer: HostilePeer;
let app: ReturnType<typeof createFront>;
let close: () => Promise<void>;
let elicitations = 0;

before(async () => {
  peer = await startHostilePeer();
  const client = createClient({
    name: "gate",
    handler: { elicitation: () => (elicitations++, { action: "accept", content: { ok: true } }) },
    policies: [
      {
        server: "hostile",
        transport: { url: `${peer.origin}/modern` },
        era: "modern",
        maxMessageBytes: 65_536,
        maxEventBytes: 65_536,
      },
      { server: "wide", transport: { url: `${peer.origin}/modern` }, era: "modern" },
      {
        server: "legacy-wide",
        transport: { url: `${peer.origin}/legacy` },
        era: "legacy",
      },
    ],
  });
  app = createFront({
    client,
    stateKey: "front-limits-state-key-0123456789abcdef",
    allowedHosts: ["gate.example"],
    auth: "none",
  });
  close = () => client.close();
});

after(async () => {
  await close();
  await peer.stop();
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
};

async function post(body: BodyInit, headers: Record<string, string> = {}, server = "hostile") {
  const response = await app.fetch(
    new Request(`https://gate.example/mcp/${server}`, {
      method: "POST",
      headers: { ...HEADERS, ...headers },
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit),
  );
  return { status: response.status, body: await response.json() };
}

const call = (name: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: {}, _meta: META },
  });
// The hostile server leaves out resultType; the front adds it for its 2026-07-28 caller.
const echo = {
  status: 200,
  body: {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: "echo modern" }], resultType: "complete" },
  },
};
const tooLarge = {
  status: 413,
  body: {
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Request body is larger than 65536 bytes (maxMessageBytes)",
    },
  },
};

describe("the front's limits", () => {
  test("a downstream body that never ends is refused 413 past maxMessageBytes and cancelled", async () => {
    let cancelled: unknown = "not cancelled";
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(chunk),
      cancel: (reason) => void (cancelled = reason ?? "cancelled"),
    });
    assert.deepEqual(await post(endless), tooLarge);
    assert.notEqual(cancelled, "not cancelled");
    assert.deepEqual(await post(call("echo"), { "mcp-name": "echo" }), echo);
  });

  test("the front tells the entry (BODY_READ) once a downstream body has been read, not while it is arriving", async () => {
    const told: string[] = [];
    const [head, tail] = [call("echo").slice(0, 20), call("echo").slice(20)];
    const secondRead = gate();
    const released = gate();
    const encoder = new TextEncoder();
    let reads = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (++reads === 1) return controller.enqueue(encoder.encode(head));
        secondRead.open();
        await released.opened;
        controller.enqueue(encoder.encode(tail));
        controller.close();
      },
    });
    const request = new Request("https://gate.example/mcp/hostile", {
      method: "POST",
      headers: { ...HEADERS, "mcp-name": "echo" },
      body,
      duplex: "half",
    } as RequestInit);
    const answered = app.fetch(request, { [BODY_READ]: () => told.push("body read") });
    await secondRead.opened;
    assert.deepEqual(told, []);
    released.open();
    const response = await answered;
    assert.deepEqual([told, { status: response.status, body: await response.json() }], [["body read"], echo]);
  });

  test("a downstream body over maxMessageBytes with its Content-Length is refused 413", async () => {
    const body = `{"padding":"${"p".repeat(70_000)}"}`;
    assert.deepEqual(await post(body, { "content-length": String(body.length) }), tooLarge);
  });

  test("downstream JSON nested 100 000 levels deep is refused -32700 before it is parsed", async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","x":${
      "[".repeat(100_000)
    }${"]".repeat(100_000)}}}`;
    assert.deepEqual(await post(deep, { "mcp-name": "echo" }, "wide"), {
      status: 400,
      body: {
        jsonrpc: "2.0",
        error: {
          code: -32700,
          message:
            "Parse error: $: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
        },
      },
    });
  });

  test("a downstream body with bytes that are not UTF-8 is refused -32700, modern or legacy, and never runs with U+FFFD in their place", async () => {
    const encoder = new TextEncoder();
    const withByte = (text: string, byte: number) => {
      const [before, after] = text.split("@@").map((part) => encoder.encode(part)) as [
        Uint8Array,
        Uint8Array,
      ];
      return new Uint8Array([...before, byte, ...after]);
    };
    const notUtf8 = {
      status: 400,
      body: {
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error: the request body is not valid UTF-8" },
      },
    };
    // The byte inside a string of each: the caller's name in the call's _meta, the host's name.
    const modern = withByte(call("echo").replace('"name":"raw"', '"name":"r@@aw"'), 0xff);
    const legacy = withByte(JSON.stringify(initializeMessage()).replace("raw-host", "raw@@host"), 0xc0);
    const legacyHeaders = {
      "mcp-protocol-version": "2025-11-25",
      accept: "application/json, text/event-stream",
    };
    assert.deepEqual(
      [await post(modern, { "mcp-name": "echo" }), await post(legacy, legacyHeaders, "legacy-wide")],
      [notUtf8, notUtf8],
    );
  });

  test("an upstream round of 10 000 input requests fails the call before any handler runs", async () => {
    elicitations = 0;
    assert.deepEqual(await post(call("many-inputs"), { "mcp-name": "many-inputs" }, "wide"), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32603,
          message:
            'Server "wide" sent 10000 input requests in one round, expected at most 16 (maxInputRequests)',
        },
      },
    });
    assert.equal(elicitations, 0);
    assert.deepEqual(await post(call("echo"), { "mcp-name": "echo" }, "wide"), echo);
  });

  test("a legacy upstream's -32042 of 10 000 URL elicitations is refused as a modern round of too many is", async () => {
    elicitations = 0;
    assert.deepEqual(await post(call("many-urls"), { "mcp-name": "many-urls" }, "legacy-wide"), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32603,
          message:
            'Server "legacy-wide" sent 10000 input requests in one round, expected at most 16 (maxInputRequests)',
        },
      },
    });
    assert.equal(elicitations, 0);
    assert.deepEqual(await post(call("echo"), { "mcp-name": "echo" }, "legacy-wide"), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "echo legacy" }], resultType: "complete" },
      },
    });
  });

  test("an upstream answer over the server's maxMessageBytes fails the call; the next call succeeds", async () => {
    // The round of 10 000 entries is about 1.2 MB, over this server's 64 KiB.
    assert.deepEqual(await post(call("many-inputs"), { "mcp-name": "many-inputs" }), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32010,
          message: 'Upstream server "hostile" is unavailable: it broke the protocol',
          data: { serverId: "hostile", cause: "protocol" },
        },
      },
    });
    assert.deepEqual(await post(call("echo"), { "mcp-name": "echo" }), echo);
  });
});
