// `sluice login`, `sluice logout` and `sluice call` with their tokens, end to end with no mocks:
// a real authorization server (oidc-provider, tests/_support/authorization-server.ts), an MCP
// server built with `@modelcontextprotocol/server` 2.4.0 that demands its bearer tokens
// (tests/_support/protected-mcp-server.ts), and the command in a process of its own
// (`node bin/sluice.mjs`), as a person runs it. The test plays the browser: the harness follows
// the authorization URL the command prints, and the test brings its redirect back to the
// command's loopback listener.
//
// Node only: oidc-provider is a Node library; the command is the same code on every runtime.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { main } from "../../src/cli/mod.ts";
import { openerOf } from "../../src/cli/_open-in-browser.ts";
import { type AuthorizationServer, startAuthorizationServer } from "../_support/authorization-server.ts";
import { eventually, within } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";
import { REPO_ROOT } from "../_support/modern-peer.ts";
import { type ProtectedMcpServer, startProtectedMcpServer } from "../_support/protected-mcp-server.ts";
import { scriptedIo, type TempDir, tempDir } from "./_scripted-io.ts";

const skip = process.versions.deno === undefined && process.versions.bun === undefined ? false : "Node only";

let as: AuthorizationServer;
let upstream: ProtectedMcpServer;
/**
 * A server that names its protected resource metadata only in its 401's challenge, and leaves
 * server/discover open (tools/list is the request that gets the challenge).
 */
let challenged: ProtectedMcpServer;
let dir: TempDir;
let policies: string;
let tokenFile: string;

before(async () => {
  if (skip !== false) return;
  as = await startAuthorizationServer({ scopes: ["mcp:tools"], accessTokenTtl: 600 });
  upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  challenged = await startProtectedMcpServer(as, {
    metadataPath: "/custom/prm.json",
    openMethods: ["server/discover"],
  });
  dir = tempDir();
  policies = join(dir.path, "policies");
  tokenFile = join(dir.path, "config", "tokens.json");
  const write = (server: string, transport: Record<string, unknown>) =>
    writeFileSync(
      join(policies, `${server}.policy.json`),
      JSON.stringify({ server, transport: { url: upstream.url, ...transport }, era: "modern" }),
    );
  mkdirSync(policies);
  write("files", { auth: { oauth: { scopes: ["mcp:tools"] } } });
  write("plain", {});
  writeFileSync(
    join(policies, "challenged.policy.json"),
    JSON.stringify({
      server: "challenged",
      transport: { url: challenged.url, auth: { oauth: { scopes: ["mcp:tools"] } } },
      era: "legacy",
    }),
  );
  write("machine", {
    auth: { clientCredentials: { clientId: "sluice-m2m", clientSecretEnv: "M2M_SECRET" } },
  });
});

after(async () => {
  await upstream?.close();
  await challenged?.close();
  await as?.close();
  dir?.remove();
});

/** A `sluice` process: its output so far, waits on it, and its exit. */
interface Sluice {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (or stderr), as soon as it is printed. */
  printed(pattern: RegExp, stream?: "stdout" | "stderr"): Promise<RegExpExecArray>;
  /** The exit code and everything printed. */
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts `node bin/sluice.mjs <argv> --policies <folder>` with the test's token file. */
function sluice(argv: readonly string[], env: Record<string, string> = {}): Sluice {
  const child = spawn(process.execPath, [
    join(REPO_ROOT, "bin", "sluice.mjs"),
    ...argv,
    "--policies",
    policies,
  ], {
    cwd: REPO_ROOT,
    env: { ...process.env, SLUICE_TOKEN_FILE: tokenFile, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end();
  const text = { stdout: "", stderr: "" };
  const waiters = new Set<() => void>();
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream].setEncoding("utf8");
    child[stream].on("data", (chunk: string) => {
      text[stream] += chunk;
      for (const wake of waiters) wake();
    });
  }
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => {
      for (const wake of waiters) wake();
      resolve({ code, stdout: text.stdout, stderr: text.stderr });
    })
  );
  const printed = (pattern: RegExp, stream: "stdout" | "stderr" = "stdout") =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(text[stream]);
        if (match !== null) {
          waiters.delete(look);
          resolve(match);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(look);
          reject(new Error(`sluice exited before printing ${pattern}:\n${text.stdout}\n${text.stderr}`));
        }
      };
      waiters.add(look);
      look();
    });
  return { child, stdout: () => text.stdout, stderr: () => text.stderr, printed, exited };
}

/** What `sluice login <server>` prints while it waits: the URL, its host, and the listener's address. */
const waitingFor = (server: string) =>
  new RegExp(
    `^Sign in to "${server}" in your browser:\\n {2}URL: {2}(\\S+)\\n {2}host: (\\S+)\\n(Open the URL yourself \\(or run with --open\\)|Opening it with xdg-open); waiting for the browser at (http:\\/\\/127\\.0\\.0\\.1:\\d+\\/callback) for 10 minutes \\(Ctrl-C cancels\\)\\n$`,
  );
const WAITING = waitingFor("files");

/** Runs `sluice login <server>` (`files`) through the browser's round trip as `subject`. */
async function login(
  subject: string,
  env: Record<string, string> = {},
  flags: string[] = [],
  server = "files",
) {
  const run = sluice(["login", server, ...flags], env);
  const [, url = "", host, how, redirectUri = ""] = await run.printed(waitingFor(server));
  const back = await as.authorize(url, subject);
  const page = await fetch(back);
  return {
    url: new URL(url),
    host,
    how,
    redirectUri,
    back,
    page: { status: page.status, type: page.headers.get("content-type"), html: await page.text() },
    exit: await run.exited,
  };
}

/** Runs a command to its end. */
function run(argv: readonly string[]) {
  return sluice(argv).exited;
}

const signedInPage = (server: string) =>
  `<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>sluice: signed in</title>\n` +
  `<body>\n<p>Signed in to <b>${server}</b>. You can close this tab.</p>\n</body></html>\n`;

describe("sluice login, logout, and call with the saved tokens", { skip }, () => {
  test("login prints the authorization URL, takes the browser back on loopback, saves the tokens 0600; call uses them", async () => {
    rmSync(tokenFile, { force: true });
    const signedIn = await login("ada@example.com");

    assert.equal(`${signedIn.url.origin}${signedIn.url.pathname}`, `${as.issuer}/auth`);
    assert.equal(signedIn.host, "127.0.0.1");
    assert.equal(signedIn.how, "Open the URL yourself (or run with --open)");
    assert.equal(signedIn.url.searchParams.get("redirect_uri"), signedIn.redirectUri);
    assert.equal(signedIn.url.searchParams.get("resource"), upstream.url);
    assert.equal(signedIn.url.searchParams.get("code_challenge_method"), "S256");
    assert.equal(signedIn.url.searchParams.get("scope"), "mcp:tools offline_access");
    assert.equal(`${signedIn.back.origin}${signedIn.back.pathname}`, signedIn.redirectUri);
    assert.equal(signedIn.back.searchParams.get("iss"), as.issuer);
    assert.deepEqual(signedIn.page, {
      status: 200,
      type: "text/html; charset=utf-8",
      html: signedInPage("files"),
    });
    assert.equal(signedIn.exit.code, 0);
    assert.equal(signedIn.exit.stderr, "");
    assert.equal(
      signedIn.exit.stdout.split("\n").at(-2),
      `Signed in to "files"; tokens saved in ${JSON.stringify(tokenFile)}`,
    );
    // The listener took its one callback and is gone.
    await assert.rejects(fetch(signedIn.back), TypeError);

    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir.path, "config")).mode & 0o777, 0o700);
    const stored = JSON.parse(readFileSync(tokenFile, "utf8")) as {
      values: Record<string, { value: string }>;
    };
    const grant = JSON.parse(
      stored.values[`grant|files|${encodeURIComponent(upstream.url)}|`]?.value ?? "{}",
    ) as Record<string, unknown>;
    assert.deepEqual(
      [grant["issuer"], grant["redirectUri"], grant["scopes"], typeof grant["refreshToken"]],
      [as.issuer, signedIn.redirectUri, ["mcp:tools"], "string"],
    );

    assert.deepEqual(await run(["call", "files", "whoami"]), {
      code: 0,
      stdout: "ada@example.com\n",
      stderr: "",
    });
  });

  test("logout forgets the tokens; call then exits 4 and says to run sluice login; logout again has nothing to forget", async () => {
    rmSync(tokenFile, { force: true });
    assert.equal((await login("bo@example.com")).exit.code, 0);
    assert.deepEqual(await run(["call", "files", "whoami"]), {
      code: 0,
      stdout: "bo@example.com\n",
      stderr: "",
    });

    assert.deepEqual(await run(["logout", "files"]), {
      code: 0,
      stdout: `Signed out of "files": its tokens are gone from ${JSON.stringify(tokenFile)}\n`,
      stderr: "",
    });
    assert.deepEqual(await run(["call", "files", "whoami"]), {
      code: 4,
      stdout: "",
      // The command to run names the policy folder the call was given.
      stderr:
        `sluice call: server "files" needs a sign-in: run \`sluice login files --policies ${policies}\`\n`,
    });
    assert.deepEqual(await run(["logout", "files"]), {
      code: 0,
      stdout: `No tokens for "files" in ${JSON.stringify(tokenFile)}: nothing to forget\n`,
      stderr: "",
    });
  });

  test("login again, after a logout too, comes back on the same redirect URI and so signs in as the client it registered the first time", async () => {
    rmSync(tokenFile, { force: true });
    const registered = as.registrations();
    const first = await login("fay@example.com");
    assert.equal((await run(["logout", "files"])).code, 0);
    const second = await login("gil@example.com");
    assert.deepEqual(
      [first.exit.code, second.exit.code, second.redirectUri, as.registrations() - registered],
      [0, 0, first.redirectUri, 1],
    );
    assert.equal(second.url.searchParams.get("client_id"), first.url.searchParams.get("client_id"));
    assert.deepEqual(await run(["call", "files", "whoami"]), {
      code: 0,
      stdout: "gil@example.com\n",
      stderr: "",
    });
  });

  test("login signs in to a server that names its protected resource metadata only in its 401's challenge, asking for it without a token first (tools/list, discovery being open); call uses the tokens", async () => {
    rmSync(tokenFile, { force: true });
    const seen = challenged.requests().length;
    const signedIn = await login("dee@example.com", {}, [], "challenged");
    assert.deepEqual([signedIn.exit.code, signedIn.exit.stderr], [0, ""]);
    assert.equal(signedIn.url.searchParams.get("resource"), challenged.url);
    assert.deepEqual(
      challenged.requests().slice(seen).map(({ method, rpc, token }) => ({ method, rpc, token })),
      [{ method: "POST", rpc: "server/discover", token: "" }, {
        method: "POST",
        rpc: "tools/list",
        token: "",
      }],
    );
    assert.deepEqual(await run(["call", "challenged", "whoami"]), {
      code: 0,
      stdout: "dee@example.com\n",
      stderr: "",
    });
  });

  test("the listener answers only GET /callback, and a callback whose state is not the login's with 400, waiting on for the browser's, which signs in", async () => {
    rmSync(tokenFile, { force: true });
    const login = sluice(["login", "files"]);
    const [, url = "", , , redirectUri = ""] = await login.printed(WAITING);
    const origin = new URL(redirectUri).origin;
    // What each request is answered, one after the other (a listener gone answers a TypeError).
    const answer = (target: string, init?: RequestInit) =>
      fetch(target, init).then(async (page) => [page.status, await page.text()], String);
    const iss = encodeURIComponent(as.issuer);
    const answers = [
      await answer(`${origin}/favicon.ico`),
      await answer(redirectUri, { method: "POST" }),
      await answer(`${redirectUri}?code=forged&state=not-the-state&iss=${iss}`),
      await answer(`${redirectUri}?code=forged&iss=${iss}`),
    ];
    const wrong =
      "This is not the sign-in sluice is waiting for: its state differs from the one sluice sent. " +
      "Sign in from the URL sluice printed last.\n";
    assert.deepEqual(answers, [[404, "Not found\n"], [404, "Not found\n"], [400, wrong], [400, wrong]]);

    const page = await fetch(await as.authorize(url, "eve@example.com"));
    assert.deepEqual({ status: page.status, html: await page.text() }, {
      status: 200,
      html: signedInPage("files"),
    });
    const exit = await login.exited;
    assert.deepEqual([exit.code, exit.stderr], [0, ""]);
    assert.deepEqual(await run(["call", "files", "whoami"]), {
      code: 0,
      stdout: "eve@example.com\n",
      stderr: "",
    });
  });

  test(
    "login --open starts the platform's opener on the URL; without one it says so, and Ctrl-C cancels with 130",
    {
      skip: process.platform === "linux" ? false : "the fake opener is xdg-open, the Linux opener",
    },
    async () => {
      // A stand-in xdg-open, found first on PATH: it writes the URL it was given to a file.
      const bin = tempDir({ "xdg-open": '#!/bin/sh\nprintf "%s" "$1" > "$(dirname "$0")/opened"\n' });
      const empty = tempDir();
      try {
        chmodSync(join(bin.path, "xdg-open"), 0o755);
        rmSync(tokenFile, { force: true });
        const opened = await login("cy@example.com", { PATH: `${bin.path}:${process.env["PATH"] ?? ""}` }, [
          "--open",
        ]);
        assert.deepEqual([opened.exit.code, opened.how, opened.page.html], [
          0,
          "Opening it with xdg-open",
          signedInPage("files"),
        ]);
        const url = await eventually("the opener ran", () => {
          try {
            return readFileSync(join(bin.path, "opened"), "utf8");
          } catch {
            return undefined;
          }
        });
        assert.equal(url, opened.url.href);

        const missing = sluice(["login", "files", "--open"], { PATH: empty.path });
        await missing.printed(WAITING);
        await missing.printed(/did not start/, "stderr");
        missing.child.kill("SIGINT");
        const exit = await missing.exited;
        assert.deepEqual([exit.code, exit.stderr], [
          130,
          "sluice login: xdg-open did not start (spawn xdg-open ENOENT): open the URL yourself\n" +
          "sluice login: interrupted, not signed in\n",
        ]);
      } finally {
        bin.remove();
        empty.remove();
      }
    },
  );
});

/**
 * An MCP server and its authorization server on one loopback port (Dynamic Client Registration of
 * the public client "c1"), whose token endpoint takes a request and never answers it.
 *
 * @returns Its base URL; `tokenRequest`, settled once a token request arrived; `tokenClosed`,
 *   once the client closed that request's connection; and `close()`.
 */
async function silentTokenEndpoint() {
  let base = "";
  const asked = gate();
  const closed = gate();
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on("end", () => {
      const path = new URL(req.url ?? "/", base).pathname;
      if (path === "/mcp") {
        json(401, {}, {
          "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        });
      } else if (path === "/.well-known/oauth-protected-resource/mcp") {
        json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      } else if (path === "/.well-known/oauth-authorization-server") {
        json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      } else if (path === "/register") {
        json(201, { client_id: "c1", token_endpoint_auth_method: "none" });
      } else if (path === "/token") {
        // Never answered: only the client ends it, by closing its connection.
        res.once("close", closed.open);
        asked.open();
      } else {
        json(404, {});
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    tokenRequest: asked.opened,
    tokenClosed: closed.opened,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("sluice login: Ctrl-C during the code exchange", { skip }, () => {
  test("login interrupted while the authorization server has not answered the token request stops it at once: exit 130 and interrupted, the browser gets the failure page, no tokens saved", async () => {
    const network = await silentTokenEndpoint();
    const folder = tempDir({
      "slow.policy.json": JSON.stringify({
        server: "slow",
        transport: { url: `${network.base}/mcp`, auth: { oauth: {} } },
        era: "modern",
      }),
    });
    const tokens = join(folder.path, "tokens.json");
    const controller = new AbortController();
    const scripted = scriptedIo([], {
      cwd: folder.path,
      signal: controller.signal,
      env: { SLUICE_TOKEN_FILE: tokens, NO_COLOR: "1" },
    });
    const ended = main(["login", "slow", "--policies", "."], scripted.io);
    try {
      const [, url = "", , , redirectUri = ""] = await eventually(
        "the login's URL",
        () => waitingFor("slow").exec(scripted.stdout()) ?? undefined,
      );
      const state = new URL(url).searchParams.get("state") ?? "";
      const browser = fetch(`${redirectUri}?code=the-code&state=${state}`);
      await within("the token request", network.tokenRequest, 5_000);
      controller.abort(new Error("Received SIGINT"));
      const exit = await within("the interrupted login", ended, 5_000);
      const page = await browser;
      await within("the token request's connection closed", network.tokenClosed, 5_000);
      const stored = JSON.parse(readFileSync(tokens, "utf8")) as { values: Record<string, unknown> };
      assert.deepEqual(
        [exit, scripted.stderr(), page.status, await page.text()],
        [
          130,
          "sluice login: interrupted, not signed in\n",
          400,
          `<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>sluice: sign-in failed</title>\n` +
          `<body>\n<p>The sign-in to <b>slow</b> failed: Sign-in to server &#34;slow&#34; was cancelled. ` +
          `Run <code>sluice login slow</code> again.</p>\n</body></html>\n`,
        ],
      );
      assert.deepEqual(Object.keys(stored.values).filter((key) => key.startsWith("grant|")), []);
    } finally {
      controller.abort();
      await ended.catch(() => {});
      await network.close();
      folder.remove();
    }
  });
});

describe("sluice login and logout: usage errors", { skip }, () => {
  const usage = (command: string, message: string) => ({
    code: 2,
    stdout: "",
    stderr: `sluice ${command}: ${message}\nRun "sluice ${command} --help" for usage.\n`,
  });
  const inProcess = async (argv: string[]) => {
    const scripted = scriptedIo([], { env: { SLUICE_TOKEN_FILE: tokenFile } });
    const code = await main([...argv, "--policies", policies], scripted.io);
    return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
  };

  test("login and logout exit 2 on a server whose policy has no transport.auth.oauth, naming it", async () => {
    for (const command of ["login", "logout"]) {
      assert.deepEqual(
        await inProcess([command, "plain"]),
        usage(
          command,
          `the policy of server "plain" has no "transport.auth.oauth", expected it: ${command} is for ` +
            "servers a person signs in to with OAuth",
        ),
      );
      assert.deepEqual(
        await inProcess([command, "machine"]),
        usage(
          command,
          `the policy of server "machine" has "transport.auth.clientCredentials", expected ` +
            `"transport.auth.oauth": with client credentials sluice gets its tokens by itself, no ${command} needed`,
        ),
      );
    }
  });

  test("login and logout exit 2 without a server, with two, or with one that has no policy", async () => {
    assert.deepEqual(await inProcess(["login"]), usage("login", "expected <server>, received nothing"));
    assert.deepEqual(
      await inProcess(["logout", "files", "plain"]),
      usage("logout", 'unexpected argument "plain", expected only <server>'),
    );
    assert.deepEqual(
      await inProcess(["login", "nowhere"]),
      usage(
        "login",
        `no policy for server "nowhere" in ${
          JSON.stringify(policies)
        }, expected one of: "challenged", "files", "machine", "plain"`,
      ),
    );
    assert.deepEqual(
      await inProcess(["logout", "files", "--open"]),
      usage("logout", 'unknown flag "--open", expected one of --policies, --help'),
    );
  });

  test("openerOf() is open on macOS, rundll32 on Windows, xdg-open elsewhere, the URL one argument", () => {
    const url = "https://as.example.com/auth?a=1&b=%25x%25";
    assert.deepEqual(
      ["darwin", "win32", "linux", "freebsd"].map((platform) => openerOf(url, platform)),
      [
        ["open", [url]],
        ["rundll32", ["url.dll,FileProtocolHandler", url]],
        ["xdg-open", [url]],
        ["xdg-open", [url]],
      ],
    );
  });
});
