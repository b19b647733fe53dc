// The playground (src/playground/playground.ts) as served, on every runtime including workerd:
// the page's structure, its security headers, its script and style sheet, and how buildGateway
// mounts it. No network: requests go straight to the Hono apps.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PLAYGROUND_SCRIPT, playgroundApp } from "../../src/playground/playground.ts";
import { shown } from "../../src/playground/browser/shown.ts";
import { buildGateway, type GatewayOptions } from "../../src/adapters/gateway.ts";
import { createClient } from "../../src/client/create-client.ts";

const SECURITY = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

function securityHeaders(response: Response): Record<string, string | null> {
  return Object.fromEntries(Object.keys(SECURITY).map((name) => [name, response.headers.get(name)]));
}

function gateway(options: Partial<GatewayOptions> = {}) {
  return buildGateway(
    {
      stateKey: "playground-test-state-key-0123456789",
      policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
      ...options,
    },
    { createClient, environment: () => undefined },
  );
}

describe("playgroundApp()", () => {
  test("playgroundApp() serves the page at GET / with its title, server and tool pickers, and no inline script or style", async () => {
    const response = await playgroundApp().request("/");
    assert.deepEqual([response.status, response.headers.get("content-type")], [
      200,
      "text/html; charset=utf-8",
    ]);
    const html = await response.text();
    assert.ok(
      html.startsWith('<!DOCTYPE html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8">'),
      html.slice(0, 80),
    );
    const expected = [
      "<title>sluice playground</title>",
      '<link rel="stylesheet" href="playground.css">',
      '<script src="playground.js" defer></script>',
      "<h1>sluice playground</h1>",
      '<label for="server">Server</label>\n            <select id="server" name="server"><option value="">Loading servers…</option></select>',
      '<label for="tool">Tool</label>\n            <select id="tool" name="tool" disabled><option value="">Pick a server first</option></select>',
      '<button type="submit" id="call" disabled>Call the tool</button>',
      '<section id="inputs" aria-labelledby="inputs-title" hidden>',
      '<section id="outcome" aria-labelledby="outcome-title" hidden>',
      '<button type="button" id="start-over">Start over</button>',
      '<p id="status" role="status" aria-live="polite">Loading…</p>',
      "(POST /mcp/&lt;server&gt;)",
    ];
    assert.deepEqual(expected.filter((part) => !html.includes(part)), []);
    assert.deepEqual(html.match(/<script\b[^>]*>/g), ['<script src="playground.js" defer>']);
    assert.deepEqual([/<style\b/.test(html), /\sstyle=/.test(html), /\son[a-z]+=/.test(html)], [
      false,
      false,
      false,
    ]);
  });

  test("playgroundApp() sends the exact security headers with the page, the script and the style sheet", async () => {
    const app = playgroundApp();
    for (const path of ["/", "/playground.js", "/playground.css", "/playground.svg"]) {
      const response = await app.request(path);
      assert.deepEqual([path, response.status, securityHeaders(response)], [path, 200, SECURITY]);
      await response.body?.cancel();
    }
  });

  test("playgroundApp() serves the script as JavaScript: strict, in one function scope, with no innerHTML or runtime globals", async () => {
    const response = await playgroundApp().request("/playground.js");
    assert.deepEqual([response.status, response.headers.get("content-type")], [
      200,
      "text/javascript; charset=utf-8",
    ]);
    const script = await response.text();
    assert.equal(script, PLAYGROUND_SCRIPT);
    assert.ok(script.startsWith('"use strict";(()=>{') && script.endsWith("})();\n"));
    assert.deepEqual(
      script.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/g),
      null,
    );
    // The edge entry's check: no word that names a runtime global, even inside strings.
    assert.deepEqual(script.match(/\b(Deno|Bun|process|Buffer|require|__dirname|__filename)\b/g), null);
    assert.match(
      script,
      /"io\.modelcontextprotocol\/clientCapabilities":\{elicitation:\{form:\{\},url:\{\}\},sampling:\{\},roots:\{\}\}/,
    );
  });

  test("playgroundApp() serves the style sheet as CSS", async () => {
    const response = await playgroundApp().request("/playground.css");
    assert.deepEqual([response.status, response.headers.get("content-type")], [
      200,
      "text/css; charset=utf-8",
    ]);
    assert.match(await response.text(), /^:root\{color-scheme:light;/);
  });
});

describe("buildGateway() (the Workers entry's gateway)", () => {
  test("buildGateway() has no playground: GET /, the script and the style sheet answer 404", async () => {
    const { app, client } = gateway();
    try {
      const statuses = [];
      for (const path of ["/", "/playground.js", "/playground.css"]) {
        const response = await app.request(path);
        statuses.push(response.status);
        await response.body?.cancel();
      }
      assert.deepEqual(statuses, [404, 404, 404]);
    } finally {
      await client.close();
    }
  });
});

describe("the page's text", () => {
  test("shown() keeps line breaks and tabs and removes what would make a server's text read otherwise: bidi, escapes, invisible characters", () => {
    assert.deepEqual(
      [
        shown("Desc red\u202Egnp.exe"),
        shown("line 1\r\nline\t2\rline 3\n"),
        shown("\u001b[31mred\u0007 pass\u200Bword\u00AD"),
        shown("plain text"),
      ],
      ["Desc redgnp.exe", "line 1\nline\t2\nline 3\n", "[31mred password", "plain text"],
    );
  });
});
