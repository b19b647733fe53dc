// `sluice serve` through main(): this runtime's adapter in front of the real modern peer, with a
// handler module, until the io's signal fires.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { main } from "../../src/cli/mod.ts";
import { serveBanner } from "../../src/cli/_serve-banner.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { callTool, hostileCall } from "../runtime/_entry-cases.ts";
import { startHostilePeer } from "../hardening/_hostile-peer.ts";
import { readUpTo, within } from "../_support/eventually.ts";
import { placeholders } from "../_support/decision-lines.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";
import { policyJson, scriptedIo, type TempDir, tempDir } from "./_scripted-io.ts";

/** A state key as `openssl rand -base64 32` would make one (serve refuses to start without one). */
const KEY = "serve-test-state-key-7d1c94e2b8a3f605";

let peer: ModernPeer;
let dir: TempDir;
before(async () => {
  peer = await startModernPeer();
  dir = tempDir({
    "modern.policy.json": policyJson("modern", peer.url),
    "handler.ts":
      'export const handler = { roots: () => ({ roots: [{ uri: "file:///srv/project", name: "project" }] }) };\n',
    "broken-handler.ts": "export default { answer: 42 };\n",
  });
});
after(async () => {
  await peer?.stop();
  dir?.remove();
});

/** Polls `read` until it gives a value, the command ends, or 20 s pass. */
async function waitFor<T>(read: () => T | undefined, ended: Promise<number>): Promise<T> {
  let done = false;
  void ended.finally(() => (done = true));
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && !done;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`waitFor(): nothing after ${done ? "the command ended" : "20 s"}`);
}

describe("sluice serve", () => {
  test("serve prints the URL and endpoints, serves the front with the handler module, and exits 0 on the signal", async () => {
    const controller = new AbortController();
    const scripted = scriptedIo([], {
      cwd: dir.path,
      signal: controller.signal,
      env: { SLUICE_STATE_KEY: KEY },
    });
    const ended = main(["serve", "--port", "0", "--policies", ".", "--handler", "handler.ts"], scripted.io);
    try {
      const url = await waitFor(() => /listening on (http:\/\/\S+)\n/.exec(scripted.stderr())?.[1], ended);
      assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { ok: true });
      const added = await callTool(url, { server: "modern", name: "add", arguments: { a: 2, b: 3 } });
      assert.deepEqual([added.status, (added.body as { result: { content: unknown } }).result.content], [
        200,
        [{
          type: "text",
          text: "5",
        }],
      ]);
      const roots = await callTool(url, { server: "modern", name: "ask_roots", arguments: {} });
      assert.deepEqual((roots.body as { result: { content: unknown } }).result.content, [{
        type: "text",
        text: '["file:///srv/project"]',
      }]);
      controller.abort();
      assert.equal(await ended, 0);
      const pad = (text: string) => text.padEnd(`${url}/mcp/modern`.length + 2);
      const call = { type: "call", time: "<time>", client: "sluice", server: "modern", method: "tools/call" };
      // stdout carries the decision events alone; the person who started it reads stderr.
      assert.deepEqual([placeholders(scripted.stdout()), scripted.stderr().split("\n")], [
        [
          // Not a terminal: the decision events as JSON lines, the handler's roots answer among them.
          { ...call, name: "add", outcome: "completed", rounds: 1, durationMs: "<ms>" },
          {
            type: "input",
            time: "<time>",
            client: "sluice",
            server: "modern",
            era: "modern",
            method: "roots/list",
            outcome: "answered",
            changes: [],
            handlerMs: "<ms>",
            durationMs: "<ms>",
          },
          { ...call, name: "ask_roots", outcome: "completed", rounds: 2, durationMs: "<ms>" },
          "",
        ],
        [
          `sluice front listening on ${url}`,
          `  POST ${pad(`${url}/mcp/modern`)}modern: modern, http`,
          `  GET  ${pad(`${url}/servers`)}the servers, their capabilities and limits`,
          `  GET  ${pad(`${url}/healthz`)}health check`,
          `  GET  ${pad(`${url}/`)}the playground: call a tool and answer what the server asks, by hand`,
          "Callers: anyone on this machine (loopback only, no auth)",
          "Stop with Ctrl-C (SIGINT) or SIGTERM.",
          "sluice serve: stopping",
          "",
        ],
      ]);
    } finally {
      controller.abort();
      await ended;
    }
  });

  test("serve writes decision events as text lines on a terminal, none with --decisions none, and refuses another value", async () => {
    const runs: Array<[string[], string[]]> = [
      [[], ["sluice serve: call modern tools/call add completed <ms> ms"]],
      [["--decisions", "none"], []],
    ];
    for (const [flags, events] of runs) {
      const controller = new AbortController();
      const scripted = scriptedIo([], {
        cwd: dir.path,
        signal: controller.signal,
        env: { SLUICE_STATE_KEY: KEY },
        isTTY: true,
      });
      const ended = main(["serve", "--port", "0", "--policies", ".", ...flags], scripted.io);
      try {
        const url = await waitFor(() => /listening on (http:\/\/\S+)\n/.exec(scripted.stderr())?.[1], ended);
        const added = await callTool(url, { server: "modern", name: "add", arguments: { a: 2, b: 3 } });
        assert.equal(added.status, 200);
        controller.abort();
        assert.equal(await ended, 0);
        assert.deepEqual([placeholders(scripted.stdout()), scripted.stderr().split("\n").slice(7)], [
          [...events, ""],
          ["sluice serve: stopping", ""],
        ]);
      } finally {
        controller.abort();
        await ended;
      }
    }
    const wrong = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: KEY } });
    assert.deepEqual(
      [
        await main(["serve", "--policies", ".", "--decisions", "yaml"], wrong.io),
        wrong.stdout(),
        wrong.stderr(),
      ],
      [
        2,
        "",
        'sluice serve: flag "--decisions" must be one of json, text, none, received "yaml"\n' +
        'Run "sluice serve --help" for usage.\n',
      ],
    );
  });

  test("serve's decision lines carry a 2025 caller's tool name without its escapes, bidi and control characters: removed from the text, \\u escapes in the JSON", async () => {
    const hostileName = "add\u001b[2J\u001b]0;pwned\u0007\u202eevil\u009b2J";
    const lines: string[] = [];
    for (const [flags, isTTY] of [[[], true], [["--decisions", "json"], false]] as const) {
      const controller = new AbortController();
      const scripted = scriptedIo([], {
        cwd: dir.path,
        signal: controller.signal,
        env: { SLUICE_STATE_KEY: KEY },
        isTTY,
      });
      const ended = main(["serve", "--port", "0", "--policies", ".", ...flags], scripted.io);
      try {
        const url = await waitFor(() => /listening on (http:\/\/\S+)\n/.exec(scripted.stderr())?.[1], ended);
        const caller = new LegacyCaller(fetch, `${url}/mcp/modern`);
        await caller.initialize();
        await caller.request(1, "tools/call", { name: hostileName, arguments: {} });
        await caller.close();
        controller.abort();
        assert.equal(await ended, 0);
        lines.push(...scripted.stdout().split("\n").slice(0, -1));
      } finally {
        controller.abort();
        await ended;
      }
    }
    assert.deepEqual(
      lines.map((line) =>
        line.replace(/"time":"[^"]+"/, '"time":"<time>"').replace(/\d+( ms$|}$)/, "<ms>$1")
      ),
      [
        // The client's error message quotes the upstream's with its escapes already.
        String
          .raw`sluice serve: call modern tools/call add[2J]0;pwnedevil2J failed: server -32602 Server "modern" answered tools/call with error -32602: "Tool add\u001B[2J\u001B]0;pwned\u0007\u202Eevil\u009B2J not found" <ms> ms`,
        String
          .raw`{"type":"call","time":"<time>","client":"sluice","server":"modern","method":"tools/call","name":"add\u001b[2J\u001b]0;pwned\u0007\u202eevil\u009b2J","outcome":"failed","error":{"kind":"server","code":-32602,"message":"Server \"modern\" answered tools/call with error -32602: \"Tool add\\u001B[2J\\u001B]0;pwned\\u0007\\u202Eevil\\u009B2J not found\""},"durationMs":<ms>}`,
      ],
    );
  });

  test("serve --heartbeat 200ms beats a long call's stream, and refuses a heartbeat under 100ms or not a duration", async () => {
    const hostile = await startHostilePeer();
    const folder = tempDir({ "hostile.policy.json": policyJson("hostile", `${hostile.origin}/modern`) });
    const controller = new AbortController();
    const scripted = scriptedIo([], {
      cwd: folder.path,
      signal: controller.signal,
      env: { SLUICE_STATE_KEY: KEY },
    });
    const ended = main(["serve", "--port", "0", "--policies", ".", "--heartbeat", "200ms"], scripted.io);
    try {
      const url = await waitFor(() => /listening on (http:\/\/\S+)\n/.exec(scripted.stderr())?.[1], ended);
      const leaving = new AbortController();
      // The upstream keeps its answer open with SSE comments of its own, which the front does not relay.
      const response = await fetch(hostileCall(url, "keepalive"), { signal: leaving.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      // Two beats come 400 ms in; the default heartbeat, 15 s, would not beat within the bound.
      const beats = ": heartbeat\n\n: heartbeat\n\n";
      assert.deepEqual([
        response.status,
        response.headers.get("content-type"),
        await readUpTo(reader, beats, 5_000),
      ], [
        200,
        "text/event-stream",
        beats,
      ]);
      leaving.abort();
      await within("the upstream request's end", hostile.waitFor("keepalive: closed by the client"), 10_000);
    } finally {
      controller.abort();
      await ended;
      await hostile.stop();
      folder.remove();
    }
    for (const wrong of ["99ms", "soon", ""]) {
      const refused = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: KEY } });
      assert.deepEqual(
        [
          await main(["serve", "--policies", ".", "--heartbeat", wrong], refused.io),
          refused.stdout(),
          refused.stderr(),
        ],
        [
          2,
          "",
          `sluice serve: flag "--heartbeat" must be a duration from "100ms" to "596h" (such as "15s") or "off", received "${wrong}"\n` +
          'Run "sluice serve --help" for usage.\n',
        ],
      );
    }
  });

  test("serve exits 1 when the port is taken, and 2 for a handler module that is not a handler", async () => {
    const taken = await listenAnywhere();
    try {
      const port = (taken.address() as { port: number }).port;
      const scripted = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: KEY } });
      assert.equal(await main(["serve", "--port", String(port), "--policies", "."], scripted.io), 1);
      assert.match(
        scripted.stderr(),
        new RegExp(
          `^sluice serve: cannot listen on "127\\.0\\.0\\.1" port "${port}": .+, expected a free port this process may bind\\n$`,
        ),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const broken = scriptedIo([], { cwd: dir.path });
    assert.equal(await main(["serve", "--policies", ".", "--handler", "broken-handler.ts"], broken.io), 2);
    assert.equal(
      broken.stderr(),
      'sluice serve: --handler "broken-handler.ts": Handler key "answer" is unknown: expected one of "sampling", ' +
        '"elicitation", "roots", "notification", "log", "authorize", "elicitationModes"\nRun "sluice serve --help" for usage.\n',
    );
  });
});

describe("sluice serve and SLUICE_STATE_KEY", () => {
  test("serve exits 2 without SLUICE_STATE_KEY, or with it empty, naming it and how to make one, and listens on nothing", async () => {
    for (const env of [{}, { SLUICE_STATE_KEY: "" }]) {
      const scripted = scriptedIo([], { cwd: dir.path, env });
      assert.deepEqual(
        [
          await main(["serve", "--port", "0", "--policies", "."], scripted.io),
          scripted.stdout(),
          scripted.stderr(),
        ],
        [
          2,
          "",
          'sluice serve: "SLUICE_STATE_KEY" is not set: expected at least 32 bytes of random data, the same on ' +
          'every instance, make one with `openssl rand -base64 32`\nRun "sluice serve --help" for usage.\n',
        ],
      );
    }
  });

  test("serve exits 2 with a state key that is short, patterned or of few distinct bytes, naming the problem", async () => {
    const cases: Array<[string, string]> = [
      ["too-short-key-0123456789", "must be at least 32 bytes of random data, received 24:"],
      ["k".repeat(32), "repeats a pattern: expected random bytes,"],
      ["0123456789abcdef0123456789abcdef", "repeats a pattern: expected random bytes,"],
      ["aaaaaaaabbbbbbbbccccccccdddddddde", 'has fewer than "8" distinct bytes: expected random bytes,'],
    ];
    for (const [key, problem] of cases) {
      const scripted = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: key } });
      assert.deepEqual(
        [
          await main(["serve", "--port", "0", "--policies", "."], scripted.io),
          scripted.stdout(),
          scripted.stderr(),
        ],
        [
          2,
          "",
          `sluice serve: "SLUICE_STATE_KEY" ${problem} make one with \`openssl rand -base64 32\`\n` +
          'Run "sluice serve --help" for usage.\n',
        ],
      );
    }
  });
});

describe("serveBanner()", () => {
  test("serveBanner() shows the routes at the first --allowed-hosts name when it listens on no loopback name, else where it listens", () => {
    const policies = [
      compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }),
    ];
    const lines = (listening: string, base: string, callers: string) => [
      `sluice front listening on ${listening}`,
      `  POST ${base}/mcp/demo  demo: modern, http`,
      `  GET  ${base}/servers   the servers, their capabilities and limits`,
      `  GET  ${base}/healthz   health check`,
      `  GET  ${base}/          the playground: call a tool and answer what the server asks, by hand`,
      `Callers: ${callers}`,
      "Stop with Ctrl-C (SIGINT) or SIGTERM.",
      "",
    ];
    const bearer = { bearer: [{ subject: "agents", secret: "agents-secret-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6F" }] };
    const banner = (url: string, allowedHosts?: readonly string[]) =>
      serveBanner(url, { policies, auth: bearer, ...(allowedHosts === undefined ? {} : { allowedHosts }) })
        .split("\n");
    const agents = 'bearer secrets of "agents"';
    assert.deepEqual([
      banner("http://0.0.0.0:8841", ["gate.example.com", "other.example.com"]),
      // An entry with a port is answered only on that port (a proxy's): the URL keeps it.
      banner("http://192.168.1.5:8841", ["Gate.Example.com:8443"]),
      banner("http://[::]:8841", ["[2001:db8::1]"]),
      // Loopback names are always answered: the listening URL is one a caller can use.
      banner("http://127.0.0.1:8841", ["gate.example.com"]),
      banner("http://127.0.0.1:8841"),
    ], [
      lines("http://0.0.0.0:8841", "http://gate.example.com:8841", agents),
      lines("http://192.168.1.5:8841", "http://gate.example.com:8443", agents),
      lines("http://[::]:8841", "http://[2001:db8::1]:8841", agents),
      lines("http://127.0.0.1:8841", "http://127.0.0.1:8841", agents),
      lines("http://127.0.0.1:8841", "http://127.0.0.1:8841", agents),
    ]);
  });
});

function listenAnywhere(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
