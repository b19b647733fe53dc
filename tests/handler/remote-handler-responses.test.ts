import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { remoteHandler } from "../../src/handler/remote-handler.ts";
import { contextOf } from "./_remote-fixtures.ts";

describe("remoteHandler() reading responses", () => {
  const answering = (response: () => Response) =>
    remoteHandler({ fetch: () => Promise.resolve(response()) }, { kinds: ["roots"], maxResponseBytes: 64 });
  const json = { "content-type": "application/json" };
  const cases: [string, () => Response, string][] = [
    [
      "a non-JSON content type",
      () => new Response("hello", { headers: { "content-type": "text/plain" } }),
      'expected content type "application/json", received "text/plain"',
    ],
    [
      "no content type",
      () => new Response(new Uint8Array([123, 125])),
      'expected content type "application/json", received none',
    ],
    [
      "a body that is not JSON",
      () => new Response("{roots:", { headers: json }),
      "the response body is not valid JSON",
    ],
    [
      "a body that is not UTF-8",
      () => new Response(new Uint8Array([0x22, 0xff, 0x22]), { headers: json }),
      "the response body is not valid UTF-8",
    ],
    [
      "a streamed body over the limit",
      () => new Response(chunks(10, 10), { headers: json }),
      "the response body is larger than 64 bytes (maxResponseBytes)",
    ],
    [
      "an error status",
      () => new Response("bad gateway", { status: 502 }),
      'the endpoint answered HTTP 502, expected 200: "bad gateway"',
    ],
    [
      "another 2xx status",
      () => new Response("{}", { status: 201, headers: json }),
      'the endpoint answered HTTP 201, expected 200: "{}"',
    ],
  ];
  for (const [what, response, message] of cases) {
    test(`throws on ${what}`, async () => {
      await assert.rejects(async () => await answering(response).roots?.(contextOf({})), {
        message: `remoteHandler(): ${message}`,
      });
    });
  }

  test("passes an answer it cannot judge on to the chain unchanged (the chain's post-checks judge it)", async () => {
    const remote = answering(() => new Response('{"roots":"none","extra":1}', { headers: json }));
    assert.deepEqual(await remote.roots?.(contextOf({})), { roots: "none", extra: 1 });
  });

  test("throws on a body nested deeper than 64 levels, before parsing it", async () => {
    const deep = `{"roots":${"[".repeat(65)}${"]".repeat(65)}}`;
    const remote = remoteHandler({ fetch: () => Promise.resolve(new Response(deep, { headers: json })) }, {
      kinds: ["roots"],
    });
    await assert.rejects(async () => await remote.roots?.(contextOf({})), {
      message: "remoteHandler(): the response body nests more than 64 levels deep",
    });
    const shallow = `{"roots":${"[".repeat(63)}${"]".repeat(63)}}`;
    const fine = remoteHandler({ fetch: () => Promise.resolve(new Response(shallow, { headers: json })) }, {
      kinds: ["roots"],
    });
    assert.equal(JSON.stringify(await fine.roots?.(contextOf({}))), shallow);
  });

  test("throws naming the endpoint when the fetch itself fails", async () => {
    const remote = remoteHandler({ fetch: () => Promise.reject(new TypeError("fetch failed")) }, {
      kinds: ["roots"],
    });
    await assert.rejects(async () => await remote.roots?.(contextOf({})), {
      message: 'remoteHandler(): the request to the endpoint failed: "TypeError: fetch failed"',
    });
  });
});

describe("remoteHandler() options", () => {
  test("implements only the given kinds, and returns a frozen handler", () => {
    const handler = remoteHandler("https://handlers.example/github", { kinds: ["roots", "sampling"] });
    assert.deepEqual(Object.keys(handler).sort(), ["roots", "sampling"]);
    assert.equal(Object.isFrozen(handler), true);
    assert.deepEqual(Object.keys(remoteHandler(new URL("http://127.0.0.1:8787/"))), [
      "sampling",
      "elicitation",
      "roots",
    ]);
  });

  test("refuses a target that is not an http(s) URL without credentials or a fetcher", () => {
    const cases: [unknown, string][] = [
      ["handlers/github", 'remoteHandler(): the target must be an absolute URL, received "handlers/github"'],
      [
        "ftp://handlers.example/",
        'remoteHandler(): the target must be an "http:" or "https:" URL, received "ftp:"',
      ],
      [
        "https://u:p@handlers.example/",
        'remoteHandler(): the target URL must not hold credentials: send them with "headers"',
      ],
      [
        { fetch: "no" },
        'remoteHandler(): the target must be a URL or an object with a "fetch" method, received object',
      ],
      [null, 'remoteHandler(): the target must be a URL or an object with a "fetch" method, received null'],
    ];
    for (const [target, message] of cases) {
      assert.throws(() => remoteHandler(target as string), { name: "TypeError", message });
    }
    assert.throws(() => remoteHandler("https://h.example/", { url: "https://h.example/x" }), {
      name: "TypeError",
      message: 'remoteHandler(): "url" is for a fetcher target; this target is a URL already',
    });
  });

  test("refuses an http target whose host is not loopback, naming its origin and path, unless allowHttp is true", () => {
    const message = (shown: string) =>
      `remoteHandler(): the target must use https unless its host is loopback, received "${shown}" (set "allowHttp: true" to accept the risk)`;
    const cases: [string | URL, string][] = [
      ["http://handlers.corp.example.com/roots?token=s3cret", "http://handlers.corp.example.com/roots"],
      [new URL("http://10.0.0.2:8787/"), "http://10.0.0.2:8787/"],
      ["http://app.localhost/", "http://app.localhost/"],
      ["http://localhost.example.com/", "http://localhost.example.com/"],
      ["http://127.0.0.1.example.com/", "http://127.0.0.1.example.com/"],
      ["http://[::2]/", "http://[::2]/"],
    ];
    for (const [target, shown] of cases) {
      assert.throws(() => remoteHandler(target, { headers: { authorization: "Bearer s3cret" } }), {
        name: "TypeError",
        message: message(shown),
      });
      assert.throws(() => remoteHandler(target, { allowHttp: "yes" as never }), {
        name: "TypeError",
        message: message(shown),
      });
      assert.deepEqual(Object.keys(remoteHandler(target, { kinds: ["roots"], allowHttp: true })), ["roots"]);
    }
  });

  test("accepts http to a loopback host, and https to any host, without allowHttp", () => {
    const targets: (string | URL)[] = [
      "http://127.0.0.1:8787/",
      "http://127.1/",
      "http://127.255.0.9/handlers",
      "http://localhost:8787/",
      "http://LOCALHOST/",
      new URL("http://[::1]:8787/"),
      "http://[0:0:0:0:0:0:0:1]/",
      "https://handlers.corp.example.com/roots",
      "https://10.0.0.2/",
    ];
    for (const target of targets) {
      assert.deepEqual(Object.keys(remoteHandler(target, { kinds: ["roots"] })), ["roots"]);
    }
  });

  test("does not check a fetcher target, whatever its url", async () => {
    const urls: string[] = [];
    const remote = remoteHandler({
      fetch: (request) => (urls.push(request.url), Promise.resolve(Response.json({ roots: [] }))),
    }, { kinds: ["roots"], url: "http://handlers.corp.example.com/roots" });
    assert.deepEqual(await remote.roots?.(contextOf({})), { roots: [] });
    assert.deepEqual(urls, ["http://handlers.corp.example.com/roots"]);
  });

  test("refuses bad kinds, modes, headers and size limit", () => {
    const kinds =
      'remoteHandler(): "kinds" must be a non-empty list of "sampling", "elicitation" and "roots" without repeats';
    for (const bad of [[], ["roots", "roots"], ["tools"]]) {
      assert.throws(() => remoteHandler("https://h.example/", { kinds: bad as never }), {
        name: "TypeError",
        message: kinds,
      });
    }
    assert.throws(() => remoteHandler("https://h.example/", { elicitationModes: [] }), { name: "TypeError" });
    assert.throws(() => remoteHandler("https://h.example/", { headers: { "bad header": "x" } }), {
      name: "TypeError",
    });
    assert.throws(() => remoteHandler("https://h.example/", { maxResponseBytes: 1.5 }), {
      name: "RangeError",
      message: 'remoteHandler(): "maxResponseBytes" must be a positive integer, received "1.5"',
    });
  });
});

function chunks(count: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === count) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}
