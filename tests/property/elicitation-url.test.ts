// Properties of the URL rules of URL-mode elicitation (src/checks/elicitation-url.ts): URLs built
// from schemes, userinfo, hosts (look-alikes, punycode, full-width dots, IPv4 in every notation,
// IPv6, labels ending in digits), ports, paths and hostile characters; params and origins of any
// kind. No input throws; every verdict is stable; an accepted URL is a fixed point whose context
// says what a browser would open, and never an IP or private host unless allowed, nor a host the
// rules refuse; a refusal never carries a character that could forge or hide part of a log line.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "tldts";
import { createElicitationUrlCheck, type ElicitationUrlOptions } from "../../src/checks/elicitation-url.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";
import { hostileString } from "./_arbitraries.ts";
import { anyValue, realise } from "./_js-only-values.ts";

const often = <T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: rare });
const scheme = often(
  fc.constant("https://"),
  fc.constantFrom(
    "HTTPS://",
    "hTTps://",
    "http://",
    "https:/",
    "https:",
    "https:\\\\",
    " https://",
    "javascript:",
    "file://",
    "data:text/html,",
    "wss://",
  ),
);
const label = often(
  fc.constantFrom(
    "example",
    "login",
    "evil",
    "corp",
    "a",
    "www",
    "web1",
    "db01",
    "1e100",
    "xn--bcher-kva",
    "bücher",
    "BÜCHER",
    "аррӏе",
    "ｅｘａｍｐｌｅ",
  ),
  fc.oneof(
    fc.constantFrom("localhost", "ex%61mple", "a-b", "-a", "a_b", "*", "127", "0x7f", "EVIL"),
    hostileString(6),
  ),
);
const suffix = fc.constantFrom(
  "com",
  "com",
  "org",
  "net",
  "co.uk",
  "github.io",
  "example.com",
  "example.com",
  "example.org",
  "local",
  "internal",
  "test",
  "onion",
  "com1",
);
const dot = often(fc.constant("."), fc.constantFrom("。", "．", "%2e", ".."));
const domain = fc.tuple(
  fc.array(fc.tuple(label, dot), { maxLength: 3 }),
  suffix,
  often(fc.constant(""), fc.constant(".")),
)
  .map(([labels, end, trailing]) => labels.map(([l, d]) => l + d).join("") + end + trailing);
const ip = fc.constantFrom(
  "127.0.0.1",
  "10.0.0.1",
  "8.8.8.8",
  "0x7f.1",
  "2130706433",
  "0177.0.0.1",
  "127.1",
  "1.2.3.4.5",
  "256.0.0.1",
  "[::1]",
  "[::ffff:127.0.0.1]",
  "[2001:db8::1]",
  "[fe80::1%25eth0]",
  "[::1",
  "１２７.０.０.１",
);
const host = fc.oneof({ weight: 5, arbitrary: domain }, { weight: 2, arbitrary: ip }, {
  weight: 1,
  arbitrary: label,
});
const userinfo = often(
  fc.constant(""),
  fc.constantFrom("user@", "user:pass@", "login.example.org@", "@", "%40@"),
);
const port = often(fc.constant(""), fc.constantFrom(":443", ":8443", ":0", ":65536", ":", ":abc"));
const pathText = fc.string({ unit: fc.constantFrom(..."abcXYZ019-._~%/!$&'()*+,;=:@?#"), maxLength: 20 });
const rest = often(
  pathText.map((text) => `/${text}`),
  fc.oneof(
    fc.constantFrom("", "/%2e%2e/x", "/\u202eevil", "?next=https://evil.com", "#@evil.com"),
    hostileString(16),
  ),
);
/** URL text: assembled from parts, generated web URLs, or any string. */
const urlText = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(scheme, userinfo, host, port, rest).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 1, arbitrary: hostileString(40) },
);
const origin = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("https://example.com", "https://login.example.org:443", "http://example.com", "not a URL"),
  urlText,
);

/** The check variants under test, each with the options it was built from. */
const OPTIONS: readonly ElicitationUrlOptions[] = [
  {},
  { allowIpHosts: true },
  { allowPrivateHosts: true },
  { allowIpHosts: true, allowPrivateHosts: true, maxUrlLength: 40 },
  {
    allowHosts: ["*.example.com", "login.example.org", "bücher.example.net"],
    denyHosts: ["evil.example.com", "*.corp.example.com"],
  },
];
const CHECKS = OPTIONS.map((options) => createElicitationUrlCheck(options));
const variant = fc.nat(OPTIONS.length - 1);

/** Characters a refusal message must never carry raw: controls, format and bidi characters, separators. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}$/;

describe("createElicitationUrlCheck() properties", () => {
  test(
    propertyName(
      "createElicitationUrlCheck() of any URL is stable, agrees with a fresh check, and never throws",
    ),
    () => {
      fc.assert(
        fc.property(variant, urlText, origin, (index, url, serverOrigin) => {
          const verdict = CHECKS[index]!.check({ url }, serverOrigin);
          assert.deepEqual(CHECKS[index]!.check({ url }, serverOrigin), verdict);
          assert.deepEqual(createElicitationUrlCheck(OPTIONS[index]).check({ url }, serverOrigin), verdict);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "createElicitationUrlCheck() accepts a URL only as the https href a browser opens, and that href again",
    ),
    () => {
      fc.assert(
        fc.property(variant, urlText, origin, (index, url, serverOrigin) => {
          const options = OPTIONS[index]!;
          const verdict = CHECKS[index]!.check({ mode: "url", url }, serverOrigin);
          if (!verdict.ok) return;
          const { params, context } = verdict.value;
          const parsed = new URL(context.url);
          assert.deepEqual(params, { mode: "url", url: context.url });
          assert.equal(parsed.href, context.url);
          assert.equal(parsed.protocol, "https:");
          assert.equal(parsed.username + parsed.password, "");
          assert.equal(context.host, parsed.hostname);
          assert.equal(context.idn, context.host.split(".").some((part) => part.startsWith("xn--")));
          assert.ok(context.url.length <= (options.maxUrlLength ?? 2048));
          if (serverOrigin === undefined) assert.equal(context.originMismatch, true);
          const isIp = context.host.startsWith("[") || DOTTED_QUAD.test(context.host);
          if (options.allowIpHosts !== true) assert.equal(isIp, false, context.host);
          if (options.allowPrivateHosts !== true && !isIp) {
            const { isIcann, domain } = parse(context.host, { extractHostname: false });
            assert.ok(isIcann === true && domain !== null && !context.host.endsWith(".onion"), context.host);
          }
          if (options.allowHosts !== undefined) {
            assert.ok(
              context.host === "login.example.org" || context.host === "xn--bcher-kva.example.net" ||
                context.host.endsWith(".example.com"),
              context.host,
            );
            assert.ok(context.host !== "evil.example.com" && !context.host.endsWith(".corp.example.com"));
          }
          assert.deepEqual(CHECKS[index]!.check({ mode: "url", url: context.url }, serverOrigin), verdict);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "createElicitationUrlCheck() refuses with -32602 and a message that shows no control, bidi or invisible character",
    ),
    () => {
      fc.assert(
        fc.property(variant, urlText, origin, (index, url, serverOrigin) => {
          const verdict = CHECKS[index]!.check({ url }, serverOrigin);
          if (verdict.ok) return;
          assert.equal(verdict.refusal.code, -32602);
          assert.match(verdict.refusal.message, /^Elicitation URL ".*" refused: /su);
          assert.doesNotMatch(verdict.refusal.message, UNSAFE);
        }),
        PROPERTY_SETTINGS,
      );
    },
  );

  test(
    propertyName(
      "createElicitationUrlCheck() of params and origins of any kind, JSON or not, returns a verdict",
    ),
    () => {
      fc.assert(
        fc.property(variant, anyValue, anyValue, fc.boolean(), (index, generated, generatedOrigin, wrap) => {
          const value = realise(generated);
          const params = (wrap ? { url: value } : value) as { url: string };
          const verdict = CHECKS[index]!.check(params, realise(generatedOrigin) as string | undefined);
          assert.equal(typeof verdict.ok, "boolean");
          if (!verdict.ok) {
            assert.equal(verdict.refusal.code, -32602);
            assert.doesNotMatch(verdict.refusal.message, UNSAFE);
          }
        }),
        PROPERTY_SETTINGS,
      );
    },
  );
});
