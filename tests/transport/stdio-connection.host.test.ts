// createStdioConnection() against a real child process: the scripted legacy server
// (tests/peers/legacy-stdio-server.ts) run by Node with tsx, on Node, Deno and Bun.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import {
  type ConnectionClosed,
  ConnectionError,
  type LegacyConnection,
  type ServerMessage,
} from "../../src/transport/legacy-connection.ts";
import type { CompiledStdioTransport } from "../../src/policy/compile-policy.ts";
import type { JsonRpcErrorResponse, JsonRpcResultResponse } from "../../src/protocol/jsonrpc.ts";
import {
  createStdioConnection,
  type DroppedLine,
  type StdioConnectionOptions,
} from "../../src/transport/stdio-connection.ts";
import { awaitLine, nodeBinary, REPO_ROOT } from "../_support/modern-peer.ts";
import { eventually, within } from "../_support/eventually.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import { descendantsRunning, isRunning, killRunning } from "../_support/process-tree.ts";

type Answer = JsonRpcResultResponse | JsonRpcErrorResponse;

interface Harness {
  readonly connection: LegacyConnection;
  readonly messages: ServerMessage[];
  readonly stderr: string[];
  readonly dropped: DroppedLine[];
  readonly closes: ConnectionClosed[];
  /** Resolves once `ready()` holds after some event; rejects after 30 s naming `what`. */
  until(what: string, ready: () => boolean): Promise<void>;
  call(id: number, name: string, args?: object, signal?: AbortSignal): Promise<Answer>;
}

interface Setup {
  readonly scenario?: string;
  readonly env?: Record<string, string>;
  readonly command?: string;
  readonly options?: StdioConnectionOptions;
  /** Start the server through `sh -c` (see {@linkcode LAUNCHER}). */
  readonly launcher?: boolean;
}

/**
 * A launcher as `npx` or a script is one: `sh` runs the server as its child (the `echo` after it
 * keeps the shell from replacing itself with the server) and passes no signal on.
 */
const LAUNCHER = ["-c", '"$@"; echo "launcher: the server ended" >&2', "sh"];

function transportFor(setup: Setup): CompiledStdioTransport {
  const server = join("tests", "peers", "legacy-stdio-server.ts");
  const command = setup.command ?? nodeBinary();
  const args = ["--import", "tsx", server, setup.scenario ?? "default"];
  return {
    kind: "stdio",
    command: setup.launcher === true ? "sh" : command,
    args: setup.launcher === true ? [...LAUNCHER, command, ...args] : args,
    env: setup.env ?? {},
    cwd: REPO_ROOT,
  };
}

/** The pid the scripted server's `pid` tool answered with. */
function pidIn(answer: Answer): number {
  return ((answer as JsonRpcResultResponse).result.structuredContent as { pid: number }).pid;
}

/** Resolves once the process `pid` has ended; rejects after `ms`. */
function ended(pid: number, ms = 10_000): Promise<true> {
  return eventually(`the end of process ${pid}`, () => isRunning(pid) ? undefined : true, ms);
}

async function withServer(setup: Setup, body: (h: Harness) => Promise<void>): Promise<void> {
  const waiters = new Set<() => void>();
  const changed = () => waiters.forEach((check) => check());
  const messages: ServerMessage[] = [];
  const stderr: string[] = [];
  const dropped: DroppedLine[] = [];
  const closes: ConnectionClosed[] = [];
  const connect = createStdioConnection(transportFor(setup), {
    ...setup.options,
    onDroppedLine: (line) => (dropped.push(line), changed()),
  });
  const connection = connect({
    onServerMessage: (message) => (messages.push(message), changed()),
    onClose: (closed) => (closes.push(closed), changed()),
    onStderr: (line) => (stderr.push(line), changed()),
  });
  const until = (what: string, ready: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => (waiters.delete(check), reject(new Error(`timed out waiting for ${what}`))),
        30_000,
      );
      const check = () => {
        if (!ready()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const call = (id: number, name: string, args: object = {}, signal = new AbortController().signal) =>
    connection.request({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, {
      signal,
    });
  try {
    await body({ connection, messages, stderr, dropped, closes, until, call });
  } finally {
    await connection.close();
  }
}

const result = (id: number, data: object): Answer => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data },
});

const never = () => new AbortController().signal;

describe("createStdioConnection()", () => {
  test("request() resolves with the exact responses to initialize and a tools/call", async () => {
    await withServer({}, async (h) => {
      const initialize = await h.connection.request({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }, { signal: never() });
      assert.deepEqual(initialize, {
        jsonrpc: "2.0",
        id: 1,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: { listChanged: false }, logging: {} },
          serverInfo: { name: "legacy-stdio-server", version: "1.0.0" },
        },
      });
      h.connection.negotiated("2025-11-25");
      await h.connection.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
      assert.deepEqual(
        await h.call(2, "echo", { text: "héllo\nworld" }),
        result(2, { text: "héllo\nworld" }),
      );
      assert.deepEqual(
        await h.call(3, "received"),
        result(3, {
          initialize: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
          notifications: [{ jsonrpc: "2.0", method: "notifications/initialized" }],
          responses: [],
        }),
      );
      assert.deepEqual(h.dropped, []);
    });
  });

  test("a server request reaches onServerMessage and respond() answers it", async () => {
    await withServer({}, async (h) => {
      const pending = h.call(1, "ask", { method: "elicitation/create" });
      await h.until("the elicitation", () => h.messages.length === 1);
      assert.deepEqual(h.messages, [{
        message: {
          jsonrpc: "2.0",
          id: 0,
          method: "elicitation/create",
          params: {
            message: "Please confirm",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
          },
        },
        related: undefined,
      }]);
      await h.connection.respond({
        jsonrpc: "2.0",
        id: 0,
        result: { action: "accept", content: { ok: true } },
      });
      assert.deepEqual(
        await pending,
        result(1, { answers: [{ id: 0, result: { action: "accept", content: { ok: true } } }] }),
      );
    });
  });

  test("three concurrent server pings answered in reverse order reach the server under their ids", async () => {
    await withServer({}, async (h) => {
      const pending = h.call(1, "ask", { method: "ping", count: 3 });
      await h.until("three pings", () => h.messages.length === 3);
      assert.deepEqual(
        h.messages.map((m) => m.message),
        [0, 1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "ping" })),
      );
      await h.connection.respond({ jsonrpc: "2.0", id: 2, result: {} });
      await h.connection.respond({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "no" } });
      await h.connection.respond({ jsonrpc: "2.0", id: 0, result: {} });
      assert.deepEqual(
        await pending,
        result(1, {
          answers: [{ id: 0, result: {} }, { id: 1, error: { code: -32603, message: "no" } }, {
            id: 2,
            result: {},
          }],
        }),
      );
    });
  });

  test("notifications arrive in order, before the response that followed them", async () => {
    await withServer({}, async (h) => {
      assert.deepEqual(await h.call(1, "notify", { count: 4 }), result(1, { sent: 4 }));
      assert.deepEqual(
        h.messages,
        [1, 2, 3, 4].map((n) => ({
          message: {
            jsonrpc: "2.0",
            method: "notifications/message",
            params: { level: "info", logger: "legacy-stdio-server", data: { n } },
          },
          related: undefined,
        })),
      );
    });
  });

  test("stderr lines reach onStderr one by one, a long one cut at maxStderrLineBytes", async () => {
    await withServer({ options: { maxStderrLineBytes: 1000 } }, async (h) => {
      const lines = ["first", "second\r", "", "é".repeat(600), "last"];
      assert.deepEqual(await h.call(1, "stderr", { lines }), result(1, { written: 5 }));
      await h.until("five stderr lines", () => h.stderr.length === 5);
      assert.deepEqual(h.stderr, ["first", "second", "", "é".repeat(500), "last"]);
    });
  });

  test("malformed lines, batches and responses to unknown ids are dropped and reported; the rest goes on", async () => {
    await withServer({}, async (h) => {
      const progress =
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}';
      const lines = [
        "not json",
        '[{"jsonrpc":"2.0","method":"notifications/message"}]',
        '{"jsonrpc":"2.0","id":99,"result":{}}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}',
        '{"jsonrpc":"1.0","method":"x"}',
        "   ",
        progress + "\r",
      ];
      assert.deepEqual(await h.call(1, "raw", { lines }), result(1, { written: 8 }));
      assert.deepEqual(await h.call(2, "raw", { lines: ["/w=="], base64: true }), result(2, { written: 1 }));
      assert.deepEqual(h.dropped, [
        { reason: "not_json", bytes: lines[0]?.length, detail: "expected JSON text" },
        { reason: "batch", bytes: lines[1]?.length, detail: "expected one message, not a batch" },
        {
          reason: "unknown_response",
          bytes: lines[2]?.length,
          detail: "response to id 99, expected a pending id",
        },
        {
          reason: "unknown_response",
          bytes: lines[3]?.length,
          detail: "response to id null, expected a pending id",
        },
        {
          reason: "unknown_response",
          bytes: lines[4]?.length,
          detail: "response to id null, expected a pending id",
        },
        {
          reason: "invalid_message",
          bytes: lines[5]?.length,
          detail: '$.jsonrpc: expected "2.0", received "1.0"',
        },
        { reason: "not_utf8", bytes: 1, detail: "expected UTF-8 text" },
      ]);
      assert.deepEqual(h.messages, [{ message: JSON.parse(progress), related: undefined }]);
      assert.deepEqual(h.closes, []);
    });
  });

  test("a malformed response to a pending request fails it at once as the server breaking the protocol, not at its timeout; the connection goes on", async () => {
    await withServer({}, async (h) => {
      const bad = '{"jsonrpc":"2.0","id":3,"result":null}';
      await assert.rejects(
        h.call(3, "raw", { lines: [bad] }),
        connectionError(
          "protocol",
          'Request 3 "tools/call": invalid response: $.result: expected Object, received null',
        ),
      );
      assert.deepEqual(await h.call(4, "raw", { lines: [] }), result(4, { written: 0 }));
      // The bad line, then the tool's own answer to id 3, which no request waits for any more.
      assert.deepEqual(h.dropped, [
        { reason: "invalid_message", bytes: bad.length, detail: "$.result: expected Object, received null" },
        { reason: "unknown_response", bytes: 122, detail: "response to id 3, expected a pending id" },
      ]);
      assert.deepEqual(h.closes, []);
    });
  });

  test("a stdout line of maxMessageBytes is read; one byte more fails the connection and kills the server", async () => {
    // graceMs 30 s: a close() that went through the grace steps would take that long.
    await withServer({ options: { maxMessageBytes: 65536, graceMs: 30_000 } }, async (h) => {
      assert.deepEqual(await h.call(1, "flood", { bytes: 65536 }), result(1, { flooded: 65536 }));
      assert.deepEqual(h.dropped, [{ reason: "not_json", bytes: 65536, detail: "expected JSON text" }]);
      const reason = "stdout line is larger than 65536 bytes (maxMessageBytes)";
      await assert.rejects(
        h.call(2, "flood", { bytes: 4 * 1024 * 1024 }),
        connectionError("closed", `Request 2 "tools/call" got no response: the connection ended (${reason})`),
      );
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
      const started = performance.now();
      await h.connection.close();
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 15_000, `closed in ${elapsed} ms: the killed server needs no graceMs`);
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
    });
  });

  test("a crash mid-call rejects every pending request with kind closed and the exit code", async () => {
    await withServer({}, async (h) => {
      const sleeping = h.call(1, "sleep", { ms: 60_000 });
      const crashing = h.call(2, "crash", { code: 7, stdout: '{"jsonrpc":"2.0"' });
      const reason = "process exited with code 7";
      await assert.rejects(
        sleeping,
        connectionError("closed", `Request 1 "tools/call" got no response: the connection ended (${reason})`),
      );
      await assert.rejects(
        crashing,
        connectionError("closed", `Request 2 "tools/call" got no response: the connection ended (${reason})`),
      );
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
      assert.deepEqual(h.dropped, [{
        reason: "unterminated",
        bytes: 16,
        detail: "stdout ended inside a line",
      }]);
      await assert.rejects(
        h.call(3, "echo"),
        connectionError("closed", `Request 3 "tools/call" failed: the connection ended (${reason})`),
      );
      await assert.rejects(
        h.connection.notify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        connectionError(
          "closed",
          `Notification "notifications/initialized" failed: the connection ended (${reason})`,
        ),
      );
    });
  });

  test("a server that closes its stdout and keeps running fails every pending request about 1 s later, naming it", async () => {
    await withServer({}, async (h) => {
      const pid = pidIn(await h.call(1, "pid"));
      const sleeping = h.call(2, "sleep", { ms: 60_000 });
      const started = performance.now();
      const closing = h.call(3, "close_stdout");
      const reason = "the server closed its stdout and kept running";
      // Without this, both would wait for their responses until the caller's timeout.
      await within(
        "the pending requests to fail",
        Promise.all([
          assert.rejects(
            sleeping,
            connectionError(
              "closed",
              `Request 2 "tools/call" got no response: the connection ended (${reason})`,
            ),
          ),
          assert.rejects(
            closing,
            connectionError(
              "closed",
              `Request 3 "tools/call" got no response: the connection ended (${reason})`,
            ),
          ),
        ]),
        10_000,
      );
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 990, `failed ${elapsed} ms after the call, expected 1 s (EXIT_DRAIN_MS) after it`);
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
      // The connection killed it (SIGKILL), as when it cannot read a line.
      assert.equal(await ended(pid), true);
    });
  });

  test("a server whose grandchild holds its pipes open still ends the connection about 1 s after it exits", async () => {
    await withServer({}, async (h) => {
      // The grandchild lives 60 s (killed below): the connection must end long before.
      const answer = await h.call(1, "orphan", { ms: 60_000 }) as JsonRpcResultResponse;
      const { pid } = answer.result.structuredContent as { pid: number };
      try {
        const started = performance.now();
        await h.until("onClose", () => h.closes.length === 1);
        const elapsed = performance.now() - started;
        assert.ok(
          elapsed >= 900 && elapsed < 30_000,
          `ended ${elapsed} ms after the answer, expected 1 s (EXIT_DRAIN_MS) plus the machine's delays`,
        );
        assert.deepEqual(h.closes, [{ kind: "failed", reason: "process exited with code 0" }]);
      } finally {
        process.kill(pid, "SIGKILL");
      }
    });
  });

  test("a request written to a server that closed its stdin and then exits fails naming the exit, not the write's EPIPE", async () => {
    await withServer({ scenario: "close-stdin" }, async (h) => {
      await h.until("stdin closed", () => h.stderr.includes("stdin closed"));
      const pid = Number(/^pid (\d+)$/.exec(h.stderr[0] ?? "")?.[1]);
      const reason = "process exited with code 3";
      const call = h.call(1, "echo");
      // The server exits once the request is on its way, not on a timer of its own: one that ran
      // out before this test wrote (a busy machine) failed the request as sent to a closed
      // connection.
      process.kill(pid, "SIGTERM");
      await assert.rejects(
        call,
        connectionError("closed", `Request 1 "tools/call" got no response: the connection ended (${reason})`),
      );
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
    });
  });

  test("a server that dies on start: its stderr first, then onClose failed with the exit code", async () => {
    await withServer({ scenario: "crash-on-start" }, async (h) => {
      await h.until("onClose", () => h.closes.length === 1);
      assert.deepEqual(h.stderr, ["crashing on start"]);
      assert.deepEqual(h.closes, [{ kind: "failed", reason: "process exited with code 3" }]);
    });
  });

  test("a missing command closes the connection as failed: command not found", async () => {
    await withServer({ command: "sluice-no-such-command" }, async (h) => {
      await h.until("onClose", () => h.closes.length === 1);
      const reason =
        `could not start "sluice-no-such-command": command or folder ${JSON.stringify(REPO_ROOT)} ` +
        "not found (ENOENT)";
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
      await assert.rejects(
        h.call(1, "echo"),
        connectionError("closed", `Request 1 "tools/call" failed: the connection ended (${reason})`),
      );
      await h.connection.close();
      assert.deepEqual(h.closes, [{ kind: "failed", reason }]);
    });
  });

  test("close() ends a well-behaved server by closing its stdin, within graceMs", async () => {
    // A generous graceMs: a busy machine may take seconds to end a process. The reason (an exit
    // code, no signal) shows that closing stdin was enough.
    await withServer({ options: { graceMs: 30_000 } }, async (h) => {
      assert.deepEqual(await h.call(1, "echo", { text: "ready" }), result(1, { text: "ready" }));
      const reason = "closed by the client: process exited with code 0";
      const sleeping = assert.rejects(
        h.call(2, "sleep", { ms: 60_000 }),
        connectionError("closed", `Request 2 "tools/call" got no response: the connection ended (${reason})`),
      );
      const closing = h.connection.close();
      assert.equal(h.connection.close(), closing);
      await closing;
      await sleeping;
      assert.deepEqual(h.closes, [{ kind: "closed", reason }]);
    });
  });

  test("close() sends SIGTERM after graceMs to a server that outlives its stdin", async () => {
    await withServer({ scenario: "linger", options: { graceMs: 500 } }, async (h) => {
      assert.deepEqual(await h.call(1, "echo", { text: "ready" }), result(1, { text: "ready" }));
      const started = performance.now();
      await h.connection.close();
      const elapsed = performance.now() - started;
      // At least graceMs; the upper bound only catches a close() that hangs (the signal in the
      // reason shows SIGTERM, not SIGKILL, ended it).
      assert.ok(
        elapsed >= 490 && elapsed < 15_000,
        `closed in ${elapsed} ms, expected graceMs (500) and the time the process takes to end`,
      );
      assert.deepEqual(h.closes, [{
        kind: "closed",
        reason: "closed by the client: process was killed by signal SIGTERM",
      }]);
    });
  });

  test("close() sends SIGKILL after another graceMs to a server that ignores SIGTERM", async () => {
    await withServer({ scenario: "ignore-sigterm", options: { graceMs: 500 } }, async (h) => {
      assert.deepEqual(await h.call(1, "echo", { text: "ready" }), result(1, { text: "ready" }));
      const started = performance.now();
      await h.connection.close();
      const elapsed = performance.now() - started;
      assert.ok(
        elapsed >= 990 && elapsed < 15_000,
        `closed in ${elapsed} ms, expected 2 × graceMs (1000) and the time the process takes to end`,
      );
      assert.deepEqual(h.closes, [{
        kind: "closed",
        reason: "closed by the client: process was killed by signal SIGKILL",
      }]);
    });
  });

  test("close() through a launcher (sh -c) ends the server it started: SIGTERM goes to the whole process group", async () => {
    let pid = 0;
    try {
      await withServer({ scenario: "linger", launcher: true, options: { graceMs: 500 } }, async (h) => {
        pid = pidIn(await h.call(1, "pid"));
        assert.equal(isRunning(pid), true);
        await h.connection.close();
        assert.equal(await ended(pid), true);
        // The launcher, killed by SIGTERM too, never got to its echo.
        assert.deepEqual(h.closes, [{
          kind: "closed",
          reason: "closed by the client: process was killed by signal SIGTERM",
        }]);
        assert.deepEqual(h.stderr, []);
      });
    } finally {
      killRunning([pid]);
    }
  });

  test("close() through a launcher sends SIGKILL to the group after another graceMs when the server ignores SIGTERM", async () => {
    let pid = 0;
    try {
      await withServer(
        { scenario: "ignore-sigterm", launcher: true, options: { graceMs: 500 } },
        async (h) => {
          pid = pidIn(await h.call(1, "pid"));
          const started = performance.now();
          await h.connection.close();
          const elapsed = performance.now() - started;
          assert.equal(await ended(pid), true);
          // The launcher exits on SIGTERM; the server, which holds the pipes, waits for SIGKILL.
          assert.ok(
            elapsed >= 990 && elapsed < 15_000,
            `closed in ${elapsed} ms, expected 2 × graceMs (1000) and the time the server takes to end`,
          );
          assert.deepEqual(h.closes, [{
            kind: "closed",
            reason: "closed by the client: process was killed by signal SIGTERM",
          }]);
        },
      );
    } finally {
      killRunning([pid]);
    }
  });

  test("close() ends server-everything started by npx behind sh -c: no process of it is left", async () => {
    const closes: ConnectionClosed[] = [];
    const asked: string[] = [];
    const connection = createStdioConnection({
      kind: "stdio",
      command: "sh",
      args: [...LAUNCHER, "npx", "--no-install", "mcp-server-everything", "stdio"],
      env: {},
      cwd: REPO_ROOT,
    }, { graceMs: 500 })({
      onServerMessage: ({ message }) => void ("method" in message && asked.push(message.method)),
      onClose: (closed) => closes.push(closed),
    });
    let started: number[] = [];
    try {
      const answer = await connection.request({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { roots: {} },
          clientInfo: { name: "t", version: "1" },
        },
      }, { signal: never() });
      assert.equal((answer as JsonRpcResultResponse).result.protocolVersion, "2025-11-25");
      // Left unanswered, its roots/list keeps the server running after its stdin ends, as it
      // does under `sluice tools everything`.
      await connection.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
      await eventually("the roots/list request", () => asked.includes("roots/list") || undefined);
      // sh, npx (npm exec), the shell npx runs the bin with, and the server: the server outlives
      // its stdin, and only the sh that close() signals directly would get SIGTERM.
      started = descendantsRunning("mcp-server-everything");
      assert.ok(started.length >= 3, `running: ${JSON.stringify(started)}`);
      await connection.close();
      await eventually(
        "every process of server-everything to end",
        () => started.every((pid) => !isRunning(pid)) ? true : undefined,
        10_000,
      );
      assert.deepEqual(started.filter(isRunning), []);
      assert.deepEqual(closes, [{
        kind: "closed",
        reason: "closed by the client: process was killed by signal SIGTERM",
      }]);
    } finally {
      await connection.close();
      killRunning(started);
    }
  });

  test("a process that exits without close() sends its servers' groups SIGTERM: the server behind a launcher ends too", async () => {
    // The script opens a connection through sh -c to the lingering server, prints the server's
    // pid and calls process.exit(130), as the CLI's second Ctrl-C does; on this test's runtime.
    const script = join("tests", "transport", "_stdio-exit-script.ts");
    const runtime = process.versions.deno !== undefined
      ? ["run", "-A", script]
      : process.versions.bun !== undefined
      ? [script]
      : ["--import", "tsx", script];
    const child = spawn(process.execPath, [...runtime, nodeBinary()], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let pid = 0;
    try {
      pid = Number(await awaitLine(child, "stdout", /^server (\d+)$/));
      assert.equal(await exited, 130);
      assert.equal(await ended(pid), true);
    } finally {
      killRunning([pid]);
      child.kill("SIGKILL");
    }
  });

  test("a server that stops reading stdin: writes fail once maxPendingBytes would be exceeded", async () => {
    const cap = 512 * 1024;
    await withServer({ options: { maxPendingBytes: cap } }, async (h) => {
      assert.deepEqual(await h.call(1, "stop_reading"), result(1, { reading: false }));
      const message = {
        jsonrpc: "2.0" as const,
        method: "notifications/message",
        params: { data: "y".repeat(65536) },
      };
      const size = JSON.stringify(message).length + 1;
      const outcomes: Promise<string>[] = [];
      while (h.closes.length === 0 && outcomes.length < 1000) {
        outcomes.push(h.connection.notify(message).then(() => "written", (error: Error) => error.message));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const reason = h.closes[0]?.reason ?? "";
      const waiting = Number(
        /^the server stopped reading its stdin: (\d+) bytes would wait, expected at most 524288$/.exec(reason)
          ?.[1],
      );
      assert.ok(waiting > cap && waiting <= cap + size, `reason "${reason}"`);
      assert.equal(h.closes[0]?.kind, "failed");
      const settled = await Promise.all(outcomes);
      const written = settled.filter((outcome) => outcome === "written").length;
      assert.ok(
        written * size < 1024 * 1024,
        `${written} messages reached the pipe, expected less than 1 MiB`,
      );
      assert.ok(
        outcomes.length * size <= cap + written * size + size,
        `${outcomes.length} writes were attempted`,
      );
      assert.equal(
        settled.at(-1),
        `Notification "notifications/message" failed: the connection ended (${reason})`,
      );
    });
  });

  test("notify() and respond() to a server that stops reading stdin, its pipe full, reject after callTimeoutMs with kind aborted", async () => {
    const time = new FakeTime();
    await withServer({ options: { callTimeoutMs: 1000, timers: time } }, async (h) => {
      assert.deepEqual(await h.call(1, "stop_reading"), result(1, { reading: false }));
      const outcome = (sent: Promise<void>) =>
        sent.then(
          () => "written",
          (error: ConnectionError) => [error.kind, error.message, String(error.cause)],
        );
      const big = {
        jsonrpc: "2.0" as const,
        method: "notifications/message",
        params: { data: "y".repeat(512 * 1024) },
      };
      const written = [
        outcome(h.connection.notify(big)),
        outcome(h.connection.notify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" })),
        outcome(h.connection.respond({ jsonrpc: "2.0", id: "a1", result: {} })),
      ];
      const late = new Promise((resolve) => time.setTimeout(() => resolve("pending after 5 s"), 5000));
      const deadline = "DeadlineReached: callTimeout of 1000 ms reached";
      assert.deepEqual([await drive(time, Promise.race([Promise.all(written), late])), time.now()], [
        [
          ["aborted", 'Notification "notifications/message" was aborted before it was flushed', deadline],
          [
            "aborted",
            'Notification "notifications/roots/list_changed" was aborted before it was flushed',
            deadline,
          ],
          ["aborted", 'Response to "a1" was aborted before it was flushed', deadline],
        ],
        1000,
      ]);
    });
  });

  test("the server sees only the inherited allow-list and transport.env, never other variables", async () => {
    const saved = { secret: process.env.SLUICE_STDIO_SECRET, shell: process.env.SHELL };
    process.env.SLUICE_STDIO_SECRET = "hunter2";
    process.env.SHELL = "() { :; }";
    try {
      await withServer({ env: { SLUICE_EXTRA: "yes", TERM: "dumb" } }, async (h) => {
        const expected: Record<string, string> = { SLUICE_EXTRA: "yes", TERM: "dumb" };
        for (const name of ["HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "TMPDIR", "USER"]) {
          const value = process.env[name];
          if (value !== undefined) expected[name] = value;
        }
        const answer = await h.call(1, "env") as JsonRpcResultResponse;
        assert.deepEqual(answer.result.structuredContent, { env: expected });
      });
    } finally {
      restoreEnv("SLUICE_STDIO_SECRET", saved.secret);
      restoreEnv("SHELL", saved.shell);
    }
  });

  test("an abort rejects the request with kind aborted at once; its late response is dropped", async () => {
    await withServer({}, async (h) => {
      const controller = new AbortController();
      const pending = h.call(1, "sleep", { ms: 100 }, controller.signal);
      controller.abort();
      await assert.rejects(
        pending,
        connectionError("aborted", 'Request 1 "tools/call" was aborted before its response arrived'),
      );
      await assert.rejects(
        h.call(2, "echo", {}, AbortSignal.abort()),
        connectionError("aborted", 'Request 2 "tools/call" was aborted before it was sent'),
      );
      await h.until("the late response", () => h.dropped.length === 1);
      const late = JSON.stringify(result(1, { slept: 100 })).length;
      assert.deepEqual(h.dropped, [{
        reason: "unknown_response",
        bytes: late,
        detail: "response to id 1, expected a pending id",
      }]);
      const first = h.call(3, "sleep", { ms: 50 });
      await assert.rejects(h.call(3, "echo"), {
        message: 'Request 3 "tools/call" reuses the id of a pending request, expected a fresh id',
      });
      assert.deepEqual(await first, result(3, { slept: 50 }));
    });
  });

  test("the scripted server's session tools: cancel_after, idle_sampling, ask with timeoutMs, received", async () => {
    await withServer({}, async (h) => {
      assert.deepEqual(
        await h.call(1, "cancel_after", { ms: 0, method: "roots/list", waitMs: 20 }),
        result(1, { requestId: 0, answer: null }),
      );
      assert.deepEqual(h.messages.map((m) => m.message), [
        { jsonrpc: "2.0", id: 0, method: "roots/list" },
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 0, reason: "no longer needed" },
        },
      ]);
      assert.deepEqual(await h.call(2, "idle_sampling"), result(2, { scheduled: true }));
      await h.until("the idle sampling request", () => h.messages.length === 3);
      assert.deepEqual(h.messages[2], {
        message: {
          jsonrpc: "2.0",
          id: 1,
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "Hello" } }], maxTokens: 100 },
        },
        related: undefined,
      });
      const sampled = {
        jsonrpc: "2.0" as const,
        id: 1,
        result: { role: "assistant", content: { type: "text", text: "Hi" }, model: "m" },
      };
      await h.connection.respond(sampled);
      assert.deepEqual(
        await h.call(3, "ask", { method: "ping", timeoutMs: 20 }),
        result(3, { answers: [{ id: 2, timeout: true }] }),
      );
      assert.deepEqual(
        await h.call(4, "received"),
        result(4, { initialize: null, notifications: [], responses: [sampled] }),
      );
    });
  });

  test("createStdioConnection() refuses a limit that is not a positive integer", () => {
    const transport = transportFor({});
    assert.throws(() => createStdioConnection(transport, { maxMessageBytes: 0 }), {
      name: "RangeError",
      message: 'createStdioConnection(): "maxMessageBytes" must be a positive integer, received "0"',
    });
    assert.throws(() => createStdioConnection(transport, { maxPendingBytes: 1.5 }), {
      name: "RangeError",
      message: 'createStdioConnection(): "maxPendingBytes" must be a positive integer, received "1.5"',
    });
    assert.throws(() => createStdioConnection(transport, { maxJsonDepth: 0 }), {
      name: "RangeError",
      message: 'createStdioConnection(): "maxJsonDepth" must be a positive integer, received "0"',
    });
    assert.throws(() => createStdioConnection(transport, { graceMs: -1 }), {
      name: "RangeError",
      message: 'createStdioConnection(): "graceMs" must be a non-negative integer, received "-1"',
    });
    assert.throws(() => createStdioConnection(transport, { callTimeoutMs: 0 }), {
      name: "RangeError",
      message: 'createStdioConnection(): "callTimeoutMs" must be a positive integer, received "0"',
    });
  });
});

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

function connectionError(kind: ConnectionError["kind"], message: string): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof ConnectionError, `expected a ConnectionError, got ${String(error)}`);
    assert.deepEqual({ kind: error.kind, message: error.message }, { kind, message });
    return true;
  };
}
