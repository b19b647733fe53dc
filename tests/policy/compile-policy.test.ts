import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkPolicy, compilePolicy, createPolicyUrlCheck } from "../../src/policy/compile-policy.ts";
import { PolicyError } from "../../src/policy/policy-error.ts";
import { definePolicy } from "../../src/policy/policy.ts";
import { formatDuration, parseDuration } from "../../src/policy/duration.ts";

const messages = (value: unknown, source?: string) =>
  checkPolicy(value, source === undefined ? {} : { source }).map((p) => [p.path, p.message]);

describe("compilePolicy()", () => {
  test("resolves every default of the seed from server and transport alone", () => {
    const policy = compilePolicy(
      definePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }),
    );
    assert.deepEqual(policy, {
      source: undefined,
      server: "demo",
      transport: {
        kind: "http",
        url: "https://mcp.example.com/mcp",
        origin: "https://mcp.example.com",
        headers: {},
        redirect: "same-origin",
        allowHttp: false,
      },
      era: "auto",
      sampling: {
        enabled: true,
        maxTokens: 4096,
        context: false,
        allowIdle: false,
        maxToolIterations: 5,
        rejectionCode: -1,
        tools: false,
      },
      elicitation: {
        enabled: true,
        modes: ["form", "url"],
        origin: "https://mcp.example.com",
        allowHosts: undefined,
        denyHosts: [],
        allowIpHosts: false,
        allowPrivateHosts: false,
        maxUrlLength: 2048,
        maxFields: 100,
        maxEnumValues: 500,
      },
      roots: { enabled: true },
      inputRateLimit: { rate: 10, perMs: 1000, burst: 20 },
      logRateLimit: { rate: 50, perMs: 1000, burst: 100 },
      logLevel: "info",
      rateLimitFailOpen: false,
      handlerTimeoutMs: { elicitation: 300_000, default: 60_000 },
      callTimeoutMs: 60_000,
      maxTotalTimeoutMs: 600_000,
      maxServerRequests: 8,
      maxRounds: 10,
      maxMessageBytes: 4_194_304,
      maxEventBytes: 4_194_304,
      maxInputRequests: 16,
      maxJsonDepth: 64,
      maxWaitingNotifications: 1000,
      passDown: [],
      stateTtlMs: 600_000,
      maxSessions: 32,
      sessionIdleTimeoutMs: 600_000,
      access: undefined,
    });
    assert.equal(Object.isFrozen(policy.sampling), true);
  });

  test("rejects a policy with three mistakes by listing all three", () => {
    const policy = {
      server: "github",
      transport: { url: "https://mcp.example.com/mcp" },
      inputRateLimit: { rate: "ten", per: "1s", burst: 20 },
      sampling: { maxTokns: 8000 },
      callTimeout: "2 minutes",
    };
    assert.throws(() => compilePolicy(policy, { source: "policies/github.policy.ts" }), (error: unknown) => {
      assert.ok(error instanceof PolicyError);
      assert.equal(
        error.message,
        [
          'policies/github.policy.ts: Policy "github": "inputRateLimit.rate" must be an integer from 1 to 1000000, received "ten"',
          'policies/github.policy.ts: Policy "github": "callTimeout" must be a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to "596h", received "2 minutes"',
          'policies/github.policy.ts: Policy "github": "sampling.maxTokns" is not a policy option (did you mean "sampling.maxTokens"?)',
        ].join("\n"),
      );
      assert.deepEqual(error.problems.map((p) => [p.source, p.server, p.path]), [
        ["policies/github.policy.ts", "github", "inputRateLimit.rate"],
        ["policies/github.policy.ts", "github", "callTimeout"],
        ["policies/github.policy.ts", "github", "sampling.maxTokns"],
      ]);
      return true;
    });
  });

  test("reports every unknown key in one object, not only the first", () => {
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example" },
        sampling: { maxTokns: 1, contxt: true },
      }),
      [
        [
          "sampling.maxTokns",
          '"sampling.maxTokns" is not a policy option (did you mean "sampling.maxTokens"?)',
        ],
        ["sampling.contxt", '"sampling.contxt" is not a policy option (did you mean "sampling.context"?)'],
      ],
    );
  });

  test("names missing required options and a value that is not a policy", () => {
    assert.deepEqual(messages({}), [["server", '"server" is required'], [
      "transport",
      '"transport" is required',
    ]]);
    assert.deepEqual(messages(null), [["", "the policy must be a policy object, received null"]]);
  });

  test("takes an optional option written as undefined as left out, and a required one as missing", () => {
    // As a policy file writes it: `sampling: process.env.SAMPLING ? { maxTokens: 1024 } : undefined`.
    const base = { server: "a", transport: { url: "https://a.example" } };
    const unset = {
      server: "a",
      transport: { url: "https://a.example", headers: undefined, auth: undefined },
      era: undefined,
      sampling: undefined,
      elicitation: undefined,
      inputRateLimit: undefined,
      logRateLimit: undefined,
      handlerTimeout: { elicitation: undefined },
      callTimeout: undefined,
      maxTotalTimeout: undefined,
      maxRounds: undefined,
      access: undefined,
    };
    assert.deepEqual(messages(unset), []);
    assert.deepEqual(compilePolicy(unset), compilePolicy(base));
    assert.deepEqual(
      compilePolicy({ ...base, sampling: { maxTokens: undefined, context: true } }).sampling,
      { ...compilePolicy(base).sampling, context: true },
    );
    assert.deepEqual(
      [
        messages({ ...base, server: undefined }),
        messages({ server: "a", transport: undefined }),
        messages({ server: "a", transport: { url: undefined } }),
        messages({ ...base, inputRateLimit: { rate: 1, per: "1s", burst: undefined } }),
        messages({ ...base, inputRatelimit: undefined }),
      ],
      [
        [["server", '"server" is required']],
        [["transport", '"transport" is required']],
        [["transport.url", '"transport.url" is required']],
        [["inputRateLimit.burst", '"inputRateLimit.burst" is required']],
        [["inputRatelimit", '"inputRatelimit" is not a policy option (did you mean "inputRateLimit"?)']],
      ],
    );
  });

  test("checks the transport by its shape: stdio with command, HTTP with url", () => {
    assert.deepEqual(messages({ server: "fs", transport: { command: "", argz: ["x"] } }), [
      ["transport.command", '"transport.command" must be a program name or path, received ""'],
      ["transport.argz", '"transport.argz" is not a policy option (did you mean "transport.args"?)'],
    ]);
    assert.deepEqual(messages({ server: "a", transport: { url: "http://mcp.example.com/mcp" } }), [[
      "transport.url",
      '"transport.url" must use https unless its host is loopback, received "http://mcp.example.com/mcp" (set "transport.allowHttp: true" to accept the risk)',
    ]]);
    assert.deepEqual(messages({ server: "a", transport: { url: "https://user:pw@mcp.example.com/" } }), [[
      "transport.url",
      '"transport.url" must not carry credentials: put them in "transport.headers"',
    ]]);
    assert.deepEqual(messages({ server: "a", transport: { url: "mcp.example.com" } }), [[
      "transport.url",
      '"transport.url" must be an absolute http(s) URL, received "mcp.example.com"',
    ]]);
    assert.deepEqual(messages({ server: "a", transport: { url: "http://127.0.0.1:3001/mcp" } }), []);
    assert.deepEqual(
      messages({ server: "a", transport: { url: "http://10.0.0.2/mcp", allowHttp: true } }),
      [],
    );
  });

  test('refuses "era": "modern" for a server over stdio, which never connects, and takes "legacy" and "auto" there', () => {
    const stdio = { command: "npx", args: ["mcp-server-everything", "stdio"] };
    assert.deepEqual(
      [
        messages({ server: "a", transport: stdio, era: "modern" }),
        messages({ server: "a", transport: stdio, era: "legacy" }),
        messages({ server: "a", transport: stdio, era: "auto" }),
        messages({ server: "a", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }),
      ],
      [
        [[
          "era",
          '"era" is "modern" with a "transport" that has a "command": the modern era (2026-07-28) runs over HTTP only; expected "legacy" or "auto" for a server over stdio, or a "transport" with a "url"',
        ]],
        [],
        [],
        [],
      ],
    );
  });

  test("tells the transport by the one of url and command that has a value: the other kind's options written as undefined are left out", () => {
    const url = "https://mcp.example.com/mcp";
    const http = { server: "a", transport: { url, command: undefined, args: undefined, env: undefined } };
    const stdio = { server: "a", transport: { command: "mcp-server", url: undefined, headers: undefined } };
    assert.deepEqual([checkPolicy(http), checkPolicy(stdio)], [[], []]);
    // Compiled exactly as written without the other key.
    assert.deepEqual(compilePolicy(http), compilePolicy({ server: "a", transport: { url } }));
    assert.deepEqual(compilePolicy(stdio).transport, {
      kind: "stdio",
      command: "mcp-server",
      args: [],
      env: {},
      cwd: undefined,
    });
    // Both written as undefined: neither is there, and "command" is named as missing (not "both").
    assert.deepEqual(messages({ server: "a", transport: { url: undefined, command: undefined } }), [
      ["transport.command", '"transport.command" is required'],
    ]);
  });

  test("refuses a policy that is an array as not a policy object, not by its missing keys", () => {
    assert.deepEqual(messages([{ server: "a" }]), [[
      "",
      "the policy must be a policy object, received an array",
    ]]);
  });

  test("refuses timeouts longer than maxTotalTimeout", () => {
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example" },
        maxTotalTimeout: "1m",
        handlerTimeout: { elicitation: "5m" },
      }),
      [[
        "handlerTimeout.elicitation",
        '"handlerTimeout.elicitation" (5m) must not exceed "maxTotalTimeout" (1m)',
      ]],
    );
  });

  test("holds no timeout to maxTotalTimeout when either is not a duration: only that one is reported", () => {
    const base = { server: "a", transport: { url: "https://a.example" } };
    const expects =
      'a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to "596h"';
    assert.deepEqual(
      [
        messages({ ...base, maxTotalTimeout: "30 min", callTimeout: "20m" }),
        messages({ ...base, maxTotalTimeout: null, handlerTimeout: { elicitation: "20m", default: "11m" } }),
        messages({ ...base, maxTotalTimeout: "1m", callTimeout: "2 min", handlerTimeout: { default: "2m" } }),
      ],
      [
        [["maxTotalTimeout", `"maxTotalTimeout" must be ${expects}, received "30 min"`]],
        [["maxTotalTimeout", `"maxTotalTimeout" must be ${expects}, received null`]],
        [
          ["callTimeout", `"callTimeout" must be ${expects}, received "2 min"`],
          ["handlerTimeout.default", '"handlerTimeout.default" (2m) must not exceed "maxTotalTimeout" (1m)'],
        ],
      ],
    );
  });

  test("a shorter maxTotalTimeout alone shortens the timeouts the policy leaves to their defaults", () => {
    const policy = compilePolicy({
      server: "a",
      transport: { url: "https://a.example" },
      maxTotalTimeout: "30s",
    });
    assert.deepEqual(
      [policy.maxTotalTimeoutMs, policy.callTimeoutMs, policy.handlerTimeoutMs],
      [30_000, 30_000, { elicitation: 30_000, default: 30_000 }],
    );
    const set = compilePolicy({
      server: "a",
      transport: { url: "https://a.example" },
      maxTotalTimeout: "30s",
      callTimeout: "10s",
    });
    assert.deepEqual([set.callTimeoutMs, set.handlerTimeoutMs.default], [10_000, 30_000]);
  });

  test("turns sampling: false and elicitation: false into disabled kinds", () => {
    const policy = compilePolicy({
      server: "a",
      transport: { command: "node", args: ["server.js"] },
      sampling: false,
      elicitation: false,
      roots: false,
    });
    assert.deepEqual([policy.sampling.enabled, policy.elicitation.enabled, policy.roots.enabled], [
      false,
      false,
      false,
    ]);
    assert.deepEqual(policy.transport, {
      kind: "stdio",
      command: "node",
      args: ["server.js"],
      env: {},
      cwd: undefined,
    });
    assert.equal(policy.elicitation.origin, undefined);
  });

  test("keeps an explicit elicitation origin over the transport's", () => {
    const policy = compilePolicy({
      server: "a",
      transport: { url: "https://mcp.example.com/mcp" },
      elicitation: { origin: "https://login.example.com/", modes: ["url", "url"] },
    });
    assert.deepEqual([policy.elicitation.origin, policy.elicitation.modes], ["https://login.example.com", [
      "url",
    ]]);
  });

  test("refuses a duration longer than a timer can wait, where the timer would fire at once", () => {
    const longest = '"596h"';
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example" },
        maxTotalTimeout: "1000h",
        inputRateLimit: { rate: 1, per: "3000h", burst: 1_000_000 },
      }),
      [
        [
          "inputRateLimit.per",
          `"inputRateLimit.per" must be a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to ${longest}, received "3000h"`,
        ],
        [
          "maxTotalTimeout",
          `"maxTotalTimeout" must be a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to ${longest}, received "1000h"`,
        ],
      ],
    );
    // The longest a timer waits: a call under it runs, and a rate over it fits the bucket's units.
    const policy = compilePolicy({
      server: "a",
      transport: { url: "https://a.example" },
      maxTotalTimeout: "596h",
      inputRateLimit: { rate: 1, per: "596h", burst: 1_000_000 },
    });
    assert.deepEqual([policy.maxTotalTimeoutMs, policy.inputRateLimit.perMs], [2_145_600_000, 2_145_600_000]);
  });

  test("refuses an origin written with its default port or a path, saying how an origin is written", () => {
    const expects =
      'an origin such as "https://example.com" (a scheme and a host, with a port only when not the default, and no path)';
    assert.deepEqual(
      ["https://example.com:443", "https://example.com/mcp"].flatMap((origin) =>
        messages({ server: "a", transport: { url: "https://a.example" }, elicitation: { origin } })
      ),
      [
        ["elicitation.origin", `"elicitation.origin" must be ${expects}, received "https://example.com:443"`],
        ["elicitation.origin", `"elicitation.origin" must be ${expects}, received "https://example.com/mcp"`],
      ],
    );
    assert.deepEqual(
      ["https://example.com", "https://example.com/", "http://127.0.0.1:8080", "HTTPS://Login.Example.com"]
        .flatMap((origin) =>
          messages({ server: "a", transport: { url: "https://a.example" }, elicitation: { origin } })
        ),
      [],
    );
    // Compared as a browser's origin is: in lower case.
    assert.equal(
      compilePolicy({
        server: "a",
        transport: { url: "https://a.example" },
        elicitation: { origin: "HTTPS://Login.Example.com/" },
      }).elicitation.origin,
      "https://login.example.com",
    );
  });

  test("reports wrong values with what was expected and what was received", () => {
    assert.deepEqual(
      messages({
        server: "x y",
        transport: { url: "https://a.example" },
        era: "new",
        sampling: 3,
        elicitation: { modes: [], allowHosts: ["bad host"] },
        maxRounds: 0,
      }),
      [
        [
          "server",
          '"server" must be a server id: letters, digits, ".", "_" or "-", at most 64, starting with a letter or a digit, received "x y"',
        ],
        ["era", '"era" must be one of "modern", "legacy", "auto", received "new"'],
        ["sampling", '"sampling" must be false or an object of sampling options, received 3'],
        [
          "elicitation.modes",
          '"elicitation.modes" must be a non-empty list of "form" and "url", received []',
        ],
        [
          "elicitation.allowHosts[0]",
          '"elicitation.allowHosts[0]" must be a host such as "login.example.com" or "*.example.com", received "bad host"',
        ],
        ["maxRounds", '"maxRounds" must be an integer from 1 to 1000, received 0'],
      ],
    );
    // The sampling check builds with any value the policy takes, and none it refuses.
    const iterations = (maxToolIterations: unknown) =>
      messages({ server: "a", transport: { url: "https://a.example" }, sampling: { maxToolIterations } });
    assert.deepEqual([0, 1000].flatMap(iterations), []);
    assert.deepEqual(
      [-1, 1001, 1e20, 2.5].flatMap(iterations),
      [-1, 1001, 1e20, 2.5].map((n) => [
        "sampling.maxToolIterations",
        `"sampling.maxToolIterations" must be an integer from 0 to 1000, received ${n}`,
      ]),
    );
  });
});

describe("compilePolicy() and the message limits", () => {
  const base = { server: "a", transport: { url: "https://a.example.com/mcp" } };

  test("carries the five limits as written", () => {
    const policy = compilePolicy({
      ...base,
      maxMessageBytes: 65_536,
      maxEventBytes: 2048,
      maxInputRequests: 3,
      maxJsonDepth: 16,
      maxWaitingNotifications: 5,
    });
    assert.deepEqual(
      [
        policy.maxMessageBytes,
        policy.maxEventBytes,
        policy.maxInputRequests,
        policy.maxJsonDepth,
        policy.maxWaitingNotifications,
      ],
      [65_536, 2048, 3, 16, 5],
    );
  });

  test("reports each limit out of its range with the range expected", () => {
    assert.deepEqual(
      messages({
        ...base,
        maxMessageBytes: 1023,
        maxEventBytes: "1MiB",
        maxInputRequests: 1001,
        maxJsonDepth: 15,
        maxWaitingNotifications: 0.5,
      }),
      [
        ["maxMessageBytes", '"maxMessageBytes" must be an integer from 1024 to 268435456, received 1023'],
        ["maxEventBytes", '"maxEventBytes" must be an integer from 1024 to 268435456, received "1MiB"'],
        ["maxInputRequests", '"maxInputRequests" must be an integer from 1 to 1000, received 1001'],
        ["maxJsonDepth", '"maxJsonDepth" must be an integer from 16 to 1000, received 15'],
        [
          "maxWaitingNotifications",
          '"maxWaitingNotifications" must be an integer from 1 to 1000000, received 0.5',
        ],
      ],
    );
  });

  test("refuses an SSE event limit above the message limit; the default is at most the message limit", () => {
    assert.deepEqual(messages({ ...base, maxMessageBytes: 1_048_576, maxEventBytes: 4_194_304 }), [[
      "maxEventBytes",
      '"maxEventBytes" (4194304) must not exceed "maxMessageBytes" (1048576)',
    ]]);
    assert.deepEqual(messages({ ...base, maxMessageBytes: 1_048_576, maxEventBytes: 1_048_576 }), []);
    assert.deepEqual(messages({ ...base, maxMessageBytes: 1_048_576 }), []);
    assert.equal(compilePolicy({ ...base, maxMessageBytes: 1_048_576 }).maxEventBytes, 1_048_576);
  });

  test("suggests the limit meant by a misspelt one", () => {
    assert.deepEqual(messages({ ...base, maxJSONDepth: 32 }), [[
      "maxJSONDepth",
      '"maxJSONDepth" is not a policy option (did you mean "maxJsonDepth"?)',
    ]]);
  });
});

describe("compilePolicy() and the checkers' own option rules", () => {
  test("reports a host pattern on a public suffix, an empty allow list and a private host as policy problems", () => {
    const base = { server: "a", transport: { url: "https://a.example.com/mcp" } };
    assert.deepEqual(messages({ ...base, elicitation: { allowHosts: ["*.co.uk"] } }), [[
      "elicitation.allowHosts[0]",
      '"elicitation.allowHosts[0]" must not cover a public suffix or an IP range, received "*.co.uk"',
    ]]);
    assert.deepEqual(messages({ ...base, elicitation: { allowHosts: [] } }), [[
      "elicitation.allowHosts",
      '"elicitation.allowHosts" must list at least one host; omit it to allow every host',
    ]]);
    assert.deepEqual(messages({ ...base, elicitation: { allowHosts: ["localhost"] } }), [[
      "elicitation.allowHosts[0]",
      '"elicitation.allowHosts[0]" is not a public host, which is refused unless "allowPrivateHosts" is true',
    ]]);
    // Every problem of both lists at once, denyHosts first.
    assert.deepEqual(
      messages({
        ...base,
        elicitation: {
          allowHosts: ["localhost", "*.com", "10.0.0.1", "ok.example.com"],
          denyHosts: ["*.co.uk"],
        },
      }),
      [
        [
          "elicitation.denyHosts[0]",
          '"elicitation.denyHosts[0]" must not cover a public suffix or an IP range, received "*.co.uk"',
        ],
        [
          "elicitation.allowHosts[0]",
          '"elicitation.allowHosts[0]" is not a public host, which is refused unless "allowPrivateHosts" is true',
        ],
        [
          "elicitation.allowHosts[1]",
          '"elicitation.allowHosts[1]" must not cover a public suffix or an IP range, received "*.com"',
        ],
        [
          "elicitation.allowHosts[2]",
          '"elicitation.allowHosts[2]" is an IP address, which is refused unless "allowIpHosts" is true',
        ],
      ],
    );
    assert.deepEqual(
      messages({ ...base, elicitation: { allowHosts: ["localhost"], allowPrivateHosts: true } }),
      [],
    );
  });

  test("reports the host lists' problems with every other problem of the policy at once, even of the same section", () => {
    const base = { server: "a", transport: { url: "https://a.example.com/mcp" } };
    assert.deepEqual(
      messages({
        ...base,
        logLevel: "warn",
        maxRounds: 0,
        elicitation: { maxFields: 0, allowHosts: ["10.0.0.1"] },
      }),
      [
        ["elicitation.maxFields", '"elicitation.maxFields" must be an integer from 1 to 10000, received 0'],
        [
          "logLevel",
          '"logLevel" must be a log level ("debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency"), received "warn" (did you mean "warning"?)',
        ],
        ["maxRounds", '"maxRounds" must be an integer from 1 to 1000, received 0'],
        [
          "elicitation.allowHosts[0]",
          '"elicitation.allowHosts[0]" is an IP address, which is refused unless "allowIpHosts" is true',
        ],
      ],
    );
    // A list or a flag it reads that is not well typed is reported as such, and alone.
    assert.deepEqual(messages({ ...base, elicitation: { allowIpHosts: "yes", allowHosts: ["10.0.0.1"] } }), [
      ["elicitation.allowIpHosts", '"elicitation.allowIpHosts" must be true or false, received "yes"'],
    ]);
  });

  test("createPolicyUrlCheck() checks a URL by the policy's elicitation options", () => {
    const policy = compilePolicy({
      server: "a",
      transport: { url: "https://a.example.com/mcp" },
      elicitation: { allowHosts: ["login.example.com"], maxUrlLength: 40 },
    });
    const check = createPolicyUrlCheck(policy);
    assert.deepEqual(
      [
        "https://login.example.com/pay",
        "https://evil.example.net/pay",
        "https://login.example.com/" + "a".repeat(40),
      ].map((url) => {
        const verdict = check.check({ url }, undefined);
        return verdict.ok ? verdict.value.context.host : verdict.refusal.code;
      }),
      ["login.example.com", -32602, -32602],
    );
  });
});

describe("parseDuration() and formatDuration()", () => {
  test("read ms, s, m and h, and refuse anything else", () => {
    assert.deepEqual(
      [
        "500ms",
        "60s",
        "5m",
        "1h",
        "1.5s",
        "596h",
        "2145600s",
        "0s",
        "597h",
        "2147484s",
        "5",
        "5 m",
        "-1s",
        "1e3ms",
        "5M",
        "0.5ms",
        "1.5ms",
        "0.0005s",
        "1.001s",
        "1.1s",
        "0.001m",
        "0.0001h",
        "1.0001m",
        "0.36000s",
        "1.0000000001s",
        "0.00000001h",
      ]
        .map(parseDuration),
      [
        500,
        60_000,
        300_000,
        3_600_000,
        1500,
        2_145_600_000,
        2_145_600_000,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        1001,
        1100,
        60,
        360,
        60_006,
        360,
        undefined,
        undefined,
      ],
    );
    assert.deepEqual([60_000, 300_000, 1500, 3_600_000].map(formatDuration), ["1m", "5m", "1500ms", "1h"]);
  });

  test("read every unit up to exactly 596h, and refuse one past it as a policy problem, though a timer could wait it", () => {
    // 596h in each unit, then the least past it in each unit, up to the longest a timer waits.
    const within = ["2145600000ms", "2145600s", "35760m", "596h"];
    const past = [
      "2145600001ms",
      "2145600.001s",
      "35760.001m",
      "596.001h",
      "2147483647ms",
      "596.523h",
      "2147483648ms",
      "597h",
    ];
    assert.deepEqual(within.map(parseDuration), [2_145_600_000, 2_145_600_000, 2_145_600_000, 2_145_600_000]);
    assert.deepEqual(past.map(parseDuration), past.map(() => undefined));
    const base = { server: "a", transport: { url: "https://a.example" } };
    assert.deepEqual(within.flatMap((maxTotalTimeout) => messages({ ...base, maxTotalTimeout })), []);
    assert.deepEqual(
      past.flatMap((maxTotalTimeout) => messages({ ...base, maxTotalTimeout })),
      past.map((text) => [
        "maxTotalTimeout",
        `"maxTotalTimeout" must be a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to "596h", received "${text}"`,
      ]),
    );
  });
});

describe("checkPolicy() received values", () => {
  test("a non-finite number is named as such, a URL is shown without its password, and a promise is named", () => {
    const base = { server: "a", transport: { url: "https://a.example/mcp" } };
    assert.deepEqual(
      [
        ...messages({ ...base, maxRounds: Infinity }),
        ...messages({ ...base, elicitation: { origin: "https://u:PASS5@m.example.com" } }),
        ...messages({ ...base, elicitation: { allowHosts: ["https://u:PASS6@h.example.com"] } }),
        ...messages(Promise.resolve(base)),
      ],
      [
        ["maxRounds", '"maxRounds" must be an integer from 1 to 1000, received Infinity'],
        [
          "elicitation.origin",
          '"elicitation.origin" must be an origin such as "https://example.com" (a scheme and a host, with a port only when not the default, and no path), received "https://u:…@m.example.com"',
        ],
        [
          "elicitation.allowHosts[0]",
          '"elicitation.allowHosts[0]" must be a host such as "login.example.com" or "*.example.com", received "https://u:…@h.example.com"',
        ],
        [
          "",
          "the policy must be a policy object, received a Promise: export what it resolves to (`export default await …`)",
        ],
      ],
    );
  });
});

describe("compilePolicy() transport.headers", () => {
  test("refuses a header fetch would not send and one the transport or HTTP sets itself, never quoting a value", () => {
    const headers = {
      "bad name": "1",
      "X-A": "a\r\nb: c",
      Authorization: "Bearer \u2026",
      "Content-Type": "text/plain",
      accept: "*/*",
      "Mcp-Param-Region": "eu",
      "Transfer-Encoding": "chunked",
      Expect: "100-continue",
      "Accept-Encoding": "gzip",
      "X-Api-Key": "fine",
    };
    assert.deepEqual(messages({ server: "a", transport: { url: "https://a.example/mcp", headers } }), [
      [
        "transport.headers",
        '"transport.headers" has "bad name", which is not a header name: expected letters, digits and !#$%&\'*+.^_`|~-',
      ],
      [
        "transport.headers.X-A",
        '"transport.headers.X-A" must be a header value: no line break or NUL character',
      ],
      [
        "transport.headers.Authorization",
        '"transport.headers.Authorization" must be a header value of characters up to U+00FF: the one at index 7 is above',
      ],
      ...["Content-Type", "accept", "Mcp-Param-Region", "Transfer-Encoding", "Expect", "Accept-Encoding"].map(
        (name) => [
          `transport.headers.${name}`,
          `"transport.headers.${name}" is a header the transport or HTTP sets itself, expected one of your own`,
        ],
      ),
    ]);
  });
});

describe("compilePolicy() transport.auth", () => {
  const url = "https://mcp.example.com/mcp";
  const withAuth = (clientCredentials: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    messages({ server: "a", transport: { url, auth: { clientCredentials }, ...extra } });

  test("compiles clientCredentials to variable names, never values, with ES256 by default", () => {
    const policy = compilePolicy({
      server: "a",
      transport: { url, auth: { clientCredentials: { clientId: "sluice", privateKeyEnv: "A_KEY" } } },
    });
    assert.deepEqual(policy.transport, {
      kind: "http",
      url,
      origin: "https://mcp.example.com",
      headers: {},
      redirect: "same-origin",
      allowHttp: false,
      auth: {
        kind: "client_credentials",
        clientId: "sluice",
        credential: { kind: "private_key", env: "A_KEY", algorithm: "ES256" },
        scopes: [],
      },
    });
    const secret = compilePolicy({
      server: "a",
      transport: {
        url,
        auth: {
          clientCredentials: { clientId: "sluice", clientSecretEnv: "A_SECRET", scopes: ["mcp:tools"] },
        },
      },
    });
    assert.deepEqual(secret.transport.kind === "http" ? secret.transport.auth : undefined, {
      kind: "client_credentials",
      clientId: "sluice",
      credential: { kind: "secret", env: "A_SECRET" },
      scopes: ["mcp:tools"],
    });
  });

  test("transport.auth.oauth: a pre-registered client names its issuer; the rest needs clientId; the metadata URL is https with a path; neither carries credentials, which no message shows", () => {
    const oauth = (value: Record<string, unknown>) =>
      messages({ server: "a", transport: { url, auth: { oauth: value } } });
    assert.deepEqual(oauth({ clientId: "c" }), [[
      "transport.auth.oauth.issuer",
      '"transport.auth.oauth.issuer" is required with "transport.auth.oauth.clientId": a pre-registered client is used only with the authorization server that issued it',
    ]]);
    assert.deepEqual(oauth({ clientId: "c", issuer: "http://as.example.com" }), [[
      "transport.auth.oauth.issuer",
      '"transport.auth.oauth.issuer" must be an https URL (http only on localhost) without credentials, received "http://as.example.com"',
    ]]);
    assert.deepEqual(oauth({ clientId: "c", issuer: "https://u:PASS1@as.example.com" }), [[
      "transport.auth.oauth.issuer",
      '"transport.auth.oauth.issuer" must be an https URL (http only on localhost) without credentials, received "https://u:…@as.example.com"',
    ]]);
    assert.deepEqual(oauth({ issuer: "https://as.example.com", clientSecretEnv: "S" }), [
      [
        "transport.auth.oauth.issuer",
        '"transport.auth.oauth.issuer" needs "transport.auth.oauth.clientId": it describes a pre-registered client',
      ],
      [
        "transport.auth.oauth.clientSecretEnv",
        '"transport.auth.oauth.clientSecretEnv" needs "transport.auth.oauth.clientId": it describes a pre-registered client',
      ],
    ]);
    assert.deepEqual(
      oauth({
        clientId: "c",
        issuer: "https://as.example.com",
        tokenEndpointAuthMethod: "client_secret_post",
      }),
      [[
        "transport.auth.oauth.tokenEndpointAuthMethod",
        '"transport.auth.oauth.tokenEndpointAuthMethod" is "client_secret_post", which needs "transport.auth.oauth.clientSecretEnv"',
      ]],
    );
    assert.deepEqual(oauth({ clientMetadataUrl: "https://sluice.example.com/" }), [[
      "transport.auth.oauth.clientMetadataUrl",
      '"transport.auth.oauth.clientMetadataUrl" must be an https URL with a path, no fragment and no credentials (it is the client id), received "https://sluice.example.com/"',
    ]]);
    assert.deepEqual(oauth({ clientMetadataUrl: "https://u:PASS2@x.example.com/c.json" }), [[
      "transport.auth.oauth.clientMetadataUrl",
      '"transport.auth.oauth.clientMetadataUrl" must be an https URL with a path, no fragment and no credentials (it is the client id), received "https://u:…@x.example.com/c.json"',
    ]]);
    assert.deepEqual(oauth({ clientSecret: "hunter2" }), [[
      "transport.auth.oauth.clientSecret",
      '"transport.auth.oauth.clientSecret" is not a policy option (did you mean "transport.auth.oauth.clientSecretEnv"?)',
    ]]);
    const { transport } = compilePolicy({
      server: "a",
      transport: {
        url,
        auth: {
          oauth: { clientId: "c", issuer: "https://as.example.com", clientSecretEnv: "S", scopes: ["repo"] },
        },
      },
    });
    assert.deepEqual(transport.kind === "http" ? transport.auth : undefined, {
      kind: "authorization_code",
      scopes: ["repo"],
      client: { clientId: "c", issuer: "https://as.example.com", secretEnv: "S", method: undefined },
      clientMetadataUrl: undefined,
    });
  });

  test("refuses both secret sources, neither, an algorithm beside a secret, unknown keys and an Authorization header beside auth", () => {
    assert.deepEqual(withAuth({ clientId: "c", clientSecretEnv: "S", privateKeyEnv: "K" }), [[
      "transport.auth.clientCredentials",
      '"transport.auth.clientCredentials" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received both',
    ]]);
    assert.deepEqual(withAuth({ clientId: "c" }), [[
      "transport.auth.clientCredentials",
      '"transport.auth.clientCredentials" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received neither',
    ]]);
    assert.deepEqual(withAuth({ clientId: "c", clientSecretEnv: "S", algorithm: "RS256" }), [[
      "transport.auth.clientCredentials.algorithm",
      '"transport.auth.clientCredentials.algorithm" needs "transport.auth.clientCredentials.privateKeyEnv": it is the private key\'s signing algorithm',
    ]]);
    assert.deepEqual(withAuth({ clientId: "c", privateKeyEnv: "K", algorithm: "RS256" }), []);
    assert.deepEqual(withAuth({ clientId: "c", clientSecretEnv: "S", clientSecret: "hunter2" }), [[
      "transport.auth.clientCredentials.clientSecret",
      '"transport.auth.clientCredentials.clientSecret" is not a policy option (did you mean "transport.auth.clientCredentials.clientSecretEnv"?)',
    ]]);
    assert.deepEqual(messages({ server: "a", transport: { url, auth: { oauth: {} } } }), []);
    assert.deepEqual(
      messages({ server: "a", transport: { url, auth: {} } }),
      [[
        "transport.auth",
        '"transport.auth" must name exactly one of "oauth" (a person signs in) and "clientCredentials" (machine to machine), received neither',
      ]],
    );
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url, auth: { oauth: {}, clientCredentials: { clientId: "c", clientSecretEnv: "S" } } },
      }),
      [[
        "transport.auth",
        '"transport.auth" must name exactly one of "oauth" (a person signs in) and "clientCredentials" (machine to machine), received both',
      ]],
    );
    assert.deepEqual(
      withAuth({ clientId: "c", clientSecretEnv: "S" }, { headers: { authorization: "Bearer x" } }),
      [[
        "transport.headers",
        '"transport.headers" must not set "Authorization" together with "transport.auth": the sign-in sends its own token',
      ]],
    );
    assert.deepEqual(withAuth({ clientId: "", clientSecretEnv: "1X", algorithm: "HS256", scopes: ["a b"] }), [
      [
        "transport.auth.clientCredentials.clientId",
        '"transport.auth.clientCredentials.clientId" must be a non-empty client id, received ""',
      ],
      [
        "transport.auth.clientCredentials.clientSecretEnv",
        '"transport.auth.clientCredentials.clientSecretEnv" must be an environment variable name such as "GITHUB_CLIENT_SECRET", received "1X"',
      ],
      [
        "transport.auth.clientCredentials.algorithm",
        '"transport.auth.clientCredentials.algorithm" must be one of "ES256", "RS256", "PS256", "EdDSA", received "HS256"',
      ],
      [
        "transport.auth.clientCredentials.scopes[0]",
        '"transport.auth.clientCredentials.scopes[0]" must be a scope such as "mcp:tools", received "a b"',
      ],
    ]);
  });
});

describe("checkPolicy() suggestions", () => {
  const base = { server: "a", transport: { url: "https://a.example/mcp" } };
  const levels = '"debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency"';

  test("a value not in a fixed list gets the closest allowed value, or the one it abbreviates", () => {
    assert.deepEqual(
      [
        ...messages({ ...base, logLevel: "warn" }),
        ...messages({ ...base, logLevel: "Info" }),
        ...messages({ ...base, era: "morden" }),
        ...messages({ ...base, passDown: ["sampleing"] }),
        ...messages({ ...base, elicitation: { modes: ["URL", "forms"] } }),
        ...messages({ server: "a", transport: { url: "https://a.example/mcp", redirect: "sameorigin" } }),
      ],
      [
        ["logLevel", `"logLevel" must be a log level (${levels}), received "warn" (did you mean "warning"?)`],
        ["logLevel", `"logLevel" must be a log level (${levels}), received "Info" (did you mean "info"?)`],
        [
          "era",
          '"era" must be one of "modern", "legacy", "auto", received "morden" (did you mean "modern"?)',
        ],
        [
          "passDown[0]",
          '"passDown[0]" must be one of "sampling", "elicitation", "roots", received "sampleing" (did you mean "sampling"?)',
        ],
        [
          "elicitation.modes[0]",
          '"elicitation.modes[0]" must be one of "form", "url", received "URL" (did you mean "url"?)',
        ],
        [
          "elicitation.modes[1]",
          '"elicitation.modes[1]" must be one of "form", "url", received "forms" (did you mean "form"?)',
        ],
        [
          "transport.redirect",
          '"transport.redirect" must be one of "same-origin", "none", "any", received "sameorigin" (did you mean "same-origin"?)',
        ],
      ],
    );
  });

  test("a value far from every allowed one, or as close to two, gets no suggestion", () => {
    assert.deepEqual(
      [
        ...messages({ ...base, logLevel: "loud" }),
        ...messages({
          server: "a",
          transport: {
            url: "https://a.example/mcp",
            auth: { oauth: { tokenEndpointAuthMethod: "client_secret" } },
          },
        }),
      ],
      [
        ["logLevel", `"logLevel" must be a log level (${levels}), received "loud"`],
        [
          "transport.auth.oauth.tokenEndpointAuthMethod",
          '"transport.auth.oauth.tokenEndpointAuthMethod" must be one of "none", "client_secret_basic", "client_secret_post", received "client_secret"',
        ],
      ],
    );
  });

  test("a key of another level names where it belongs, every place when there are several", () => {
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example/mcp", maxTokens: 5, clientId: "x" },
        maxTokens: 5,
        url: "https://a.example/mcp",
        tools: true,
        sampling: { origin: "https://a.example" },
        access: [{ tools: "*", context: true, scope: ["a"] }],
      }),
      [
        ["maxTokens", '"maxTokens" is not a policy option (did you mean "sampling.maxTokens"?)'],
        ["url", '"url" is not a policy option (did you mean "transport.url"?)'],
        ["tools", '"tools" is not a policy option (did you mean "sampling.tools" or "access[].tools"?)'],
        ["sampling.origin", '"sampling.origin" is not a policy option (did you mean "elicitation.origin"?)'],
        [
          "access[0].context",
          '"access[0].context" is not a policy option (did you mean "sampling.context"?)',
        ],
        ["access[0].scope", '"access[0].scope" is not a policy option (did you mean "access[0].scopes"?)'],
        [
          "transport.maxTokens",
          '"transport.maxTokens" is not a policy option (did you mean "sampling.maxTokens"?)',
        ],
        [
          "transport.clientId",
          '"transport.clientId" is not a policy option (did you mean "transport.auth.oauth.clientId" or "transport.auth.clientCredentials.clientId"?)',
        ],
      ],
    );
  });

  test("a key of no other level nor near name lists the options of its object when they are few; a kind's name in an object keyed by kinds is not taken for the option of that name", () => {
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example/mcp" },
        handlerTimeout: { sampling: "2m" },
        sampling: { frobnicate: 1 },
        wibble: 1,
      }),
      [
        [
          "handlerTimeout.sampling",
          '"handlerTimeout.sampling" is not a policy option (expected "elicitation" or "default")',
        ],
        [
          "sampling.frobnicate",
          '"sampling.frobnicate" is not a policy option (expected "maxTokens", "context", "allowIdle", "maxToolIterations", "rejectionCode" or "tools")',
        ],
        ["wibble", '"wibble" is not a policy option'],
      ],
    );
    // Written in another case: a kind is still a kind, and an option of the object is the one meant.
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example/mcp" },
        handlerTimeout: { Sampling: "2m", Elicitation: "2m" },
      }),
      [
        [
          "handlerTimeout.Sampling",
          '"handlerTimeout.Sampling" is not a policy option (expected "elicitation" or "default")',
        ],
        [
          "handlerTimeout.Elicitation",
          '"handlerTimeout.Elicitation" is not a policy option (did you mean "handlerTimeout.elicitation"?)',
        ],
      ],
    );
    // A top-level option nested by mistake is still named.
    assert.deepEqual(
      messages({
        server: "a",
        transport: { url: "https://a.example/mcp", era: "legacy" },
        sampling: { handlerTimeout: "2m" },
      }),
      [
        [
          "sampling.handlerTimeout",
          '"sampling.handlerTimeout" is not a policy option (did you mean "handlerTimeout"?)',
        ],
        ["transport.era", '"transport.era" is not a policy option (did you mean "era"?)'],
      ],
    );
  });

  test("a misspelt url or command is named, and not reported as the other one missing", () => {
    assert.deepEqual(
      [
        ...messages({ server: "a", transport: { cmd: "mcp-server", args: ["--stdio"] } }),
        ...messages({ server: "a", transport: { uri: "https://a.example/mcp" } }),
      ],
      [
        ["transport.cmd", '"transport.cmd" is not a policy option (did you mean "transport.command"?)'],
        ["transport.uri", '"transport.uri" is not a policy option (did you mean "transport.url"?)'],
      ],
    );
  });

  test("a transport's kind is told by its other options when url and command are both missing", () => {
    const either = '"transport" must have "url" (an HTTP server) or "command" (a program on stdio)';
    assert.deepEqual(
      [
        ...messages({ server: "a", transport: { args: ["--stdio"] } }),
        ...messages({ server: "a", transport: { headers: {} } }),
        ...messages({ server: "a", transport: {} }),
        ...messages({ server: "a", transport: { endpoint: "https://a.example/mcp" } }),
        ...messages({ server: "a", transport: { url: "https://a.example/mcp", command: "mcp-server" } }),
      ],
      [
        ["transport.command", '"transport.command" is required'],
        ["transport.url", '"transport.url" is required'],
        ["transport", `${either}, received {}`],
        ["transport", `${either}, received an object with "endpoint"`],
        ["transport.endpoint", '"transport.endpoint" is not a policy option'],
        ["transport", `${either}, not both`],
      ],
    );
  });

  test("a problem never echoes a header's or variable's value, nor a URL's query values", () => {
    const notShown = "(not shown: it may be a secret)";
    assert.deepEqual(
      [
        ...messages({ server: "a", transport: { headers: { authorization: "Bearer sk-1" } } }),
        ...messages({
          server: "a",
          transport: { url: "https://a.example/mcp", headers: { authorization: ["Bearer sk-2"] } },
        }),
        ...messages({ server: "a", transport: { command: "mcp-server", env: { TOKEN: 12345 } } }),
        ...messages({ server: "a", transport: { url: "http://a.example/mcp?api_key=sk-3&v=1#k" } }),
        ...messages({ server: "a", transport: { url: "ftp://a.example/?api_key=sk-4" } }),
      ],
      [
        ["transport.url", '"transport.url" is required'],
        [
          "transport.headers.authorization",
          `"transport.headers.authorization" must be a string, received an array ${notShown}`,
        ],
        ["transport.env.TOKEN", `"transport.env.TOKEN" must be a string, received a number ${notShown}`],
        [
          "transport.url",
          '"transport.url" must use https unless its host is loopback, received "http://a.example/mcp?api_key=…&v=…" (set "transport.allowHttp: true" to accept the risk)',
        ],
        [
          "transport.url",
          '"transport.url" must be an absolute http(s) URL, received "ftp://a.example/?api_key=…"',
        ],
      ],
    );
  });

  test("an option of the other transport kind says which kind it belongs to", () => {
    assert.deepEqual(
      [
        ...messages({ server: "a", transport: { url: "https://a.example/mcp", args: ["x"] } }),
        ...messages({ server: "a", transport: { command: "mcp-server", headers: {} } }),
      ],
      [
        [
          "transport.args",
          '"transport.args" is an option of a stdio transport (with "command"), not of an HTTP transport (with "url")',
        ],
        [
          "transport.headers",
          '"transport.headers" is an option of an HTTP transport (with "url"), not of a stdio transport (with "command")',
        ],
      ],
    );
  });
});
