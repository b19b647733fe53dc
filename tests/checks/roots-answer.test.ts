import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkRootsAnswer, normaliseFileUri } from "../../src/checks/roots-answer.ts";

describe("checkRootsAnswer()", () => {
  const check = checkRootsAnswer;

  test("sends only local file:// roots, resolved and deduplicated, with their names, saying which it dropped or rewrote", () => {
    assert.deepEqual(
      check({
        roots: [
          { uri: "file:///srv/project", name: "project" },
          { uri: "file://localhost/srv/project/../project" },
          { uri: "https://example.com/repo", name: "web" },
          { uri: "file://fileserver/share" },
          { uri: "file:///home/ada/./notes/%2e%2e/code" },
          { uri: "file:///srv/project/" },
          { uri: "file:///srv/other/" },
          { uri: "file:///srv/other" },
          { uri: "file:///srv//other//" },
        ],
      }),
      {
        ok: true,
        value: {
          roots: [
            { uri: "file:///srv/project", name: "project" },
            { uri: "file:///home/ada/code" },
            { uri: "file:///srv/other/" },
          ],
        },
        changes: [
          { field: "roots[1].uri", from: "file://localhost/srv/project/../project", to: null },
          { field: "roots[2].uri", from: "https://example.com/repo", to: null },
          { field: "roots[3].uri", from: "file://fileserver/share", to: null },
          {
            field: "roots[4].uri",
            from: "file:///home/ada/./notes/%2e%2e/code",
            to: "file:///home/ada/code",
          },
          { field: "roots[5].uri", from: "file:///srv/project/", to: null },
          { field: "roots[7].uri", from: "file:///srv/other", to: null },
          { field: "roots[8].uri", from: "file:///srv//other//", to: null },
        ],
      },
    );
  });

  test("refuses a malformed answer with -32603, naming what it received", () => {
    const refused = (reason: string) => ({
      ok: false,
      refusal: { code: -32603, message: `Roots answer refused: ${reason}` },
    });
    const root = 'expected "roots[1]" to be an object { uri: string, name?: string }, received';
    assert.deepEqual(
      [
        check({ roots: "file:///" }),
        check({}),
        check(null),
        check([]),
        check({ roots: [{ uri: "file:///a" }, { uri: 5 }] }),
        check({ roots: [{ uri: "file:///a" }, "file:///b"] }),
        check({ roots: [{ uri: "file:///a" }, { uri: "file:///b", name: 7 }] }),
      ],
      [
        refused('expected an object { roots: [...] }, received "roots" as a string'),
        refused('expected an object { roots: [...] }, received "roots" as nothing'),
        refused("expected an object { roots: [...] }, received null"),
        refused("expected an object { roots: [...] }, received an array"),
        refused(`${root} "uri" as a number`),
        refused(`${root} a string`),
        refused(`${root} "name" as a number`),
      ],
    );
  });

  test("refuses an answer that throws when read with -32603, naming only what was thrown", () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    const thrower = (): never => {
      throw new RangeError("secret detail");
    };
    const refused = (thrown: string) => ({
      ok: false,
      refusal: {
        code: -32603,
        message: `Roots answer refused: expected plain JSON, reading it threw ${thrown}`,
      },
    });
    assert.deepEqual(
      [
        check({
          get roots() {
            return thrower();
          },
        }),
        check({
          roots: [{ uri: "file:///a" }, {
            get uri() {
              return thrower();
            },
          }],
        }),
        check({
          roots: [{
            uri: "file:///a",
            get name() {
              return thrower();
            },
          }],
        }),
        check({ roots: proxy }),
        check(proxy),
      ],
      [
        refused("RangeError"),
        refused("RangeError"),
        refused("RangeError"),
        refused("TypeError"),
        refused("TypeError"),
      ],
    );
  });
});

describe("normaliseFileUri()", () => {
  test("resolves dot segments and normalises percent-encoding", () => {
    assert.deepEqual(
      [
        "file:///a/b/../c/./d",
        "file:///a/%7euser/%e2%82%ac",
        "file:///C:/Users/ada/../bob",
        "file:///../../etc",
        "FILE:///scratch",
        "file:///srv//project",
        "file:///a/../b//c",
      ].map(normaliseFileUri),
      [
        "file:///a/c/d",
        "file:///a/~user/%E2%82%AC",
        "file:///C:/Users/bob",
        "file:///etc",
        "file:///scratch",
        "file:///srv//project",
        "file:///b//c",
      ],
    );
  });

  test("drops other schemes, remote hosts (network paths too), queries, encoded separators, a % that starts no escape, whitespace and backslashes", () => {
    const dropped = [
      "http://example.com/",
      "file://evil.example/etc",
      "file:///a?x=1",
      "file:///a#top",
      "file:///a/%2F..%2Fetc",
      "file:///a/%5c..",
      "file:///a/%00",
      "file:///srv/x%",
      "file:///srv/x%zz",
      "file:///srv/%e",
      "file:///a b",
      "file:///a\tb",
      "file:\\\\server\\share",
      "file:////server/share/x",
      "file://///server/share",
      "file:///a/..//server/share",
      "file://localhost//server/share",
      "file:///.//server/share",
      "file:///%2e%2E//server/share",
      "file:////.",
      "file:///a/..//.",
      "file://localhost//C:/..",
      "file:///a\u202Eb",
      "/srv/project",
      "file:/srv/project",
      "not a uri",
    ];
    assert.deepEqual(dropped.map(normaliseFileUri), dropped.map(() => undefined));
  });
});
