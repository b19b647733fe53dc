// `sluice serve` and who may call it: SLUICE_STATE_KEY required, SLUICE_BEARER_TOKENS (parsing
// and its errors), --auth modules, --public, conflicting sources, and --host 0.0.0.0 with
// --allowed-hosts. Nothing listens beyond loopback: the --public start on 0.0.0.0 is made to fail
// at the bind (its port is held on 127.0.0.1), after the checks and the warning.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { main } from "../../src/cli/mod.ts";
import { policyJson, scriptedIo, type TempDir, tempDir } from "./_scripted-io.ts";

const KEY = "serve-auth-test-state-key-0123456789abcdef";
const SECRET = "ci-secret-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9Sa0Tc";
const NEXT_SECRET = "ci-secret-rotated-Qe7Wr4Ty1Ui8Op5As2Df9Gh3J";
const HELP = 'Run "sluice serve --help" for usage.\n';

let dir: TempDir;
before(() => {
  dir = tempDir({
    "files.policy.json": policyJson("files", "https://mcp.example.com/mcp"),
    "bearer-auth.ts": `export default { bearer: [{ secret: ${JSON.stringify(SECRET)}, subject: "ci" }] };\n`,
    "named-auth.ts": `export const auth = { bearer: [{ secret: ${
      JSON.stringify(NEXT_SECRET)
    }, subject: "ops" }] };\n`,
    "no-auth.ts": "export const other = 1;\n",
    "bad-auth.ts": 'export default { bearer: "x" };\n',
  });
});
after(() => dir?.remove());

/** Runs `sluice serve` to its end (it must fail to start): the exit code and the streams. */
async function failedStart(argv: string[], env: Record<string, string | undefined> = {}) {
  const scripted = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: KEY, ...env } });
  const code = await main(["serve", "--port", "0", "--policies", ".", ...argv], scripted.io);
  return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
}

/** What the command wrote to stderr but its banner and its line on stopping: its warnings. */
const withoutBanner = (stderr: string) =>
  stderr.replace(/^sluice front listening on [^]*?\nStop with Ctrl-C \(SIGINT\) or SIGTERM\.\n/m, "")
    .replace(/^sluice serve: stopping\n/m, "");
const usage = (message: string) => ({ code: 2, stdout: "", stderr: `sluice serve: ${message}\n${HELP}` });

/** Polls `read` until it gives a value, or the command ends, or 10 s pass. */
async function waitFor<T>(read: () => T | undefined, ended: Promise<number>): Promise<T> {
  let done = false;
  void ended.finally(() => (done = true));
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && !done;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`waitFor(): nothing after ${done ? "the command ended" : "10 s"}`);
}

/** Runs `sluice serve` on loopback with `argv` and `env`, gives its URL to `work`, then stops it. */
async function serving<T>(
  argv: string[],
  env: Record<string, string | undefined>,
  work: (url: string) => Promise<T>,
): Promise<{ result: T; code: number; stderr: string }> {
  const controller = new AbortController();
  const scripted = scriptedIo([], {
    cwd: dir.path,
    env: { SLUICE_STATE_KEY: KEY, ...env },
    signal: controller.signal,
  });
  const ended = main(["serve", "--port", "0", "--policies", ".", ...argv], scripted.io);
  try {
    const url = await waitFor(() => /listening on (http:\/\/\S+)\n/.exec(scripted.stderr())?.[1], ended);
    const result = await work(url);
    controller.abort();
    return { result, code: await ended, stderr: withoutBanner(scripted.stderr()) };
  } finally {
    controller.abort();
    await ended;
  }
}

async function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, { headers });
  await response.body?.cancel();
  return response.status;
}

describe("sluice serve: who may call", () => {
  test("serve requires SLUICE_STATE_KEY, and refuses a patterned one", async () => {
    assert.deepEqual(
      await failedStart([], { SLUICE_STATE_KEY: undefined }),
      usage(
        '"SLUICE_STATE_KEY" is not set: expected at least 32 bytes of random data, the same on every instance, make one with `openssl rand -base64 32`',
      ),
    );
    assert.deepEqual(
      await failedStart([], { SLUICE_STATE_KEY: "0123456789abcdef0123456789abcdef" }),
      usage(
        '"SLUICE_STATE_KEY" repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`',
      ),
    );
  });

  test("serve refuses malformed SLUICE_BEARER_TOKENS with the exact message", async () => {
    const malformed =
      'SLUICE_BEARER_TOKENS must be "subject:secret" entries separated by commas, found an entry without a subject or secret';
    const answers = [];
    const cases = [
      "ci",
      `:${SECRET}`,
      "ci:",
      `ci:${SECRET},`,
      `ci:${SECRET},,ops:${NEXT_SECRET}`,
      // Blank once trimmed: no subject, no secret.
      ` :${SECRET}`,
      `ci: ,ops:${NEXT_SECRET}`,
    ];
    for (const tokens of cases) answers.push(await failedStart([], { SLUICE_BEARER_TOKENS: tokens }));
    assert.deepEqual(answers, cases.map(() => usage(malformed)));
  });

  test("serve refuses a weak or repeated secret in SLUICE_BEARER_TOKENS, naming the variable and the entry and not the secret", async () => {
    assert.deepEqual([
      await failedStart([], { SLUICE_BEARER_TOKENS: `ci:${SECRET},ops:short-secret` }),
      await failedStart([], { SLUICE_BEARER_TOKENS: `ci:${"ab".repeat(20)}` }),
      await failedStart([], { SLUICE_BEARER_TOKENS: `ci:${SECRET}, ci:${NEXT_SECRET}!` }),
      await failedStart([], { SLUICE_BEARER_TOKENS: `ci:${SECRET},ops:${NEXT_SECRET},bot:${SECRET}` }),
    ], [
      usage(
        'SLUICE_BEARER_TOKENS: the secret of entry "2" (subject "ops") must be at least 32 bytes of random data, received 12: make one with `openssl rand -base64 32`',
      ),
      usage(
        'SLUICE_BEARER_TOKENS: the secret of entry "1" (subject "ci") repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`',
      ),
      usage(
        'SLUICE_BEARER_TOKENS: the secret of entry "2" (subject "ci") must be made of letters, digits and "-._~+/" (with "=" at the end), as a bearer token is: make one with `openssl rand -base64 32`',
      ),
      usage(
        'SLUICE_BEARER_TOKENS: the secret of entry "3" (subject "bot") is the secret of entry "1": expected a secret of its own',
      ),
    ]);
  });

  test("serve refuses two sources of auth at once with the exact message", async () => {
    const conflict = "--auth, SLUICE_BEARER_TOKENS and --public each say who may call: give one of them";
    const tokens = { SLUICE_BEARER_TOKENS: `ci:${SECRET}` };
    assert.deepEqual([
      await failedStart(["--auth", "bearer-auth.ts"], tokens),
      await failedStart(["--public"], tokens),
      await failedStart(["--auth", "bearer-auth.ts", "--public"]),
    ], [usage(conflict), usage(conflict), usage(conflict)]);
  });

  test("serve refuses an --auth module without a default or auth export", async () => {
    assert.deepEqual(
      await failedStart(["--auth", "no-auth.ts"]),
      usage('--auth "no-auth.ts": expected a default export or an export named "auth", found neither'),
    );
  });

  test("serve refuses an --auth module whose auth is malformed, naming the module", async () => {
    assert.deepEqual(
      await failedStart(["--auth", "bad-auth.ts"]),
      usage('--auth "bad-auth.ts": "auth.bearer" must be a non-empty array of { secret, subject, scopes? }'),
    );
  });

  test("serve refuses --allowed-hosts and --allowed-origins that name nothing, or what is not a host or an origin, naming the flag", async () => {
    assert.deepEqual([
      await failedStart(["--allowed-hosts", ""]),
      await failedStart(["--allowed-hosts", " , "]),
      await failedStart(["--allowed-origins", ","]),
      await failedStart(["--allowed-hosts", "https://gate.example.com"]),
      await failedStart(["--allowed-origins", "app.example.com"]),
    ], [
      usage(
        'flag "--allowed-hosts" names nothing: expected the names clients reach the gateway by, separated by commas',
      ),
      usage(
        'flag "--allowed-hosts" names nothing: expected the names clients reach the gateway by, separated by commas',
      ),
      usage(
        'flag "--allowed-origins" names nothing: expected the origins of the pages that may call it, separated by commas',
      ),
      usage(
        'flag "--allowed-hosts" has "https://gate.example.com", expected a host name with an optional port, like "gate.example.com" or "gate.example.com:8443"',
      ),
      usage(
        'flag "--allowed-origins" has "app.example.com", expected an origin: a scheme, a host and an optional port, like "https://app.example.com"',
      ),
    ]);
  });

  test("serve refuses --host 0.0.0.0 without --allowed-hosts, and with it but without auth; a --host that is no host first", async () => {
    assert.deepEqual([
      await failedStart(["--host", "bad host!", "--allowed-hosts", "gate.example.com", "--public"]),
      await failedStart(["--host", "0.0.0.0"]),
      await failedStart(["--host", "0.0.0.0", "--allowed-hosts", "gate.example.com"]),
    ], [
      usage('flag "--host" must be a host name or an IP address to listen on, received "bad host!"'),
      usage(
        'listening on "0.0.0.0" answers the network: set "allowedHosts" (the command\'s --allowed-hosts) to the names clients reach it by, such as ["gate.example.com"] (other Host values are refused, against DNS rebinding)',
      ),
      usage(
        'listening on "0.0.0.0" needs "auth" (the command\'s --auth, SLUICE_BEARER_TOKENS or --public): bearer secrets ({ bearer: [{ secret, subject }] }), JWT settings ({ jwt: { issuer, jwks } }) or a function; or auth: "none" (the command\'s --public) to let anyone who reaches its port (a free one, picked as it binds) call every server with the credentials its policies hold',
      ),
    ]);
  });

  test(
    "serve --public --host 0.0.0.0 --allowed-hosts passes the checks and warns (then fails to bind a held port: exit 1)",
    async () => {
      const held = await new Promise<Server>((resolve, reject) => {
        const server = createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve(server));
      });
      const port = (held.address() as { port: number }).port;
      const warnings: unknown[][] = [];
      const original = console.warn;
      console.warn = (...args: unknown[]) => void warnings.push(args);
      try {
        const scripted = scriptedIo([], { cwd: dir.path, env: { SLUICE_STATE_KEY: KEY } });
        const code = await main(
          [
            "serve",
            "--port",
            String(port),
            "--policies",
            ".",
            "--host",
            "0.0.0.0",
            "--allowed-hosts",
            "gate.example.com, gate.example.com:8443",
            "--public",
          ],
          scripted.io,
        );
        assert.equal(code, 1);
        assert.match(
          scripted.stderr(),
          new RegExp(
            `^sluice serve: cannot listen on "0\\.0\\.0\\.0" port "${port}": .+, expected a free port this process may bind\\n$`,
          ),
        );
        assert.deepEqual(warnings, [[
          `sluice serve(): WARNING: listening on "0.0.0.0" with auth: "none": anyone who reaches port "${port}" can call every server behind this gateway, with the credentials its policies hold`,
        ]]);
      } finally {
        console.warn = original;
        await new Promise((resolve) => held.close(resolve));
      }
    },
  );

  test(
    "serve --public on loopback starts and lets anyone in, without a warning",
    async () => {
      const { result, code, stderr } = await serving(
        ["--public"],
        {},
        async (url) => [await status(`${url}/servers`)],
      );
      assert.deepEqual([result, code, stderr], [[200], 0, ""]);
    },
  );

  test("serve with SLUICE_BEARER_TOKENS answers 401 without a token and 200 with either secret of the subject", async () => {
    const { result, code, stderr } = await serving([], {
      SLUICE_BEARER_TOKENS: `ci:${SECRET}, ci:${NEXT_SECRET}`,
    }, async (url) => [
      await status(`${url}/servers`),
      await status(`${url}/servers`, { authorization: `Bearer ${SECRET}` }),
      await status(`${url}/servers`, { authorization: `Bearer ${NEXT_SECRET}` }),
      await status(`${url}/servers`, { authorization: `Bearer ${SECRET}x` }),
      await status(`${url}/healthz`),
    ]);
    assert.deepEqual([result, code, stderr], [[401, 200, 200, 401, 200], 0, ""]);
  });

  test("serve --auth takes a module's default export or its export named auth", async () => {
    const statuses = [];
    for (const [module, secret] of [["bearer-auth.ts", SECRET], ["named-auth.ts", NEXT_SECRET]] as const) {
      const { result } = await serving(["--auth", module], {}, async (url) => [
        await status(`${url}/servers`),
        await status(`${url}/servers`, { authorization: `Bearer ${secret}` }),
      ]);
      statuses.push(result);
    }
    assert.deepEqual(statuses, [[401, 200], [401, 200]]);
  });

  test("serve --allowed-origins sends CORS headers to that origin only", async () => {
    const { result } = await serving(["--allowed-origins", "https://app.example.com"], {}, async (url) => {
      const allowed = await fetch(`${url}/servers`, { headers: { origin: "https://app.example.com" } });
      await allowed.body?.cancel();
      const other = await fetch(`${url}/servers`, { headers: { origin: "https://other.example.com" } });
      await other.body?.cancel();
      return [allowed.status, allowed.headers.get("access-control-allow-origin"), other.status];
    });
    assert.deepEqual(result, [200, "https://app.example.com", 403]);
  });
});
