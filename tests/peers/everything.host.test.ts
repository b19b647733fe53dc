// Smoke test of @modelcontextprotocol/server-everything as a legacy-era peer, with raw JSON-RPC:
// over stdio (newline-delimited) and over its streamable HTTP mode (sessions, SSE answers).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type EverythingHttp, everythingStdioCommand, startEverythingHttp } from "../_support/everything.ts";
import { stopChild } from "../_support/modern-peer.ts";

const CLIENT_TOOLS = [
  "get-roots-list",
  "trigger-elicitation-request",
  "trigger-sampling-request",
  "trigger-url-elicitation",
];
const SERVER_INFO = {
  name: "mcp-servers/everything",
  title: "Everything Reference Server",
  version: "2.0.0",
};

function initialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: "raw-json-rpc", version: "0.0.0" },
    },
  };
}

type Message = { id?: number; method?: string; result?: Record<string, unknown> };

/** The facts both transports must agree on: version, server identity, the client-feature tools. */
function summary(init: Message, list: Message): unknown {
  const tools = (list.result?.tools as { name: string }[]).map((tool) => tool.name);
  return {
    protocolVersion: init.result?.protocolVersion,
    serverInfo: init.result?.serverInfo,
    clientTools: CLIENT_TOOLS.filter((name) => tools.includes(name)),
  };
}

describe("@modelcontextprotocol/server-everything over stdio", () => {
  let child: ChildProcess | undefined;

  after(async () => {
    if (child !== undefined) await stopChild(child);
  });

  test("initialize, notifications/initialized, tools/list lists the four client-feature tools", async () => {
    const { command, args } = everythingStdioCommand();
    const peer = spawn(command, [...args], { stdio: ["pipe", "pipe", "ignore"] });
    child = peer;
    const send = (message: object) => peer.stdin.write(`${JSON.stringify(message)}\n`);
    const answers = new Map<number, (message: Message) => void>();
    const answer = (id: number) => new Promise<Message>((resolve) => answers.set(id, resolve));
    createInterface({ input: peer.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Message;
      if (message.method === "roots/list") send({ jsonrpc: "2.0", id: message.id, result: { roots: [] } });
      else if (message.id !== undefined && message.method === undefined) answers.get(message.id)?.(message);
    });

    const initialized = answer(1);
    send(initialize(1));
    const init = await initialized;
    // Only after the initialize answer: the server registers its client-feature tools when
    // notifications/initialized arrives, from the capabilities initialize declared.
    const listed = answer(2);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.deepEqual(summary(init, await listed), {
      protocolVersion: "2025-11-25",
      serverInfo: SERVER_INFO,
      clientTools: CLIENT_TOOLS,
    });
  });
});

describe("@modelcontextprotocol/server-everything over streamable HTTP", () => {
  let server: EverythingHttp;

  before(async () => {
    server = await startEverythingHttp();
  });

  after(async () => {
    await server.stop();
  });

  /** POSTs one message; returns the status, the session id and the JSON-RPC answer (from SSE). */
  async function post(message: object, session?: string) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (session !== undefined) {
      headers["mcp-session-id"] = session;
      headers["mcp-protocol-version"] = "2025-11-25";
    }
    const response = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(message) });
    const text = await response.text();
    const data = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
    const answer = [...data, text].map((chunk) => {
      try {
        return JSON.parse(chunk) as Message;
      } catch {
        return undefined;
      }
    }).find((m) => m !== undefined && m.id !== undefined && m.method === undefined);
    return { status: response.status, session: response.headers.get("mcp-session-id"), answer };
  }

  test("the same initialize opens a session; tools/list then lists the four client-feature tools", async () => {
    const init = await post(initialize(1));
    assert.equal(init.status, 200);
    assert.match(init.session ?? "", /^[0-9a-f-]{36}$/);
    const session = init.session!;
    const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    assert.equal(initialized.status, 202);
    const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session);
    assert.deepEqual(summary(init.answer!, list.answer!), {
      protocolVersion: "2025-11-25",
      serverInfo: SERVER_INFO,
      clientTools: CLIENT_TOOLS,
    });
    const closed = await fetch(server.url, {
      method: "DELETE",
      headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    });
    await closed.body?.cancel();
    assert.equal(closed.status, 200);
  });
});
