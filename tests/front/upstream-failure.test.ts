// What the front tells its caller when the upstream fails: the upstream's own error, the
// refusals of the gateway's checks, or -32010 with the class of the cause, whatever runtime's
// words the transport used, and never the URL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ClientError } from "../../src/errors.ts";
import {
  causeOf,
  notRun,
  signInFirst,
  UPSTREAM_UNAVAILABLE,
  upstreamFailure,
} from "../../src/front/upstream-failure.ts";
import { SignInRequiredError, UpstreamAuthError } from "../../src/upstream-auth-error.ts";

/** A value as the caller reads it: serialized and parsed again. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const transport = (message: string, details: ConstructorParameters<typeof ClientError>[2] = {}) =>
  new ClientError("transport", message, details);

describe("upstreamFailure()", () => {
  test("upstreamFailure() names the class and the server, never the URL (which may hold a credential)", () => {
    const failure = transport(
      'Server "docs": request to https://docs.example/mcp?token=s3cret failed: fetch failed (connect ECONNREFUSED 127.0.0.1:9)',
    );
    assert.deepEqual(upstreamFailure(failure, "docs"), {
      code: -32010,
      message: 'Upstream server "docs" is unavailable: connection refused',
      data: { serverId: "docs", cause: "connection_refused" },
    });
    assert.equal(UPSTREAM_UNAVAILABLE, -32010);
  });

  test("upstreamFailure() gives an HTTP error's status, and reads HTTP 404 as not found", () => {
    assert.deepEqual(upstreamFailure(transport("x", { data: { status: 503 } }), "s"), {
      code: -32010,
      message: 'Upstream server "s" is unavailable: HTTP error 503',
      data: { serverId: "s", cause: "http_error", status: 503 },
    });
    assert.equal(causeOf(transport("x", { data: { status: 404 } })), "not_found");
  });

  test("upstreamFailure() relays the upstream's own JSON-RPC error, its message and data sanitized", () => {
    const server = new ClientError("server", "ignored", {
      code: -32602,
      data: { uri: "test://missing\u202E", depth: [[["kept"]]] },
      cause: { code: -32602, message: 'Unknown resource\u202E "x"' },
    });
    // Compared as the caller reads them, on the wire (the sanitized copy's objects inherit nothing).
    assert.deepEqual(wire(upstreamFailure(server, "s")), {
      code: -32602,
      message: 'Unknown resource "x"',
      data: { uri: "test://missing", depth: [[["kept"]]] },
    });
    const bare = new ClientError("server", "ignored", {
      code: -32000,
      cause: { code: -32000, message: "Busy" },
    });
    assert.deepEqual(upstreamFailure(bare, "s"), { code: -32000, message: "Busy" });
    const missing = new ClientError("server", "ignored", {
      code: -32021,
      data: { requiredCapabilities: { roots: {} } },
      cause: { code: -32021, message: "Missing capability" },
    });
    assert.deepEqual(wire(upstreamFailure(missing, "s")), {
      code: -32021,
      message: "Missing capability",
      data: { requiredCapabilities: { roots: {} } },
    });
  });

  test("upstreamFailure() relays the code and words of the gateway's own refusals, and -32603 for a cancelled call", () => {
    const refused = new ClientError("policy", 'Input request "a" refused by policy: over budget', {
      code: -1,
    });
    assert.deepEqual(upstreamFailure(refused, "s"), {
      code: -1,
      message: 'Input request "a" refused by policy: over budget',
    });
    assert.deepEqual(upstreamFailure(new ClientError("cancelled", "x"), "s"), {
      code: -32603,
      message: "The call was cancelled",
    });
    // The policy's maxRounds, not the server being unavailable: it may keep asking.
    const rounds = 'Server "s" still asked for input after 10 rounds of tools/call (maxRounds 10)';
    assert.deepEqual(upstreamFailure(new ClientError("rounds_exceeded", rounds), "s"), {
      code: -32603,
      message: rounds,
    });
  });

  test("upstreamFailure() tells an input request unanswered within handlerTimeout by its words and -32603; a deadline of the call's own request is the upstream timing out", () => {
    const unanswered = new ClientError(
      "timeout",
      'Input request "a" (sampling/createMessage) from server "s": Handler timed out after 300ms',
      { code: -32603, serverId: "s" },
    );
    assert.deepEqual(upstreamFailure(unanswered, "s"), {
      code: -32603,
      message: 'Input request "a" (sampling/createMessage) from server "s": Handler timed out after 300ms',
    });
    const leg = new ClientError(
      "timeout",
      'Server "s": no response to tools/call within 1000 ms (callTimeout)',
      {
        serverId: "s",
      },
    );
    assert.deepEqual(upstreamFailure(leg, "s"), {
      code: -32010,
      message: 'Upstream server "s" is unavailable: timed out',
      data: { serverId: "s", cause: "timed_out" },
    });
  });
});

describe("signInFirst()", () => {
  test("signInFirst() names the gateway's sign-in page with -32010 sign_in_required, and nothing for a sign-in not started or another failure", () => {
    const url = "https://gw.example/oauth/start/st4te";
    const started = new SignInRequiredError({ server: "files", principal: "alice", url, state: "st4te" });
    const failure = transport('Server "files": sign-in required', { cause: started });
    assert.deepEqual(signInFirst(failure), {
      code: -32010,
      message:
        'Upstream server "files" needs you to sign in first: sign in at https://gw.example/oauth/start/st4te (or call one of its tools to be asked), then retry',
      data: { serverId: "files", cause: "sign_in_required", url },
    });
    assert.equal(signInFirst(new SignInRequiredError({ server: "files", principal: "alice" })), undefined);
    assert.equal(signInFirst(transport("fetch failed (connect ECONNREFUSED 127.0.0.1:1)")), undefined);
  });
});

describe("causeOf()", () => {
  test("causeOf() reads connection refused in the words of Node, Deno and Bun", () => {
    for (
      const message of [
        "fetch failed (connect ECONNREFUSED 127.0.0.1:1)",
        "error sending request: Connection refused (os error 111)",
        "Unable to connect. Is the computer able to access the url? (ConnectionRefused)",
      ]
    ) assert.equal(causeOf(transport(message)), "connection_refused", message);
  });

  test("causeOf() reads a name that does not resolve and a command that does not exist as not found", () => {
    for (
      const message of [
        "getaddrinfo ENOTFOUND nowhere.example",
        "dns error: failed to lookup address information",
        "initialize failed: command not found (ENOENT)",
      ]
    ) assert.equal(causeOf(transport(message)), "not_found", message);
  });

  test("causeOf() reads the other kinds: timeouts, protocol breaks and rounds, anything else", () => {
    assert.equal(causeOf(new ClientError("timeout", "no response within 60000 ms")), "timed_out");
    assert.equal(causeOf(new ClientError("protocol", "invalid result")), "protocol");
    assert.equal(causeOf(new ClientError("rounds_exceeded", "10 rounds")), "protocol");
    assert.equal(causeOf(transport("process exited with code 1")), "connection_failed");
    assert.equal(causeOf(new Error("not a ClientError")), "connection_failed");
  });

  test("notRun() is true only where the upstream cannot have run the request: refused connection, 503, 429, a sign-in not made", () => {
    const cases: Array<[string, unknown]> = [
      ["refused", transport("fetch failed (connect ECONNREFUSED 127.0.0.1:1)")],
      ["503", transport("x", { data: { status: 503 } })],
      ["429", transport("x", { data: { status: 429 } })],
      [
        "sign-in",
        transport("sign-in failed", { cause: new UpstreamAuthError("token endpoint answered 500") }),
      ],
      ["500", transport("x", { data: { status: 500 } })],
      ["502", transport("x", { data: { status: 502 } })],
      ["404", transport("x", { data: { status: 404 } })],
      ["reset", transport("fetch failed (other side closed)")],
      ["timeout", new ClientError("timeout", "no response within 60000 ms")],
      ["protocol", new ClientError("protocol", "invalid result")],
      ["server", new ClientError("server", "x", { code: -32000, cause: { code: -32000, message: "Busy" } })],
      ["other", new Error("not a ClientError")],
    ];
    assert.deepEqual(cases.filter(([, failure]) => notRun(failure)).map(([name]) => name), [
      "refused",
      "503",
      "429",
      "sign-in",
    ]);
  });
});
