// `sluice check` through main(): the repository's policies, broken files, and folders without policies.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeChain, formatBytes } from "../../src/cli/_describe-chain.ts";
import { runtimeName } from "../../src/cli/_load-module.ts";
import { main } from "../../src/cli/mod.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { scriptedIo, tempDir } from "./_scripted-io.ts";

async function check(argv: string[], cwd: string) {
  const scripted = scriptedIo([], { cwd });
  const code = await main(["check", ...argv], scripted.io);
  return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

describe("sluice check", () => {
  test("check compiles policies/ and prints github's chain in the order the chain runs it", async () => {
    const result = await check([], REPO_ROOT);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    const github = result.stdout.split("\n\n").find((block) => block.startsWith("github "));
    assert.equal(
      github,
      [
        "github  policies/github.policy.ts",
        "  transport          http https://api.githubcopilot.com/mcp/ (redirects same-origin)",
        "  era                auto (server/discover, else initialize)",
        "  calls              callTimeout 30s per leg, maxTotalTimeout 10m per call, maxRounds 10, " +
        "maxInputRequests 16 per round",
        "  messages           maxMessageBytes 4 MiB (a JSON body, a stdio line, a front request), " +
        "maxEventBytes 4 MiB per SSE event, maxJsonDepth 64 levels",
        "  input requests, checked in this order:",
        "    1. capability    declared when the handler implements it: elicitation (url), roots; " +
        "never: sampling (-32601)",
        "    2. budget        inputRateLimit 10 per 1s, burst 20; over it: -1 (sampling), -32000 (others); " +
        "store unavailable: refused",
        "    sampling/createMessage: refused at step 1 (sampling: false)",
        "    elicitation/create:",
        "      3. mode        url, of those the handler declares (missing: form); else -32602",
        "      4. url         (url mode only) https, no userinfo, allowHosts github.com, *.github.com, denyHosts " +
        "gist.github.com, no IP hosts, no private hosts, at most 2048 characters; else -32602; never opened by sluice",
        "      5. handler     timeout 5m",
        "      6. answer      accept, decline or cancel; a form accept fits the schema (defaults filled in); " +
        "a URL accept has no content; else -32603",
        "    roots/list:",
        "      3. handler     timeout 1m",
        '      4. answer      only file:// roots on this host, "." and ".." resolved, the rest dropped; else -32603',
        "  logs               level info and above, logRateLimit 50 per 1s, burst 100; " +
        "maxWaitingNotifications 1000 per consumer, newer dropped",
        "  legacy             maxServerRequests 8 at once, the next answered busy (-32000)",
        "  front              passDown none, stateTtl 10m, maxSessions 32 (one unused 10m is closed)",
        "  access             every caller, every tool",
      ].join("\n"),
    );
    assert.ok(
      result.stdout.endsWith('\n\nAll 3 policy files in "policies" compile: demo, everything, github\n'),
      result.stdout,
    );
  });

  test("check prints a sampling section with the clamp, tool loop and context, a stdio transport, and the front's sessions and access", async () => {
    const dir = tempDir({
      "local.policy.js": `export default ${
        JSON.stringify({
          server: "local",
          transport: { command: "mcp-local", args: ["--stdio"], env: { TOKEN: "secret" } },
          sampling: { maxTokens: 512, context: true, maxToolIterations: 2, rejectionCode: -7 },
          elicitation: { modes: ["form"] },
          roots: false,
          passDown: ["sampling", "roots"],
          stateTtl: "90s",
          maxSessions: 3,
          sessionIdleTimeout: "1m",
          access: [{ subjects: ["alice", "bob"], tools: ["echo"] }, { scopes: ["mcp:admin"] }],
        })
      };\n`,
    });
    try {
      const result = await check(["."], dir.path);
      assert.deepEqual([result.code, result.stderr], [0, ""]);
      assert.deepEqual(
        result.stdout.split("\n").filter((line) =>
          /^ {2}(transport|front|access)|^ {4}(2|s|r)|^ {6}[3-7]\./.test(line)
        ),
        [
          "  transport          stdio mcp-local --stdio, env TOKEN",
          "    2. budget        inputRateLimit 10 per 1s, burst 20; over it: -7 (sampling), -32000 (others); " +
          "store unavailable: refused",
          "    sampling/createMessage:",
          "      3. tools       tools and toolChoice refused (-32602) unless sampling.tools (off)",
          "      4. maxTokens   a positive integer (else -32602), clamped to 512",
          "      5. tool_result tool_result blocks answer the tool_use blocks just before them and nothing else (else -32602)",
          "      6. idle        legacy only: refused (-7) with no call in flight (allowIdle off)",
          "      7. tool loop   refused (-7) beyond 2 assistant tool_use turns",
          "      3. mode        form, of those the handler declares (missing: form); else -32602",
          "      4. form        (form mode only) flat primitive fields only, at most 100 fields and 500 enum values; else -32602",
          "      5. handler     timeout 5m",
          "      6. answer      accept, decline or cancel; a form accept fits the schema (defaults filled in); " +
          "a URL accept has no content; else -32603",
          "    roots/list: refused at step 1 (roots: false)",
          "  front              passDown sampling, roots, stateTtl 90s, maxSessions 3 (one unused 1m is closed)",
          "  access             subjects alice, bob: tools echo; or any caller holding scopes mcp:admin: every tool",
        ],
      );
    } finally {
      dir.remove();
    }
  });

  test("check numbers each elicitation step once when both modes are on, and writes byte limits in units", async () => {
    const dir = tempDir({
      "both.policy.json": JSON.stringify({
        server: "both",
        transport: { url: "https://mcp.example.com/mcp" },
        maxMessageBytes: 1048576,
        maxEventBytes: 1536,
        handlerTimeout: { elicitation: "90s" },
      }),
    });
    try {
      const result = await check(["."], dir.path);
      assert.deepEqual([result.code, result.stderr], [0, ""]);
      const lines = result.stdout.split("\n");
      assert.deepEqual(lines.filter((line) => line.startsWith("  messages")), [
        "  messages           maxMessageBytes 1 MiB (a JSON body, a stdio line, a front request), " +
        "maxEventBytes 1536 bytes per SSE event, maxJsonDepth 64 levels",
      ]);
      const start = lines.indexOf("    elicitation/create:");
      assert.deepEqual(lines.slice(start + 1, start + 6), [
        "      3. mode        form or url, of those the handler declares (missing: form); else -32602",
        "      4. url         (url mode only) https, no userinfo, any public host, no IP hosts, no private hosts, " +
        "at most 2048 characters; else -32602; never opened by sluice",
        "      5. form        (form mode only) flat primitive fields only, at most 100 fields and 500 enum values; " +
        "else -32602",
        "      6. handler     timeout 90s",
        "      7. answer      accept, decline or cancel; a form accept fits the schema (defaults filled in); " +
        "a URL accept has no content; else -32603",
      ]);
    } finally {
      dir.remove();
    }
  });

  test("formatBytes() writes the largest binary unit that divides exactly, else bytes", () => {
    assert.deepEqual(
      [4194304, 1048576, 1024, 1536, 268435456, 2 ** 30, 1, 1000].map(formatBytes),
      ["4 MiB", "1 MiB", "1 KiB", "1536 bytes", "256 MiB", "1 GiB", "1 byte", "1000 bytes"],
    );
  });

  test("check lists every problem of every file, file by file, and exits 1", async () => {
    const dir = tempDir({
      "a.policy.ts": `export default {
        server: "bad one",
        transport: { url: "ftp://x" },
        inputRateLimit: { rate: "ten", per: "1s", burst: 20 },
        samplng: {},
      };\n`,
      "b.policy.json": JSON.stringify({
        server: "b",
        transport: { url: "http://example.com/mcp" },
        callTimeout: "20m",
      }),
      "c.policy.json": JSON.stringify({ server: "c", transport: { url: "https://c.example.com/mcp" } }),
      "notes.md": "not a policy",
    });
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          'a.policy.ts: Policy: "server" must be a server id: letters, digits, ".", "_" or "-", at most 64, ' +
          'starting with a letter or a digit, received "bad one"',
          'a.policy.ts: Policy: "inputRateLimit.rate" must be an integer from 1 to 1000000, received "ten"',
          'a.policy.ts: Policy: "samplng" is not a policy option (did you mean "sampling"?)',
          'a.policy.ts: Policy: "transport.url" must be an absolute http(s) URL, received "ftp://x"',
          'b.policy.json: Policy "b": "transport.url" must use https unless its host is loopback, received ' +
          '"http://example.com/mcp" (set "transport.allowHttp: true" to accept the risk)',
          'b.policy.json: Policy "b": "callTimeout" (20m) must not exceed "maxTotalTimeout" (10m)',
          "",
          '2 of 3 policy files in "." have problems (6 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check reports a file that does not load, one without a default export, a repeated server id, and what a module threw", async () => {
    const dir = tempDir({
      "a.policy.json": JSON.stringify({ server: "same", transport: { url: "https://a.example.com/mcp" } }),
      "b.policy.json": JSON.stringify({ server: "same", transport: { url: "https://b.example.com/mcp" } }),
      "c.policy.js": "export const policy = {};\n",
      "d.policy.json": "{ not json",
      "e.policy.js": 'throw new TypeError("DEMO_PORT must be an integer, received \\"abc\\"");\n',
    });
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          'b.policy.json: Policy "same": "server" "same" is already the server of a.policy.json, expected one ' +
          "policy file per server",
          "c.policy.js: Policy: the file has no default export, expected `export default definePolicy({ ... })`",
          'd.policy.json:1:3: Policy: the file does not parse: unexpected "not", expected a property name in ' +
          'double quotes or "}"',
          "  1 | { not json",
          "    |   ^",
          'e.policy.js: Policy: the file threw as it loaded: TypeError: DEMO_PORT must be an integer, received "abc"',
          "",
          '4 of 5 policy files in "." have problems (4 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check reports a *.policy.* file of a kind it does not read (YAML, .mjs, .mts) as a problem, not a policy left out unsaid", async () => {
    const dir = tempDir({
      "good.policy.json": JSON.stringify({ server: "good", transport: { url: "https://a.example.com/mcp" } }),
      "github.policy.yaml": "server: github\n",
      "files.policy.mjs": "export default {};\n",
      "tsm.policy.mts": "export default {};\n",
      "notes.md": "not a policy\n",
      // An editor's backup and autosave are not policies.
      "good.policy.json~": "{}",
      "#good.policy.json#": "{}",
    });
    try {
      const expected = "Policy: not loaded: expected a *.policy.ts, *.policy.js or *.policy.json file";
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          `files.policy.mjs: ${expected}`,
          `github.policy.yaml: ${expected}`,
          `tsm.policy.mts: ${expected}`,
          "",
          '3 of 4 policy files in "." have problems (3 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check shows where a .ts or .js policy does not parse, with the line and a caret under the column", async () => {
    const dir = tempDir({
      "a.policy.ts":
        'export default {\n  server: "a",\n  transport: { url: "https://a.example/mcp" },,\n};\n',
      "b.policy.js": 'export default {\n\tserver: "é", era: "auto" "modern",\n};\n',
    });
    // The words are each runtime's parser's: esbuild through tsx on Node, swc on Deno, Bun's own.
    const said = {
      node: ['Expected identifier but found ","', 'Expected "}" but found "\\"modern\\""'],
      bun: ['Expected identifier but found ","', 'Expected "}" but found ""modern""'],
      deno: [
        "Unexpected token `,`. Expected identifier, string literal, numeric literal or [ for the computed key",
        `Expected ',', got 'string literal ("modern", "modern")'`,
      ],
    }[runtimeName()];
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          `a.policy.ts:3:47: Policy: the file does not parse: ${said[0]}`,
          '  3 |   transport: { url: "https://a.example/mcp" },,',
          `    | ${" ".repeat(46)}^`,
          `b.policy.js:2:27: Policy: the file does not parse: ${said[1]}`,
          '  2 | \tserver: "é", era: "auto" "modern",',
          `    | \t${" ".repeat(25)}^`,
          "",
          '2 of 2 policy files in "." have problems (2 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check skips hidden files, tells a repeated server id beside the first file's own problem, and names bytes that are not UTF-8, a CR-only line's place and a module's own SyntaxError", async () => {
    const url = { url: "https://a.example.com/mcp" };
    const dir = tempDir({
      ".#a.policy.json": "an editor's lock",
      "a.policy.json": JSON.stringify({ server: "same", transport: url, callTimeout: 5 }),
      "b.policy.json": JSON.stringify({ server: "same", transport: url }),
      "c.policy.json": '{\r  "server": "c",\r  "transport": {}\r  "era": "modern"\r}',
      // As JSON.parse of a missing variable throws, in words of each runtime's own.
      "e.policy.js": 'throw new SyntaxError("GH_CREDS is not JSON");\nexport default {};\n',
    });
    writeFileSync(
      join(dir.path, "d.policy.json"),
      new Uint8Array([...new TextEncoder().encode('{"server":"caf'), 0xe9, 0x22, 0x7d]),
    );
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          'a.policy.json: Policy "same": "callTimeout" must be a duration such as "500ms", "60s", "5m" or "1h", ' +
          'whole milliseconds from "1ms" to "596h", received 5',
          'b.policy.json: Policy "same": "server" "same" is already the server of a.policy.json, expected one ' +
          "policy file per server",
          'c.policy.json:4:3: Policy: the file does not parse: unexpected string "era", expected "," or "}"',
          '  4 |   "era": "modern"',
          "    |   ^",
          "d.policy.json:1:15: Policy: the file does not parse: the file is not UTF-8 text, expected JSON in UTF-8",
          '  1 | {"server":"caf\uFFFD"}',
          "    |               ^",
          "e.policy.js: Policy: the file threw as it loaded: SyntaxError: GH_CREDS is not JSON",
          "",
          '5 of 5 policy files in "." have problems (5 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check of a .policy.ts with top-level await outside a module package: Deno and Bun run it, Node says how to make it a module", async () => {
    const dir = tempDir({
      "t.policy.ts":
        'const url = await Promise.resolve("https://t.example/mcp");\nexport default { server: "t", transport: { url } };\n',
    });
    try {
      const result = await check(["."], dir.path);
      assert.deepEqual(
        [result.code, result.stdout.split("\n")[0]],
        runtimeName() === "node"
          ? [
            1,
            't.policy.ts:1:13: Policy: the file does not parse: Top-level await is currently not supported with the "cjs" ' +
            'output format: on Node, a .ts or .js file with top-level await needs "type": "module" in its package.json ' +
            "(npm pkg set type=module)",
          ]
          : [0, "t  t.policy.ts"],
      );
    } finally {
      dir.remove();
    }
  });

  test("check names the file and place of a syntax error in a module a policy imports", async () => {
    const dir = tempDir({
      "a.policy.ts":
        'import { limits } from "./limits.ts";\nexport default { server: "a", transport: { url: "https://a.example/mcp" }, ...limits };\n',
      "limits.ts": "export const limits = { maxRounds: 5 ;\n",
    });
    const said = {
      node: 'Expected "}" but found ";"',
      bun: 'Expected "}" but found ";"',
      deno: "Expected ',', got ';'",
    }[runtimeName()];
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          `a.policy.ts: Policy: a module it imports does not parse: ${said} (${
            join(dir.path, "limits.ts")
          }:1:38)`,
          "",
          '1 of 1 policy files in "." have problems (1 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check shows where a JSON policy stops being JSON, or gives a property twice, in the same words on every runtime", async () => {
    const dir = tempDir({
      "a.policy.json": '{\n  "server": "a",\n  "transport": { "url": "https://a.example/mcp", },\n}\n',
      "b.policy.json": "{\r\n  'server': 'b'\r\n}",
      "c.policy.json": '{ "server": "c", "era": "auto"\n',
      "d.policy.json": '{ "server": "d" } // the d server\n',
      // JSON, but a reviewer reads maxTokens 100 where JSON.parse keeps the second "sampling".
      "e.policy.json":
        '{\n  "server": "e",\n  "sampling": { "maxTokens": 100 },\n  "sampling": { "context": true }\n}\n',
    });
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: [
          'a.policy.json:3:50: Policy: the file does not parse: unexpected "}", expected a property name in double ' +
          "quotes (JSON allows no comma after the last item)",
          '  3 |   "transport": { "url": "https://a.example/mcp", },',
          `    | ${" ".repeat(49)}^`,
          'b.policy.json:2:3: Policy: the file does not parse: unexpected "\'", expected a property name in double ' +
          'quotes or "}" (JSON strings and names take double quotes)',
          "  2 |   'server': 'b'",
          "    |   ^",
          'c.policy.json:2:1: Policy: the file does not parse: unexpected end of file, expected "," or "}"',
          "  2 | ",
          "    | ^",
          'd.policy.json:1:19: Policy: the file does not parse: unexpected "/", expected the end of the file after ' +
          "the value (JSON allows no comments)",
          '  1 | { "server": "d" } // the d server',
          "    |                   ^",
          'e.policy.json:4:3: Policy: the file does not parse: property name "sampling" given twice in one object, ' +
          "expected each once (JSON.parse keeps only the last)",
          '  4 |   "sampling": { "context": true }',
          "    |   ^",
          "",
          '5 of 5 policy files in "." have problems (5 in all)',
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      dir.remove();
    }
  });

  test("check quotes a policy URL in a problem with no user name and no query value", () => {
    assert.throws(
      () => compilePolicy({ server: "s", transport: { url: "ftp://ghp_abc123@github.com/x?key=k" } }),
      {
        message:
          'Policy "s": "transport.url" must be an absolute http(s) URL, received "ftp://…@github.com/x?key=…"',
      },
    );
  });

  test("check exits 1 with a clear message for a folder without policy files, and for a missing folder", async () => {
    const dir = tempDir({ "README.md": "# nothing here", "x.ts": "export default 1;\n" });
    try {
      assert.deepEqual(await check(["."], dir.path), {
        code: 1,
        stdout: "",
        stderr:
          'sluice check: no policy files in ".", expected *.policy.ts, *.policy.js or *.policy.json files\n',
      });
      assert.deepEqual(await check(["missing"], dir.path), {
        code: 1,
        stdout: "",
        stderr: 'sluice check: cannot read the policy folder "missing": ENOENT, expected a folder of ' +
          "*.policy.ts, *.policy.js or *.policy.json files\n",
      });
    } finally {
      dir.remove();
    }
  });

  test("check exits 2 on an unknown flag or a second folder", async () => {
    assert.deepEqual(await check(["--strict"], REPO_ROOT), {
      code: 2,
      stdout: "",
      stderr:
        'sluice check: unknown flag "--strict", expected one of --policies, --help\nRun "sluice check --help" for usage.\n',
    });
    assert.deepEqual(await check(["a", "b"], REPO_ROOT), {
      code: 2,
      stdout: "",
      stderr: 'sluice check: unexpected argument "b", expected at most one folder\n' +
        'Run "sluice check --help" for usage.\n',
    });
    assert.deepEqual(await check(["a", "--policies", "b"], REPO_ROOT), {
      code: 2,
      stdout: "",
      stderr: 'sluice check: the folder given twice, as "a" and with --policies "b": expected one of them\n' +
        'Run "sluice check --help" for usage.\n',
    });
  });

  test("check takes the folder as --policies too, as the other commands do", async () => {
    const [flagged, positional] = [
      await check(["--policies", "policies"], REPO_ROOT),
      await check(["policies"], REPO_ROOT),
    ];
    assert.deepEqual([flagged.code, flagged.stdout], [0, positional.stdout]);
    assert.ok(
      flagged.stdout.endsWith('All 3 policy files in "policies" compile: demo, everything, github\n'),
    );
  });
});

describe("describeChain() stdio arguments", () => {
  const transport = (args: string[]) =>
    describeChain(
      compilePolicy({ server: "s", transport: { command: "srv", args, env: { PGPASSWORD: "x" } } }),
    )
      .find((line) => line.startsWith("  transport"));

  test("shows a URL argument's password and query values, and the value of a flag or assignment whose name looks secret, as …", () => {
    assert.deepEqual(
      [
        transport([
          "-y",
          "@modelcontextprotocol/server-postgres",
          "postgresql://app:S3cretPassw0rd@db.internal/app",
        ]),
        transport(["--token", "ghp_abcdefSECRET", "--api-key=sk-live-SECRET", "-password", "p", "--verbose"]),
        transport(["--client-secret", "--access-token=a", "GITHUB_TOKEN=b", "LOG=debug", "--pwd", "p"]),
        transport([
          "--url=https://u:p@w@mcp.example.com:8443/mcp?key=k#f",
          "postgres://app@db/app?sslmode=require",
          "a?b#c",
          "--port",
          "5432",
        ]),
      ],
      [
        "  transport          stdio srv -y @modelcontextprotocol/server-postgres postgresql://app:…@db.internal/app, env PGPASSWORD",
        "  transport          stdio srv --token … --api-key=… -password … --verbose, env PGPASSWORD",
        "  transport          stdio srv --client-secret … GITHUB_TOKEN=… LOG=debug --pwd …, env PGPASSWORD",
        "  transport          stdio srv --url=https://u:…@mcp.example.com:8443/mcp?key=… postgres://…@db/app?sslmode=… a?b#c --port 5432, env PGPASSWORD",
      ],
    );
  });

  test("shows a URL argument's user name with no password as …, being a token in practice, and keeps a user name before a password", () => {
    assert.deepEqual(
      transport([
        "https://ghp_abc123@github.com/x",
        "--repo=https://x-access-token:ghp_abc@github.com/x.git",
      ]),
      "  transport          stdio srv https://…@github.com/x --repo=https://x-access-token:…@github.com/x.git, env PGPASSWORD",
    );
  });

  test("shows a --header, -H or --header= argument by the header's name, and the value of a name ending in PASSWORD, PASSWD, PASS, TOKEN, SECRET or KEY, as …", () => {
    assert.deepEqual(
      [
        transport([
          "mcp-remote",
          "https://mcp.example.com/mcp",
          "--header",
          "Authorization: Bearer ghp_SECRET",
          "-H",
          "X-Api-Key:k",
          "--header=Cookie: sid=s",
          "--header",
          "no-colon",
        ]),
        transport(["PGPASSWORD=S3cret", "MYSQL_PASSWD=a", "DB_PASS=b", "HFTOKEN=c", "--dbsecret", "d"]),
        transport(["--apikey", "e", "-Monkey=f", "--compass", "g", "--port", "5432", "--verbose"]),
      ],
      [
        "  transport          stdio srv mcp-remote https://mcp.example.com/mcp --header Authorization: … -H X-Api-Key: … " +
        "--header=Cookie: … --header …, env PGPASSWORD",
        "  transport          stdio srv PGPASSWORD=… MYSQL_PASSWD=… DB_PASS=… HFTOKEN=… --dbsecret …, env PGPASSWORD",
        "  transport          stdio srv --apikey … -Monkey=… --compass … --port 5432 --verbose, env PGPASSWORD",
      ],
    );
  });
});

describe("describeChain() sampling.allowIdle", () => {
  test("the idle step says what it does with allowIdle on and off", () => {
    const idleLine = (allowIdle: boolean) =>
      describeChain(compilePolicy({ server: "a", transport: { command: "srv" }, sampling: { allowIdle } }))
        .find((line) => line.includes(". idle"))?.trim();
    assert.deepEqual([idleLine(true), idleLine(false)], [
      "6. idle        legacy only: let through with no call in flight (allowIdle on)",
      "6. idle        legacy only: refused (-1) with no call in flight (allowIdle off)",
    ]);
  });
});

describe("describeChain() access", () => {
  test("an empty access list, and rules listing no subject, admit no one; a rule listing no tool opens none", () => {
    const accessLine = (access: unknown) =>
      describeChain(compilePolicy({ server: "a", transport: { url: "https://a.example/mcp" }, access }))
        .find((line) => line.startsWith("  access"));
    assert.deepEqual(
      [
        accessLine([]),
        accessLine([{ subjects: [] }]),
        accessLine([{ subjects: [] }, { subjects: ["alice"], tools: [] }]),
      ],
      [
        "  access             no one",
        "  access             no one",
        "  access             subjects alice: no tool",
      ],
    );
  });
});

describe("describeChain() transport.auth", () => {
  test("shows the sign-in's kind and client id, never the variable's value", () => {
    const lines = describeChain(compilePolicy({
      server: "files",
      transport: {
        url: "https://mcp.example.com/mcp",
        auth: { clientCredentials: { clientId: "sluice-m2m", clientSecretEnv: "FILES_SECRET" } },
      },
    }));
    assert.equal(
      lines.find((line) => line.startsWith("  transport")),
      '  transport          http https://mcp.example.com/mcp (redirects same-origin, sign-in client_credentials as "sluice-m2m")',
    );
  });

  test("shows the names of the URL's query parameters, not their values, as it shows only the names of headers", () => {
    const lines = describeChain(compilePolicy({
      server: "q",
      transport: {
        url: "https://mcp.example.com/mcp?key=SECRET&tenant=a&key=b",
        headers: { authorization: "x" },
      },
    }));
    assert.equal(
      lines.find((line) => line.startsWith("  transport")),
      "  transport          http https://mcp.example.com/mcp?key=…&tenant=… (redirects same-origin, headers authorization)",
    );
  });

  test("shows a query part with no = as … alone, since that name may be the token itself", () => {
    const lines = describeChain(compilePolicy({
      server: "q",
      transport: { url: "https://mcp.example.com/mcp?SECRETTOKEN123&tenant=a" },
    }));
    assert.equal(
      lines.find((line) => line.startsWith("  transport")),
      "  transport          http https://mcp.example.com/mcp?…&tenant=… (redirects same-origin)",
    );
  });

  test("shows an oauth sign-in's pre-registered client and issuer, or that one is registered, never the secret's variable", () => {
    const transport = (oauth: Record<string, unknown>) =>
      describeChain(
        compilePolicy({
          server: "github",
          transport: { url: "https://mcp.example.com/mcp", auth: { oauth } },
        }),
      )
        .find((line) => line.startsWith("  transport"));
    assert.deepEqual(
      [
        transport({
          clientId: "sluice-app",
          issuer: "https://github.com/login/oauth",
          clientSecretEnv: "GH_SECRET",
        }),
        transport({ scopes: ["repo"] }),
      ],
      [
        '  transport          http https://mcp.example.com/mcp (redirects same-origin, sign-in oauth as "sluice-app" at https://github.com/login/oauth)',
        "  transport          http https://mcp.example.com/mcp (redirects same-origin, sign-in oauth as a registered client (metadata document or registration))",
      ],
    );
  });
});
