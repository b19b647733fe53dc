// Era detection, session expiry and roots with the legacy client (@sluice/mcp/legacy), against
// real servers: the modern peer, the scripted legacy HTTP server, server-everything and
// server-filesystem.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "../../src/legacy.ts";
import { type ModernPeer, nodeBinary, REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";
import { type LegacyHttpPeer, startLegacyHttpPeer } from "../_support/legacy-http-peer.ts";

let modern: ModernPeer;
let legacy: LegacyHttpPeer;
before(async () => {
  [modern, legacy] = await Promise.all([startModernPeer(), startLegacyHttpPeer()]);
});
after(async () => {
  await Promise.all([modern?.stop(), legacy?.stop()]);
});

const methodsSent = (log: readonly { body?: unknown }[]) =>
  log.map((r) => (r.body as { method?: string } | undefined)?.method);

describe("era: auto", () => {
  test("speaks the modern era to a server that answers server/discover", async () => {
    await modern.clearRequests();
    const client = createClient({
      name: "auto-test",
      handler: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
      policies: [{ server: "s", transport: { url: modern.url }, era: "auto" }],
    });
    const result = await client.callTool("s", "ask_form");
    assert.match(JSON.stringify(result), /Ada/);
    const sent = (await modern.requests()).map((r) => (r.body as { method?: string }).method);
    assert.deepEqual(sent.slice(0, 2), ["server/discover", "tools/list"]);
    assert.equal(sent.includes("initialize"), false);
    await client.close();
  });

  test("falls back to initialize on a legacy server, then keeps that era without probing again", async () => {
    await legacy.clearLog();
    const client = createClient({
      name: "auto-test",
      policies: [{ server: "s", transport: { url: legacy.url }, era: "auto" }],
    });
    await client.callTool("s", "echo", { text: "one" });
    await client.callTool("s", "echo", { text: "two" });
    const sent = methodsSent(await legacy.log()).filter((m) => m !== undefined);
    assert.deepEqual(sent, [
      "server/discover",
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
      "tools/call",
    ]);
    await client.close();
  });
});

describe("legacy sessions", () => {
  test("initialize again after the server forgets the session (HTTP 404), and carry on", async () => {
    await legacy.clearLog();
    const client = createClient({
      name: "expiry-test",
      policies: [{ server: "s", transport: { url: legacy.url }, era: "legacy" }],
    });
    await client.callTool("s", "expire_session");
    const echoed = await client.callTool("s", "echo", { text: "after" });
    assert.match(JSON.stringify(echoed), /after/);
    const log = await legacy.log();
    assert.deepEqual(methodsSent(log).filter((m) => m === "initialize").length, 2);
    assert.ok(log.some((r) => r.status === 404));
    await client.close();
  });

  test("gives server-filesystem its allowed directories from the handler's roots, and tells it when they change", async () => {
    const first = realpathSync(mkdtempSync(join(tmpdir(), "sluice-roots-a-")));
    const second = realpathSync(mkdtempSync(join(tmpdir(), "sluice-roots-b-")));
    let roots = [first];
    const client = createClient({
      name: "roots-test",
      handler: { roots: () => ({ roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })) }) },
      policies: [{
        server: "fs",
        transport: {
          command: nodeBinary(),
          args: [join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")],
        },
        era: "legacy",
      }],
    });
    try {
      // The server asks for roots after the handshake and applies them a moment later (and again
      // after list_changed): poll, bounded, until what it lists changes.
      const listed = async (wanted: string) => {
        let text = "";
        for (let i = 0; i < 100 && !text.includes(wanted); i++) {
          text = JSON.stringify(await client.callTool("fs", "list_allowed_directories"));
        }
        return text;
      };
      assert.match(await listed(first), new RegExp(first));
      roots = [second];
      await client.rootsChanged("fs");
      const after = await listed(second);
      assert.match(after, new RegExp(second));
      assert.doesNotMatch(after, new RegExp(first));
    } finally {
      await client.close();
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });
});
