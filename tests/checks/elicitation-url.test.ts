import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createElicitationUrlCheck } from "../../src/checks/elicitation-url.ts";
import cases from "../fixtures/elicitation-urls.json" with { type: "json" };

interface UrlCase {
  readonly url: string;
  readonly expected: string;
  readonly note: string;
  readonly href?: string;
  readonly host?: string;
  readonly idn?: boolean;
}

const table: readonly UrlCase[] = cases;
const defaults = createElicitationUrlCheck();

/**
 * Names ending in a digit that `isIpHost()` once took for IP addresses (every host whose last
 * character was a digit): they are domain names, refused as private hosts.
 */
const DIGIT_ENDED_NAMES: readonly string[] = [
  "https://example.co¹/",
  "https://1e100/",
  "https://web1/",
  "https://db01.internal2/",
];

function refusal(url: string, reason: string) {
  return { ok: false, refusal: { code: -32602, message: `Elicitation URL "${url}" refused: ${reason}` } };
}

function accepted(href: string, host: string, idn: boolean, originMismatch: boolean, extra: object = {}) {
  return {
    ok: true,
    value: { params: { ...extra, url: href }, context: { url: href, host, idn, originMismatch } },
  };
}

describe(`createElicitationUrlCheck() with default options: the URL table of ${table.length} cases`, () => {
  test(`the table holds ${table.length} cases (at least 320), both accepted and refused, URLs and notes unique`, () => {
    assert.ok(table.length >= 320, `${table.length} cases`);
    assert.ok(table.some((entry) => entry.expected === "accept"));
    assert.ok(table.some((entry) => entry.expected !== "accept"));
    assert.equal(new Set(table.map((entry) => entry.url)).size, table.length);
    assert.equal(new Set(table.map((entry) => entry.note)).size, table.length);
    for (const url of DIGIT_ENDED_NAMES) assert.ok(table.some((entry) => entry.url === url), url);
  });

  for (const [index, entry] of table.entries()) {
    const verb = entry.expected === "accept" ? "accepts" : "refuses";
    const expected = entry.expected === "accept"
      ? accepted(entry.href ?? "", entry.host ?? "", entry.idn ?? false, true)
      : { ok: false, refusal: { code: -32602, message: entry.expected } };
    const run = () => defaults.check({ url: entry.url }, undefined);
    test(`#${index + 1} ${verb} ${entry.note}`, () => {
      assert.deepEqual(run(), expected);
    });
  }
});

describe("createElicitationUrlCheck() params and origin", () => {
  test("keeps the other params, rewrites url to the href, and never mutates the input", () => {
    const params = JSON.parse(
      '{"mode":"url","message":"Sign in","elicitationId":"e1","__proto__":{"x":1},"url":"https://Example.com"}',
    );
    const before = JSON.stringify(params);
    const verdict = defaults.check(params, "https://example.com");
    assert.equal(JSON.stringify(params), before);
    assert.equal(verdict.ok && verdict.value.params !== params, true);
    const expected = JSON.parse(
      '{"mode":"url","message":"Sign in","elicitationId":"e1","__proto__":{"x":1},"url":"https://example.com/"}',
    );
    assert.deepEqual(verdict, {
      ok: true,
      value: {
        params: expected,
        context: { url: "https://example.com/", host: "example.com", idn: false, originMismatch: false },
      },
    });
  });

  test("originMismatch is false for the same origin, whatever the server origin's spelling", () => {
    for (const origin of ["https://example.com", "https://EXAMPLE.com:443", "https://example.com/mcp"]) {
      assert.deepEqual(
        defaults.check({ url: "https://example.com/a" }, origin),
        accepted("https://example.com/a", "example.com", false, false),
      );
    }
  });

  test("originMismatch is true for another host, port or scheme, or an unknown origin", () => {
    const url = "https://example.com/a";
    for (
      const origin of [
        "https://login.example.com",
        "https://example.com:8443",
        "http://example.com",
        "nonsense",
        undefined,
      ]
    ) {
      assert.deepEqual(defaults.check({ url }, origin), accepted(url, "example.com", false, true));
    }
  });

  test("one check asked with server origins in turn answers each as if it were the only one", () => {
    const check = createElicitationUrlCheck();
    const url = "https://example.com/a";
    const turns: Array<[string | undefined, boolean]> = [
      ["https://EXAMPLE.com:443", false],
      ["https://login.example.com", true],
      ["https://EXAMPLE.com:443", false],
      ["nonsense", true],
      ["https://example.com/mcp", false],
      [undefined, true],
      ["https://example.com:8443", true],
      ["https://example.com/mcp", false],
    ];
    for (const [origin, mismatch] of turns) {
      assert.deepEqual(
        check.check({ url }, origin),
        accepted(url, "example.com", false, mismatch),
        String(origin),
      );
    }
  });

  test("originMismatch compares IDN origins in A-label form", () => {
    assert.deepEqual(
      defaults.check({ url: "https://xn--bcher-kva.example.com/" }, "https://bücher.example.com"),
      accepted("https://xn--bcher-kva.example.com/", "xn--bcher-kva.example.com", true, false),
    );
  });

  test("refuses params whose url getter throws, without throwing", () => {
    const params = {
      get url(): string {
        throw new RangeError("boom");
      },
    };
    assert.deepEqual(defaults.check(params, undefined), {
      ok: false,
      refusal: {
        code: -32602,
        message: "Elicitation URL refused: expected plain JSON params, reading them threw RangeError",
      },
    });
  });

  test("refuses a url that is not a string", () => {
    assert.deepEqual(defaults.check({ url: 42 } as unknown as { url: string }, undefined), {
      ok: false,
      refusal: { code: -32602, message: "Elicitation URL refused: expected a string, received a number" },
    });
  });
});

describe("createElicitationUrlCheck() options", () => {
  test("allowIpHosts lets IPv4 in any notation and IPv6 through, in normalised form", () => {
    const check = createElicitationUrlCheck({ allowIpHosts: true });
    assert.deepEqual(
      check.check({ url: "https://2130706433/x" }, undefined),
      accepted("https://127.0.0.1/x", "127.0.0.1", false, true),
    );
    assert.deepEqual(
      check.check({ url: "https://[0:0::1]:8443/" }, "https://[::1]:8443"),
      accepted("https://[::1]:8443/", "[::1]", false, false),
    );
    assert.deepEqual(
      check.check({ url: "https://[fe80::1%25eth0]/" }, undefined),
      refusal("https://[fe80::1%25eth0]/", "expected a valid URL"),
    );
    assert.deepEqual(
      check.check({ url: "https://localhost/" }, undefined),
      refusal(
        "https://localhost/",
        'expected a host under a public suffix, received "localhost" (set allowPrivateHosts to allow private hosts)',
      ),
    );
  });

  test("allowPrivateHosts lets localhost, single labels and private names through, but not IPs", () => {
    const check = createElicitationUrlCheck({ allowPrivateHosts: true });
    for (const host of ["localhost", "intranet", "printer.local", "router.internal", "co.uk"]) {
      assert.deepEqual(
        check.check({ url: `https://${host}/` }, undefined),
        accepted(`https://${host}/`, host, false, true),
      );
    }
    assert.deepEqual(
      check.check({ url: "https://10.0.0.1/" }, undefined),
      refusal(
        "https://10.0.0.1/",
        'expected a domain name, received the IP address "10.0.0.1" (set allowIpHosts to allow IP addresses)',
      ),
    );
    assert.deepEqual(
      check.check({ url: "https://localhost./" }, undefined),
      refusal("https://localhost./", 'expected a host without a trailing dot, received "localhost."'),
    );
  });

  test("maxUrlLength bounds the raw and the normalised URL", () => {
    const check = createElicitationUrlCheck({ maxUrlLength: 24 });
    assert.deepEqual(
      check.check({ url: "https://example.com/abcd" }, undefined),
      accepted("https://example.com/abcd", "example.com", false, true),
    );
    assert.deepEqual(
      check.check({ url: "https://example.com/abcde" }, undefined),
      refusal("https://example.com/abcde", "expected at most 24 characters, received 25"),
    );
    assert.deepEqual(
      check.check({ url: "https://example.com/ü" }, undefined),
      refusal("https://example.com/ü", "expected at most 24 characters once normalised, received 26"),
    );
    assert.deepEqual(
      check.check({ url: "https://example.com" }, undefined),
      accepted("https://example.com/", "example.com", false, true),
    );
  });

  test("a long refused URL is cut to 96 characters in the message", () => {
    const url = `https://example.com/${"a".repeat(2100)}`;
    assert.deepEqual(
      defaults.check({ url }, undefined),
      refusal(`${url.slice(0, 96)}…`, "expected at most 2048 characters, received 2120"),
    );
  });
});

describe("createElicitationUrlCheck() host rules", () => {
  const check = createElicitationUrlCheck({
    allowHosts: ["*.example.com", "login.example.org", "*.example.co.uk", "Bücher.example.net"],
    denyHosts: ["evil.example.com", "*.internal.example.com"],
  });
  const allowed = (host: string) => accepted(`https://${host}/`, host, host.includes("xn--"), true);
  const notAllowed = (host: string) =>
    refusal(`https://${host}/`, `expected a host in allowHosts, received "${host}"`);
  const denied = (host: string, entry: string) =>
    refusal(`https://${host}/`, `expected a host outside denyHosts, received "${host}" (matches "${entry}")`);

  test("*.example.com matches subdomains at any depth", () => {
    for (const host of ["a.example.com", "a.b.example.com", "x-y.z.example.com"]) {
      assert.deepEqual(check.check({ url: `https://${host}/` }, undefined), allowed(host));
    }
  });

  test("*.example.com does not match the apex example.com", () => {
    assert.deepEqual(check.check({ url: "https://example.com/" }, undefined), notAllowed("example.com"));
  });

  test("*.example.com does not match look-alikes", () => {
    for (
      const host of [
        "example.com.evil.net",
        "evilexample.com",
        "example.co",
        "a.example.com.au",
        "xexample.com",
      ]
    ) {
      assert.deepEqual(check.check({ url: `https://${host}/` }, undefined), notAllowed(host));
    }
  });

  test("matching is case-insensitive", () => {
    assert.deepEqual(check.check({ url: "https://A.Example.COM/" }, undefined), allowed("a.example.com"));
    assert.deepEqual(
      check.check({ url: "https://LOGIN.example.ORG/" }, undefined),
      allowed("login.example.org"),
    );
  });

  test("an exact entry matches that host only", () => {
    assert.deepEqual(
      check.check({ url: "https://login.example.org/" }, undefined),
      allowed("login.example.org"),
    );
    assert.deepEqual(
      check.check({ url: "https://a.login.example.org/" }, undefined),
      notAllowed("a.login.example.org"),
    );
    assert.deepEqual(check.check({ url: "https://example.org/" }, undefined), notAllowed("example.org"));
  });

  test("an exact denyHosts entry refuses its subdomains at any depth too, and no sibling or parent", () => {
    for (const host of ["evil.example.com", "login.evil.example.com", "a.b.evil.example.com"]) {
      assert.deepEqual(check.check({ url: `https://${host}/` }, undefined), denied(host, "evil.example.com"));
    }
    for (const host of ["notevil.example.com", "evil.example.com.example.com", "www.example.com"]) {
      assert.deepEqual(check.check({ url: `https://${host}/` }, undefined), allowed(host));
    }
    const deny = createElicitationUrlCheck({ denyHosts: ["evil.example.org", "co.uk"] });
    assert.deepEqual(
      deny.check({ url: "https://x.login.EVIL.example.org/" }, undefined),
      refusal(
        "https://x.login.EVIL.example.org/",
        'expected a host outside denyHosts, received "x.login.evil.example.org" (matches "evil.example.org")',
      ),
    );
    // Never across a public suffix: "co.uk" names no one's domain.
    assert.deepEqual(
      deny.check({ url: "https://shop.example.co.uk/" }, undefined),
      accepted("https://shop.example.co.uk/", "shop.example.co.uk", false, true),
    );
  });

  test("a pattern under a two-label public suffix uses the registrable domain", () => {
    assert.deepEqual(
      check.check({ url: "https://shop.example.co.uk/" }, undefined),
      allowed("shop.example.co.uk"),
    );
    assert.deepEqual(check.check({ url: "https://other.co.uk/" }, undefined), notAllowed("other.co.uk"));
  });

  test("a Unicode entry matches the host in both spellings, compared in A-label form", () => {
    assert.deepEqual(
      check.check({ url: "https://bücher.example.net/" }, undefined),
      allowed("xn--bcher-kva.example.net"),
    );
    assert.deepEqual(
      check.check({ url: "https://xn--bcher-kva.example.net/" }, undefined),
      allowed("xn--bcher-kva.example.net"),
    );
  });

  test("the option that lets a private or IP host through is named only when allowHosts and denyHosts would let it through too", () => {
    const messages = (options: Parameters<typeof createElicitationUrlCheck>[0], hosts: string[]) =>
      hosts.map((host) => {
        const verdict = createElicitationUrlCheck(options).check({ url: `https://${host}/` }, undefined);
        return verdict.ok
          ? "accepted"
          : verdict.refusal.message.replace(/^Elicitation URL "[^"]*" refused: /, "");
      });
    assert.deepEqual(messages({ allowHosts: ["*.example.com"] }, ["evil.test", "10.0.0.2", "[0:0::1]"]), [
      'expected a host under a public suffix, received "evil.test"',
      'expected a domain name, received the IP address "10.0.0.2"',
      'expected a domain name, received the IP address "[0:0::1]"',
    ]);
    assert.deepEqual(messages({ denyHosts: ["*.example.com"] }, ["evil.test", "10.0.0.2", "[0:0::1]"]), [
      'expected a host under a public suffix, received "evil.test" (set allowPrivateHosts to allow private hosts)',
      'expected a domain name, received the IP address "10.0.0.2" (set allowIpHosts to allow IP addresses)',
      'expected a domain name, received the IP address "[0:0::1]" (set allowIpHosts to allow IP addresses)',
    ]);
  });

  test("denyHosts is checked before allowHosts", () => {
    assert.deepEqual(
      check.check({ url: "https://evil.example.com/" }, undefined),
      denied("evil.example.com", "evil.example.com"),
    );
    assert.deepEqual(
      check.check({ url: "https://db.internal.example.com/" }, undefined),
      denied("db.internal.example.com", "*.internal.example.com"),
    );
  });

  test("a deny pattern alone refuses its subdomains and lets everything else through", () => {
    const denyOnly = createElicitationUrlCheck({ denyHosts: ["*.evil.example"] });
    assert.deepEqual(
      denyOnly.check({ url: "https://example.com/" }, undefined),
      accepted("https://example.com/", "example.com", false, true),
    );
    const withPrivate = createElicitationUrlCheck({ denyHosts: ["*.evil.example"], allowPrivateHosts: true });
    assert.deepEqual(
      withPrivate.check({ url: "https://a.evil.example/" }, undefined),
      refusal(
        "https://a.evil.example/",
        'expected a host outside denyHosts, received "a.evil.example" (matches "*.evil.example")',
      ),
    );
  });

  test("a pattern never crosses a private public suffix", () => {
    const aws = createElicitationUrlCheck({ allowHosts: ["*.amazonaws.com"] });
    assert.deepEqual(
      aws.check({ url: "https://ec2.amazonaws.com/" }, undefined),
      accepted("https://ec2.amazonaws.com/", "ec2.amazonaws.com", false, true),
    );
    assert.deepEqual(
      aws.check({ url: "https://bucket.s3.amazonaws.com/" }, undefined),
      refusal(
        "https://bucket.s3.amazonaws.com/",
        'expected a host in allowHosts, received "bucket.s3.amazonaws.com"',
      ),
    );
  });

  test("exact IP entries work with allowIpHosts", () => {
    const ips = createElicitationUrlCheck({
      allowIpHosts: true,
      allowHosts: ["127.1", "[::1]"],
      denyHosts: ["10.0.0.1"],
    });
    assert.deepEqual(
      ips.check({ url: "https://127.0.0.1/" }, undefined),
      accepted("https://127.0.0.1/", "127.0.0.1", false, true),
    );
    assert.deepEqual(
      ips.check({ url: "https://[::1]/" }, undefined),
      accepted("https://[::1]/", "[::1]", false, true),
    );
    assert.deepEqual(
      ips.check({ url: "https://10.0.0.1/" }, undefined),
      refusal(
        "https://10.0.0.1/",
        'expected a host outside denyHosts, received "10.0.0.1" (matches "10.0.0.1")',
      ),
    );
  });

  test("denyHosts refuses an IPv4-mapped IPv6 address as it refuses its IPv4 address, either way round", () => {
    const ips = createElicitationUrlCheck({
      allowIpHosts: true,
      denyHosts: ["127.0.0.1", "[::ffff:192.168.1.1]"],
    });
    assert.deepEqual(
      ips.check({ url: "https://[::ffff:127.0.0.1]/admin" }, undefined),
      refusal(
        "https://[::ffff:127.0.0.1]/admin",
        'expected a host outside denyHosts, received "[::ffff:7f00:1]" (matches "127.0.0.1")',
      ),
    );
    assert.deepEqual(
      ips.check({ url: "https://[::ffff:7f00:1]/" }, undefined),
      refusal(
        "https://[::ffff:7f00:1]/",
        'expected a host outside denyHosts, received "[::ffff:7f00:1]" (matches "127.0.0.1")',
      ),
    );
    assert.deepEqual(
      ips.check({ url: "https://192.168.1.1/" }, undefined),
      refusal(
        "https://192.168.1.1/",
        'expected a host outside denyHosts, received "192.168.1.1" (matches "[::ffff:192.168.1.1]")',
      ),
    );
  });

  test("allowHosts admits an IPv4-mapped IPv6 address as it admits its IPv4 address, either way round", () => {
    const ips = createElicitationUrlCheck({
      allowIpHosts: true,
      allowHosts: ["10.0.0.1", "[::ffff:10.0.0.2]"],
    });
    assert.deepEqual(
      ips.check({ url: "https://[::ffff:10.0.0.1]/" }, undefined),
      accepted("https://[::ffff:a00:1]/", "[::ffff:a00:1]", false, true),
    );
    assert.deepEqual(
      ips.check({ url: "https://10.0.0.2/" }, undefined),
      accepted("https://10.0.0.2/", "10.0.0.2", false, true),
    );
    assert.deepEqual(
      ips.check({ url: "https://[::ffff:10.0.0.3]/" }, undefined),
      refusal("https://[::ffff:10.0.0.3]/", 'expected a host in allowHosts, received "[::ffff:a00:3]"'),
    );
  });
});

describe("createElicitationUrlCheck() hostile URLs under host rules", () => {
  const ipHosts = createElicitationUrlCheck({ allowIpHosts: true });
  const rules = createElicitationUrlCheck({
    allowHosts: ["*.example.com", "login.example.org", "bücher.example.net"],
    denyHosts: ["evil.example.com", "*.corp.example.com", "XN--BCHER-KVA.example.net"],
  });
  const privateNames = createElicitationUrlCheck({
    allowHosts: ["web1", "*.db.internal2"],
    allowPrivateHosts: true,
  });
  const notAllowed = (url: string, host: string) =>
    refusal(url, `expected a host in allowHosts, received "${host}"`);
  const denied = (url: string, host: string, entry: string) =>
    refusal(url, `expected a host outside denyHosts, received "${host}" (matches "${entry}")`);
  const privateHost = (url: string, host: string) =>
    refusal(
      url,
      `expected a host under a public suffix, received "${host}" (set allowPrivateHosts to allow private hosts)`,
    );
  /** What, with which check, which URL, and the verdict expected. */
  const cases: [string, typeof rules, string, unknown][] = [
    [
      "allowIpHosts normalises a hex short-form loopback",
      ipHosts,
      "https://0x7f.1/",
      accepted("https://127.0.0.1/", "127.0.0.1", false, true),
    ],
    [
      "allowIpHosts normalises an IPv4-mapped IPv6 address",
      ipHosts,
      "https://[::ffff:127.0.0.1]/",
      accepted("https://[::ffff:7f00:1]/", "[::ffff:7f00:1]", false, true),
    ],
    [
      "allowIpHosts still refuses a private name",
      ipHosts,
      "https://intranet/",
      privateHost("https://intranet/", "intranet"),
    ],
    [
      "allowIpHosts still refuses a private name ending in a digit",
      ipHosts,
      "https://web1/",
      privateHost("https://web1/", "web1"),
    ],
    [
      "allowIpHosts still refuses a .local name ending in a digit",
      ipHosts,
      "https://printer.local1/",
      privateHost("https://printer.local1/", "printer.local1"),
    ],
    [
      "allowIpHosts still refuses a wildcard host ending in a digit",
      ipHosts,
      "https://*.evil1/",
      refusal(
        "https://*.evil1/",
        'expected a host of letters, digits, hyphens, underscores and dots, received "*.evil1"',
      ),
    ],
    [
      "allowIpHosts still refuses an empty label in a host ending in a digit",
      ipHosts,
      "https://a..b1/",
      refusal("https://a..b1/", 'expected a host without empty labels, received "a..b1"'),
    ],
    [
      "an allowed private name ending in a digit",
      privateNames,
      "https://WEB1/",
      accepted("https://web1/", "web1", false, true),
    ],
    [
      "a private name ending in a digit under an allowed pattern",
      privateNames,
      "https://a1.db.internal2/",
      accepted("https://a1.db.internal2/", "a1.db.internal2", false, true),
    ],
    [
      "another private name ending in a digit, not allowed",
      privateNames,
      "https://web2/",
      notAllowed("https://web2/", "web2"),
    ],
    [
      "an upper-case denied host",
      rules,
      "https://EVIL.example.com/",
      denied("https://EVIL.example.com/", "evil.example.com", "evil.example.com"),
    ],
    [
      "a percent-encoded denied host",
      rules,
      "https://ev%69l.example.com/",
      denied("https://ev%69l.example.com/", "evil.example.com", "evil.example.com"),
    ],
    [
      "a full-width denied host",
      rules,
      "https://ｅｖｉｌ.example.com/",
      denied("https://ｅｖｉｌ.example.com/", "evil.example.com", "evil.example.com"),
    ],
    [
      "a denied host spelled with ideographic full stops",
      rules,
      "https://evil。example。com/",
      denied("https://evil。example。com/", "evil.example.com", "evil.example.com"),
    ],
    [
      "a denied host with a port",
      rules,
      "https://evil.example.com:8443/x",
      denied("https://evil.example.com:8443/x", "evil.example.com", "evil.example.com"),
    ],
    [
      "a denied host with a trailing dot (refused for the dot first)",
      rules,
      "https://evil.example.com./",
      refusal(
        "https://evil.example.com./",
        'expected a host without a trailing dot, received "evil.example.com."',
      ),
    ],
    [
      "a denied host hidden behind an allowed userinfo",
      rules,
      "https://login.example.org@evil.example.com/",
      refusal("https://login.example.org@evil.example.com/", 'expected no userinfo ("@") before the host'),
    ],
    [
      "a deep subdomain under a denied pattern",
      rules,
      "https://a.b.corp.example.com/",
      denied("https://a.b.corp.example.com/", "a.b.corp.example.com", "*.corp.example.com"),
    ],
    [
      "a denied Unicode host in its punycode spelling",
      rules,
      "https://xn--bcher-kva.example.net/",
      denied(
        "https://xn--bcher-kva.example.net/",
        "xn--bcher-kva.example.net",
        "XN--BCHER-KVA.example.net",
      ),
    ],
    [
      "a denied Unicode host in upper case",
      rules,
      "https://BÜCHER.example.net/",
      denied("https://BÜCHER.example.net/", "xn--bcher-kva.example.net", "XN--BCHER-KVA.example.net"),
    ],
    [
      "an allowed exact host followed by an encoded dot and another domain",
      rules,
      "https://login.example.org%2eevil.example.net/",
      notAllowed("https://login.example.org%2eevil.example.net/", "login.example.org.evil.example.net"),
    ],
    [
      "an allowed pattern's base as a label of another domain",
      rules,
      "https://a.example.com.evil.example.net/",
      notAllowed("https://a.example.com.evil.example.net/", "a.example.com.evil.example.net"),
    ],
    [
      "a Cyrillic look-alike of an allowed exact host",
      rules,
      "https://login.exаmple.org/",
      notAllowed("https://login.exаmple.org/", "login.xn--exmple-4nf.org"),
    ],
    [
      "an IP address before the allow list is consulted (allowIpHosts not named: the list refuses it too)",
      rules,
      "https://127.0.0.1/",
      refusal("https://127.0.0.1/", 'expected a domain name, received the IP address "127.0.0.1"'),
    ],
    [
      "a Cyrillic subdomain under an allowed pattern (allowed, flagged idn)",
      rules,
      "https://аррӏе.example.com/",
      accepted("https://xn--80ak6aa92e.example.com/", "xn--80ak6aa92e.example.com", true, true),
    ],
    [
      "a subdomain of an exact deny entry under an allowed pattern (a denied host's subdomains are denied with it)",
      rules,
      "https://a.evil.example.com/",
      denied("https://a.evil.example.com/", "a.evil.example.com", "evil.example.com"),
    ],
    [
      "an allowed exact host with the default port",
      rules,
      "https://LOGIN.example.org:443/",
      accepted("https://login.example.org/", "login.example.org", false, true),
    ],
  ];

  for (const [what, check, url, expected] of cases) {
    test(`judges ${what}: ${url}`, () => {
      assert.deepEqual(check.check({ url }, undefined), expected);
    });
  }
});

describe("createElicitationUrlCheck() configuration errors", () => {
  const cases: [string, unknown, string][] = [
    [
      "a public-suffix pattern",
      { allowHosts: ["*.co.uk"] },
      'createElicitationUrlCheck: "allowHosts[0]" must not cover a public suffix or an IP range, received "*.co.uk"',
    ],
    [
      "a TLD pattern in denyHosts",
      { denyHosts: ["*.com"] },
      'createElicitationUrlCheck: "denyHosts[0]" must not cover a public suffix or an IP range, received "*.com"',
    ],
    [
      "a private-suffix pattern",
      { allowHosts: ["*.github.io"] },
      'createElicitationUrlCheck: "allowHosts[0]" must not cover a public suffix or an IP range, received "*.github.io"',
    ],
    [
      "an IP pattern",
      { denyHosts: ["*.10.0.0.1"] },
      'createElicitationUrlCheck: "denyHosts[0]" must not cover a public suffix or an IP range, received "*.10.0.0.1"',
    ],
    [
      "a URL instead of a host",
      { allowHosts: ["https://example.com"] },
      'createElicitationUrlCheck: "allowHosts[0]" must be a host name, an IP address or "*." and a host name, received "https://example.com"',
    ],
    [
      "a host with a port",
      { allowHosts: ["example.com:443"] },
      'createElicitationUrlCheck: "allowHosts[0]" must be a host name, an IP address or "*." and a host name, received "example.com:443"',
    ],
    [
      "a bare wildcard",
      { denyHosts: ["*"] },
      'createElicitationUrlCheck: "denyHosts[0]" must be a host name, an IP address or "*." and a host name, received "*"',
    ],
    [
      "an inner wildcard",
      { denyHosts: ["a.*.example.com"] },
      'createElicitationUrlCheck: "denyHosts[0]" must be a host name, an IP address or "*." and a host name, received "a.*.example.com"',
    ],
    [
      "a trailing dot",
      { denyHosts: ["example.com."] },
      'createElicitationUrlCheck: "denyHosts[0]" must be a host name, an IP address or "*." and a host name, received "example.com."',
    ],
    [
      "an empty entry",
      { denyHosts: [""] },
      'createElicitationUrlCheck: "denyHosts[0]" must be a host name, an IP address or "*." and a host name, received ""',
    ],
    [
      "a non-string entry",
      { denyHosts: [1] },
      'createElicitationUrlCheck: "denyHosts[0]" must be a string, received number',
    ],
    [
      "an empty allowHosts",
      { allowHosts: [] },
      'createElicitationUrlCheck: "allowHosts" must list at least one host; omit it to allow every host',
    ],
    [
      "allowHosts not an array",
      { allowHosts: "example.com" },
      'createElicitationUrlCheck: "allowHosts" must be an array of hosts, received "example.com"',
    ],
    [
      "an allowed IP without allowIpHosts",
      { allowHosts: ["10.0.0.1"] },
      'createElicitationUrlCheck: "allowHosts[0]" is an IP address, which is refused unless "allowIpHosts" is true',
    ],
    [
      "an allowed private host without allowPrivateHosts",
      { allowHosts: ["example.com", "*.corp.internal"] },
      'createElicitationUrlCheck: "allowHosts[1]" is not a public host, which is refused unless "allowPrivateHosts" is true',
    ],
    [
      "an allowed private name ending in a digit with allowIpHosts (a name, not an IP address)",
      { allowHosts: ["web1"], allowIpHosts: true },
      'createElicitationUrlCheck: "allowHosts[0]" is not a public host, which is refused unless "allowPrivateHosts" is true',
    ],
    [
      "an allowed private pattern ending in a digit with allowIpHosts",
      { allowHosts: ["*.db.internal2"], allowIpHosts: true },
      'createElicitationUrlCheck: "allowHosts[0]" is not a public host, which is refused unless "allowPrivateHosts" is true',
    ],
    [
      "a non-boolean flag",
      { allowIpHosts: "yes" },
      'createElicitationUrlCheck: "allowIpHosts" must be a boolean, received "yes"',
    ],
    [
      "a zero maxUrlLength",
      { maxUrlLength: 0 },
      'createElicitationUrlCheck: "maxUrlLength" must be a positive integer, received 0',
    ],
    [
      "a fractional maxUrlLength",
      { maxUrlLength: 10.5 },
      'createElicitationUrlCheck: "maxUrlLength" must be a positive integer, received 10.5',
    ],
    [
      "an unknown option",
      { allowHost: ["example.com"] },
      'createElicitationUrlCheck: unknown option "allowHost", expected one of allowHosts, denyHosts, allowIpHosts, allowPrivateHosts, maxUrlLength',
    ],
    [
      "options that are not an object",
      null,
      "createElicitationUrlCheck: options must be an object, received null",
    ],
  ];
  for (const [what, options, message] of cases) {
    test(`throws a TypeError for ${what}`, () => {
      assert.throws(() => createElicitationUrlCheck(options as never), { name: "TypeError", message });
    });
  }

  test("returns a frozen checker", () => {
    assert.equal(Object.isFrozen(defaults), true);
  });
});
