// The library's sign-in by a person, end to end with no stand-ins: createClient with a policy's
// transport.auth.oauth, a real authorization server (oidc-provider,
// tests/_support/authorization-server.ts, which also plays the person's browser) and an MCP server
// built with `@modelcontextprotocol/server` that demands its bearer tokens
// (tests/_support/protected-mcp-server.ts). The handler's `authorize` callback, the
// SignInRequiredError of a client without one, `beginAuthorization`, `completeAuthorization` and
// its refusals, refresh rotation, step-up and `signOut`, in both eras where the era matters.
//
// Not tested here: an authorization URL refused by the policy's URL rules. Discovery accepts an
// authorization server over plain http only on loopback, and `authorize` shows a loopback URL as
// it is (src/client/sign-ins.ts), so a real authorization server on this machine cannot produce
// a URL the rules would refuse.
//
// Node only: oidc-provider is a Node library.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { ClientError } from "../../src/errors.ts";
import { createClient } from "../../src/legacy.ts";
import type { Client } from "../../src/client/client-types.ts";
import type { AuthorizationPrompt, AuthorizeAnswer, AuthorizeContext } from "../../src/handler/handler.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { createMemoryTokenStore, type TokenStore } from "../../src/auth/token-store.ts";
import { signInRequiredBy, SignInRequiredError } from "../../src/upstream-auth-error.ts";
import type { Timers } from "../../src/_internal/timers.ts";
import { type AuthorizationServer, startAuthorizationServer } from "../_support/authorization-server.ts";
import {
  type ProtectedMcpServer,
  type ProtectedMcpServerOptions,
  SCOPE_DEFAULT_CASES,
  startProtectedMcpServer,
} from "../_support/protected-mcp-server.ts";

type Era = "modern" | "legacy";
const ERAS: readonly Era[] = ["modern", "legacy"];
/** Where the authorization server sends the person back: never opened, the test reads the redirect. */
const REDIRECT_URI = "http://127.0.0.1:53682/callback";
const NAME = "sign-in-tests";
/** The flow's lifetime (FLOW_TTL_MS). */
const TEN_MINUTES = 10 * 60_000;
/** The access tokens' lifetime at the authorization server, in seconds. */
const TOKEN_TTL = 600;
/** `Server "files": `, and in the legacy era the failed initialize it happens in. */
const prefix = (era: Era, server = "files") =>
  `Server "${server}": ${era === "legacy" ? "initialize failed: " : ""}`;

let as: AuthorizationServer;
let mcp: ProtectedMcpServer;

before(async () => {
  as = await startAuthorizationServer({ scopes: ["mcp:tools", "mcp:admin"], accessTokenTtl: TOKEN_TTL });
  mcp = await startProtectedMcpServer(as);
});

after(async () => {
  await mcp?.close();
  await as?.close();
});

type Authorize = (prompt: AuthorizationPrompt, ctx: AuthorizeContext) => Promise<AuthorizeAnswer>;

interface Setup {
  readonly era: Era;
  readonly authorize?: (client: Client) => Authorize;
  readonly tokens?: TokenStore;
  readonly now?: () => number;
  readonly timers?: Timers;
  readonly policies?: readonly Policy[];
}

/** A client of the protected server as "files", its handler's `authorize` made with the client at hand. */
function signingClient(setup: Setup): Client {
  const policies = setup.policies ?? [filesPolicy(setup.era)];
  const authorize = setup.authorize;
  const client: Client = createClient({
    name: NAME,
    policies,
    ...(setup.now === undefined ? {} : { clock: { now: setup.now } }),
    ...(setup.timers === undefined ? {} : { timers: setup.timers }),
    signIn: { redirectUri: REDIRECT_URI, ...(setup.tokens === undefined ? {} : { tokens: setup.tokens }) },
    ...(authorize === undefined
      ? {}
      : { handler: { authorize: (prompt, ctx) => authorize(client)(prompt, ctx) } }),
  });
  return client;
}

function filesPolicy(era: Era, server = "files", url = mcp.url): Policy {
  return { server, era, transport: { url, auth: { oauth: { scopes: ["mcp:tools"] } } } };
}

/** The store key of the client's own grant for "files": the server id, its endpoint, the principal "". */
const filesGrantKey = (url = mcp.url) => `grant|files|${encodeURIComponent(url)}|`;

/**
 * An `authorize` that plays the browser as `subject` (at `server`, the shared authorization server
 * unless given) and completes the sign-in before it answers.
 */
function signInAs(
  subject: string,
  seen: AuthorizationPrompt[] = [],
  server: AuthorizationServer = as,
): (client: Client) => Authorize {
  return (client) => async (prompt, ctx) => {
    seen.push(prompt);
    const back = await server.authorize(prompt.url, subject);
    await client.completeAuthorization(ctx.serverId, back.href);
    return { action: "accept" };
  };
}

async function whoami(client: Client, server = "files"): Promise<unknown> {
  return (await client.callTool(server, "whoami")).content;
}

const said = (subject: string) => [{ type: "text", text: subject }];

/** How a call fails when the person accepted but never finished signing in. */
const NOT_COMPLETED = {
  name: "ClientError",
  kind: "transport",
  message: 'Server "files": sign-in to "files" was not completed in time',
};

/** The message of a failure, with its class and kind. */
async function failure(promise: Promise<unknown>): Promise<{ name: string; kind: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ClientError, String(error));
    return { name: error.name, kind: error.kind, message: error.message };
  }
  assert.fail("expected the promise to reject");
}

/**
 * Asserts the scopes each sign-in asked for (`mcp:tools`, then the step-up's `mcp:admin` too), and
 * each request's method and token scopes as `server` saw them: the call refused for want of
 * `mcp:admin`, then `last`.
 */
function assertSteppedUp(
  prompts: readonly AuthorizationPrompt[],
  server: ProtectedMcpServer,
  last: readonly [string, string],
): void {
  assert.deepEqual({
    asked: prompts.map((prompt) => new URL(prompt.url).searchParams.get("scope")),
    requests: server.requests().map((request) => [request.rpc, request.claims?.scope ?? null]),
  }, {
    asked: ["mcp:tools offline_access", "mcp:tools mcp:admin offline_access"],
    requests: [["tools/list", null], ["tools/list", "mcp:tools"], ["tools/call", "mcp:tools"], last],
  });
}

/** Starts a sign-in without a request, and has the authorization server answer it for `subject`. */
async function callbackFor(client: Client, subject: string, server = "files"): Promise<URL> {
  const { url } = await client.beginAuthorization(server);
  return await as.authorize(url, subject);
}

describe("the handler's authorize callback signs in to an OAuth-protected server", () => {
  for (const era of ERAS) {
    test(`${era} era: authorize() gets the checked URL and its context, completes the sign-in, and the call answers the person's subject`, async () => {
      const now = Date.now();
      const prompts: AuthorizationPrompt[] = [];
      const contexts: Array<{ keys: string[]; client: string; serverId: string; signal: boolean }> = [];
      const backs: URL[] = [];
      const client = signingClient({
        era,
        now: () => now,
        authorize: (self) => async (prompt, ctx) => {
          prompts.push(prompt);
          contexts.push({
            keys: Object.keys(ctx).sort(),
            client: ctx.client,
            serverId: ctx.serverId,
            signal: ctx.signal instanceof AbortSignal && !ctx.signal.aborted,
          });
          const back = await as.authorize(prompt.url, "carol");
          backs.push(back);
          await self.completeAuthorization(ctx.serverId, back.href);
          return { action: "accept" };
        },
      });
      const seen = mcp.requests().length;
      try {
        assert.deepEqual(await whoami(client), said("carol"));
        assert.deepEqual(await whoami(client), said("carol"));
      } finally {
        await client.close();
      }
      assert.equal(prompts.length, 1);
      const [prompt] = prompts;
      assert.deepEqual(Object.keys(prompt ?? {}).sort(), ["expiresAt", "host", "idn", "url"]);
      assert.deepEqual(
        { host: prompt?.host, idn: prompt?.idn, expiresAt: prompt?.expiresAt },
        { host: "127.0.0.1", idn: false, expiresAt: now + TEN_MINUTES },
      );
      const url = new URL(prompt?.url ?? "");
      assert.ok(prompt?.url.startsWith(`${as.issuer}/auth?`), prompt?.url);
      const query = Object.fromEntries(url.searchParams);
      assert.deepEqual(Object.keys(query).sort(), [
        "client_id",
        "code_challenge",
        "code_challenge_method",
        "redirect_uri",
        "resource",
        "response_type",
        "scope",
        "state",
      ]);
      assert.deepEqual(
        {
          response_type: query.response_type,
          code_challenge_method: query.code_challenge_method,
          resource: query.resource,
          redirect_uri: query.redirect_uri,
          scope: query.scope,
        },
        {
          response_type: "code",
          code_challenge_method: "S256",
          resource: mcp.url,
          redirect_uri: REDIRECT_URI,
          scope: "mcp:tools offline_access",
        },
      );
      assert.match(query.code_challenge ?? "", /^[A-Za-z0-9_-]{43}$/);
      assert.match(query.state ?? "", /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(contexts, [{
        keys: ["client", "serverId", "signal"],
        client: NAME,
        serverId: "files",
        signal: true,
      }]);
      // The person came back to the redirect URI with the flow's state and the issuer (RFC 9207).
      const [back] = backs;
      assert.deepEqual(
        [`${back?.origin}${back?.pathname}`, back?.searchParams.get("state"), back?.searchParams.get("iss")],
        [REDIRECT_URI, query.state, as.issuer],
      );
      // The server saw one request without a token (its 401 started the sign-in), then carol's
      // token for its own audience on every request.
      const requests = mcp.requests().slice(seen);
      assert.equal(requests[0]?.token, "");
      assert.deepEqual(
        requests.slice(1).map((request) => [request.claims?.sub, request.claims?.aud]),
        requests.slice(1).map(() => ["carol", mcp.url]),
      );
    });
  }

  test("calls made at once while signed out ask authorize() once, and all answer the person's subject", async () => {
    const prompts: AuthorizationPrompt[] = [];
    const client = signingClient({ era: "modern", authorize: signInAs("carol", prompts) });
    const tokens = as.tokenRequests();
    try {
      const answers = await Promise.all([whoami(client), whoami(client), whoami(client)]);
      assert.deepEqual(answers, [said("carol"), said("carol"), said("carol")]);
    } finally {
      await client.close();
    }
    assert.equal(prompts.length, 1);
    assert.equal(as.tokenRequests(), tokens + 1);
  });

  test("authorize() may answer accept before the sign-in is completed: the call waits for completeAuthorization, then answers", async () => {
    const events: string[] = [];
    let later: Promise<void> | undefined;
    const client = signingClient({
      era: "modern",
      authorize: (self) => (prompt, ctx) => {
        events.push("authorize");
        // The person finishes in the browser after authorize() has returned.
        later = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(async () => {
          events.push("browser");
          const back = await as.authorize(prompt.url, "carol");
          await self.completeAuthorization(ctx.serverId, back.href);
          events.push("completed");
        });
        events.push("accept");
        return Promise.resolve({ action: "accept" });
      },
    });
    try {
      const answer = await whoami(client);
      events.push("answered");
      await later;
      assert.deepEqual(answer, said("carol"));
      assert.deepEqual(events, ["authorize", "accept", "browser", "completed", "answered"]);
    } finally {
      await client.close();
    }
  });

  test("authorize() answering accept but never completing fails the call once the flow expires", async () => {
    let now = Date.now();
    const client = signingClient({
      era: "modern",
      now: () => now,
      authorize: () => (prompt) => {
        now = prompt.expiresAt; // the person took the whole ten minutes
        return Promise.resolve({ action: "accept" });
      },
    });
    try {
      assert.deepEqual(await failure(whoami(client)), NOT_COMPLETED);
    } finally {
      await client.close();
    }
  });

  test("a sign-in never completed is given up by the client's timers, at the flow's expiry", {
    timeout: 20_000,
  }, async () => {
    // Timers set after the person accepted fire at once; the call's own deadlines wait as usual.
    let accepted = false;
    const waits: number[] = [];
    const timers = {
      setTimeout: (callback: () => void, ms: number): unknown => {
        if (!accepted) return setTimeout(callback, ms);
        waits.push(ms);
        queueMicrotask(callback);
        return undefined;
      },
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const now = Date.now();
    const client = signingClient({
      era: "modern",
      now: () => now,
      timers,
      authorize: () => () => {
        accepted = true;
        return Promise.resolve({ action: "accept" });
      },
    });
    try {
      assert.deepEqual(await failure(whoami(client)), NOT_COMPLETED);
      assert.deepEqual(waits, [10 * 60_000]);
    } finally {
      await client.close();
    }
  });

  test("a call abandoned while authorize() waits for the sign-in aborts ctx.signal and rejects", async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const client = signingClient({
      era: "modern",
      authorize: () => (_prompt, ctx) => {
        signals.push(ctx.signal);
        setTimeout(() => controller.abort(new Error("the person closed the window")), 0);
        return Promise.resolve({ action: "accept" });
      },
    });
    try {
      const error = await client.callTool("files", "whoami", {}, { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(error instanceof ClientError, String(error));
      assert.deepEqual([error.kind, error.message], [
        "cancelled",
        'Call of tools/call to server "files" was cancelled',
      ]);
      assert.deepEqual(signals.map((signal) => signal.aborted), [true]);
    } finally {
      await client.close();
    }
  });

  for (const era of ERAS) {
    for (const action of ["decline", "cancel"] as const) {
      test(`${era} era: authorize() answering ${action} fails the call, and no token is asked for`, async () => {
        const tokens = as.tokenRequests();
        const client = signingClient({
          era,
          authorize: () => () => Promise.resolve({ action }),
        });
        try {
          assert.deepEqual(await failure(whoami(client)), {
            name: "ClientError",
            kind: "transport",
            message: `${
              prefix(era)
            }sign-in to "files" was not made: the handler's authorize answered "${action}"`,
          });
        } finally {
          await client.close();
        }
        assert.equal(as.tokenRequests(), tokens);
      });
    }
    test(`${era} era: authorize() that throws fails the call naming what it threw; a failed completeAuthorization inside it, in its own words`, async () => {
      const thrower = signingClient({
        era,
        authorize: () => () => Promise.reject(new TypeError("no browser")),
      });
      const inner = signingClient({
        era,
        authorize: (client) => async (prompt, ctx) => {
          const back = new URL((await as.authorize(prompt.url, "carol")).href);
          back.searchParams.set("iss", "https://evil.example.com");
          await client.completeAuthorization(ctx.serverId, back.href);
          return { action: "accept" };
        },
      });
      try {
        assert.deepEqual(await failure(whoami(thrower)), {
          name: "ClientError",
          kind: "transport",
          message: `${
            prefix(era)
          }sign-in to "files" failed: the handler's authorize threw TypeError: no browser`,
        });
        assert.deepEqual(await failure(whoami(inner)), {
          name: "ClientError",
          kind: "transport",
          message: `${
            prefix(era)
          }sign-in refused: the callback names the issuer "https://evil.example.com", expected exactly "${as.issuer}"; the code was not used`,
        });
      } finally {
        await thrower.close();
        await inner.close();
      }
    });
  }

  test("a step-up (403 insufficient_scope) asks authorize() again for the union of the scopes, and the call is retried", async () => {
    const scoped = await startProtectedMcpServer(as, { toolCallScope: "mcp:admin" });
    const prompts: AuthorizationPrompt[] = [];
    const client = signingClient({
      era: "modern",
      policies: [filesPolicy("modern", "files", scoped.url)],
      authorize: signInAs("carol", prompts),
    });
    try {
      assert.deepEqual(await whoami(client), said("carol"));
    } finally {
      await client.close();
      await scoped.close();
    }
    assertSteppedUp(prompts, scoped, ["tools/call", "mcp:tools mcp:admin"]);
  });

  test("a step-up whose sign-in does not get the scope (the authorization server withholds it) fails the call naming it; the person is asked twice in a row at most", async () => {
    const narrow = await startAuthorizationServer({ scopes: ["mcp:tools"], accessTokenTtl: TOKEN_TTL });
    const scoped = await startProtectedMcpServer(narrow, { toolCallScope: "mcp:admin" });
    const prompts: AuthorizationPrompt[] = [];
    const client = signingClient({
      era: "modern",
      policies: [filesPolicy("modern", "files", scoped.url)],
      authorize: signInAs("carol", prompts, narrow),
    });
    const refused = (after: string) => ({
      name: "ClientError",
      kind: "transport",
      message:
        `Server "files": the server still refuses this request for want of the scope "mcp:admin" ${after} (the token has "mcp:tools")`,
    });
    const scopesAsked = () => prompts.map((prompt) => new URL(prompt.url).searchParams.get("scope"));
    try {
      assert.deepEqual(await failure(whoami(client)), refused("after a sign-in for it"));
      assert.deepEqual(await failure(whoami(client)), refused("after a sign-in for it"));
      assert.deepEqual(await failure(whoami(client)), refused("after 2 sign-ins for more in a row"));
      const STEP_UP = "mcp:tools mcp:admin offline_access";
      assert.deepEqual(scopesAsked(), ["mcp:tools offline_access", STEP_UP, STEP_UP]);
      // A request the token serves starts the count again.
      assert.deepEqual((await client.listTools("files")).tools.map((tool) => tool.name), ["whoami"]);
      assert.deepEqual(await failure(whoami(client)), refused("after a sign-in for it"));
      assert.equal(prompts.length, 4);
    } finally {
      await client.close();
      await scoped.close();
      await narrow.close();
    }
  });

  test("a step-up (403 insufficient_scope) the person declines fails the call, and the stored grant stays for the requests it has the scopes for", async () => {
    const scoped = await startProtectedMcpServer(as, { toolCallScope: "mcp:admin" });
    const tokens = createMemoryTokenStore();
    const prompts: AuthorizationPrompt[] = [];
    const client = signingClient({
      era: "modern",
      tokens,
      policies: [filesPolicy("modern", "files", scoped.url)],
      // The first sign-in is made; the step-up's is declined.
      authorize: (client) => async (prompt, ctx) => {
        if (prompts.length === 0) return await signInAs("carol", prompts)(client)(prompt, ctx);
        prompts.push(prompt);
        return { action: "decline" };
      },
    });
    try {
      assert.deepEqual(await failure(whoami(client)), {
        name: "ClientError",
        kind: "transport",
        message:
          `Server "files": sign-in to "files" was not made: the handler's authorize answered "decline"`,
      });
      const stored = await tokens.get(filesGrantKey(scoped.url));
      assert.deepEqual((JSON.parse(stored ?? "{}") as { scopes?: unknown }).scopes, ["mcp:tools"]);
      assert.deepEqual((await client.listTools("files")).tools.map((tool) => tool.name), ["whoami"]);
      assert.equal(await tokens.get(filesGrantKey(scoped.url)), stored);
    } finally {
      await client.close();
      await scoped.close();
    }
    assertSteppedUp(prompts, scoped, ["tools/list", "mcp:tools"]);
  });
});

describe("the scopes a sign-in asks for: transport.auth.oauth.scopes and its default", () => {
  // SCOPE_DEFAULT_CASES, with `offline_access` added, as the authorization server lists it.
  for (const { name, scopes, server, asked } of SCOPE_DEFAULT_CASES) {
    test(`the authorization URL's scope: ${name}`, async () => {
      const scoped = await startProtectedMcpServer(as, server);
      const prompts: AuthorizationPrompt[] = [];
      const client = signingClient({
        era: "modern",
        policies: [{
          server: "files",
          era: "modern",
          transport: { url: scoped.url, auth: { oauth: scopes === undefined ? {} : { scopes } } },
        }],
        authorize: () => (prompt) => {
          prompts.push(prompt);
          return Promise.resolve({ action: "decline" });
        },
      });
      try {
        assert.deepEqual(await failure(whoami(client)), {
          name: "ClientError",
          kind: "transport",
          message: `${
            prefix("modern")
          }sign-in to "files" was not made: the handler's authorize answered "decline"`,
        });
      } finally {
        await client.close();
        await scoped.close();
      }
      assert.deepEqual(prompts.map((prompt) => new URL(prompt.url).searchParams.get("scope")), [
        [...asked, "offline_access"].join(" "),
      ]);
    });
  }
});

describe("a client without authorize() fails with SignInRequiredError and signs in with beginAuthorization", () => {
  for (const era of ERAS) {
    test(`${era} era: the call rejects naming the way to sign in, never the URL; after beginAuthorization and completeAuthorization the next call answers`, async () => {
      const client = signingClient({ era });
      try {
        const error = await client.callTool("files", "whoami").then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(error instanceof ClientError, String(error));
        assert.deepEqual([error.kind, error.serverId, error.message], [
          "transport",
          "files",
          `${
            prefix(era)
          }server "files" needs a sign-in (give the handler an \`authorize\` callback, or run \`sluice login files\`)`,
        ]);
        const required = signInRequiredBy(error);
        assert.ok(required instanceof SignInRequiredError);
        assert.deepEqual([required.server, required.principal], ["files", ""]);
        const url = required.url ?? "";
        assert.ok(url.startsWith(`${as.issuer}/auth?`), url);
        assert.equal(new URL(url).searchParams.get("state"), required.state);
        assert.equal(
          required.message,
          'server "files" needs a sign-in (give the handler an `authorize` callback, or run `sluice login files`)',
        );
        assert.deepEqual([error.message.includes(url), error.message.includes("/auth?")], [
          false,
          false,
        ]);

        const started = await client.beginAuthorization("files");
        assert.deepEqual(Object.keys(started).sort(), ["expiresAt", "url"]);
        assert.ok(started.url.startsWith(`${as.issuer}/auth?`), started.url);
        assert.notEqual(new URL(started.url).searchParams.get("state"), required.state);
        const back = await as.authorize(started.url, "dave");
        assert.equal(await client.completeAuthorization("files", back.href), undefined);
        assert.deepEqual(await whoami(client), said("dave"));
      } finally {
        await client.close();
      }
    });
  }

  test("the SignInRequiredError's own URL completes the sign-in too", async () => {
    const client = signingClient({ era: "modern" });
    try {
      const error = await client.callTool("files", "whoami").then(() => undefined, (error: unknown) => error);
      const required = signInRequiredBy(error);
      assert.ok(required !== undefined, String(error));
      await client.completeAuthorization("files", (await as.authorize(required.url ?? "", "erin")).href);
      assert.deepEqual(await whoami(client), said("erin"));
    } finally {
      await client.close();
    }
  });

  test("without authorize() and without a redirect URI nothing is started: no registration, no flow, no URL", async () => {
    const tokens = createMemoryTokenStore();
    const client = createClient({ name: NAME, policies: [filesPolicy("modern")], signIn: { tokens } });
    const registrations = as.registrations();
    try {
      const error = await client.callTool("files", "whoami").then(() => undefined, (error: unknown) => error);
      const required = signInRequiredBy(error);
      assert.ok(required !== undefined, String(error));
      assert.deepEqual(
        [required.server, required.url, required.state, required.expiresAt, required.message],
        [
          "files",
          undefined,
          undefined,
          undefined,
          'server "files" needs a sign-in (give the handler an `authorize` callback, or run `sluice login files`)',
        ],
      );
      assert.equal(as.registrations(), registrations);
    } finally {
      await client.close();
    }
  });
});

describe("client.completeAuthorization() refuses callbacks that are not this sign-in's", () => {
  /** Two servers with sign-ins, no authorize(): everything goes through begin/complete. */
  const twoServers = () =>
    signingClient({
      era: "modern",
      policies: [filesPolicy("modern", "files"), filesPolicy("modern", "notes")],
    });

  test("completeAuthorization() refuses the callback of another server's sign-in", async () => {
    const client = twoServers();
    try {
      const back = await callbackFor(client, "carol", "files");
      assert.deepEqual(await failure(client.completeAuthorization("notes", back.href)), {
        name: "ClientError",
        kind: "transport",
        message: 'Server "notes": the callback belongs to a sign-in to "files", not "notes"',
      });
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a tampered state, and the untouched callback still completes", async () => {
    const client = twoServers();
    try {
      const back = await callbackFor(client, "carol");
      const tampered = new URL(back);
      tampered.searchParams.set("state", `${back.searchParams.get("state")}x`);
      const tokens = as.tokenRequests();
      assert.deepEqual(await failure(client.completeAuthorization("files", tampered.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          'Server "files": sign-in failed: the callback\'s state names no sign-in in progress (unknown or expired)',
      });
      const stateless = new URL(back);
      stateless.searchParams.delete("state");
      assert.deepEqual(await failure(client.completeAuthorization("files", stateless.href)), {
        name: "ClientError",
        kind: "transport",
        message: 'Server "files": sign-in failed: the callback has no state parameter',
      });
      assert.equal(as.tokenRequests(), tokens);
      await client.completeAuthorization("files", back.href);
      assert.deepEqual(await whoami(client), said("carol"));
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() takes a callback once: used again it is refused, and two at once make one token request", async () => {
    const client = twoServers();
    try {
      const back = await callbackFor(client, "carol");
      await client.completeAuthorization("files", back.href);
      assert.deepEqual(await failure(client.completeAuthorization("files", back.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          'Server "files": sign-in failed: the callback\'s state names no sign-in in progress (unknown or expired)',
      });

      const again = await callbackFor(client, "dave");
      const tokens = as.tokenRequests();
      const settled = await Promise.allSettled([
        client.completeAuthorization("files", again.href),
        client.completeAuthorization("files", again.href),
      ]);
      assert.deepEqual(
        settled.map((result) =>
          result.status === "fulfilled" ? "completed" : (result.reason as Error).message
        )
          .sort(),
        ['Server "files": sign-in failed: this callback was already used', "completed"],
      );
      assert.equal(as.tokenRequests(), tokens + 1);
      assert.deepEqual(await whoami(client), said("dave"));
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a changed or missing iss before any token request (RFC 9207)", async () => {
    const client = twoServers();
    try {
      const back = await callbackFor(client, "carol");
      const forged = new URL(back);
      forged.searchParams.set("iss", "http://127.0.0.1:1");
      const tokens = as.tokenRequests();
      assert.deepEqual(await failure(client.completeAuthorization("files", forged.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          `Server "files": sign-in refused: the callback names the issuer "http://127.0.0.1:1", expected exactly "${as.issuer}"; the code was not used`,
      });
      const other = await callbackFor(client, "carol");
      const bare = new URL(other);
      bare.searchParams.delete("iss");
      assert.deepEqual(await failure(client.completeAuthorization("files", bare.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          `Server "files": sign-in refused: the callback has no "iss" although the authorization server "${as.issuer}" declares authorization_response_iss_parameter_supported; the code was not used`,
      });
      assert.equal(as.tokenRequests(), tokens);
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a callback at another path than the redirect URI, before any token request", async () => {
    const client = twoServers();
    try {
      const back = await callbackFor(client, "carol");
      const moved = new URL(back);
      moved.pathname = "/elsewhere";
      const tokens = as.tokenRequests();
      assert.deepEqual(await failure(client.completeAuthorization("files", moved.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          `Server "files": sign-in failed: the callback came to "http://127.0.0.1:53682/elsewhere", expected the redirect URI "${REDIRECT_URI}"`,
      });
      assert.equal(as.tokenRequests(), tokens);
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a callback after the flow's ten minutes", async () => {
    let now = Date.now();
    const client = signingClient({ era: "modern", now: () => now });
    try {
      const back = await callbackFor(client, "carol");
      now += TEN_MINUTES;
      assert.deepEqual(await failure(client.completeAuthorization("files", back.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          'Server "files": sign-in failed: the callback\'s state names no sign-in in progress (unknown or expired)',
      });
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a string that is not a URL, and a server without a sign-in", async () => {
    const client = twoServers();
    try {
      // The caller's mistake, not the sign-in's (a transport failure would read as an outage).
      assert.deepEqual(await failure(client.completeAuthorization("files", "not a url")), {
        name: "ClientError",
        kind: "config",
        message:
          'Sign-in to server "files": the callback URL is not a URL, expected the absolute URL the authorization server redirected to',
      });
      assert.deepEqual(await failure(client.completeAuthorization("nope", REDIRECT_URI)), {
        name: "ClientError",
        kind: "config",
        message: 'Server "nope" has no policy with "transport.auth.oauth"',
      });
    } finally {
      await client.close();
    }
  });

  test("completeAuthorization() refuses a signal that is no AbortSignal as the caller's mistake; a closed client starts, completes and forgets no sign-in, and sends nothing", async () => {
    const client = twoServers();
    const notSignal = await failure(
      client.completeAuthorization("files", `${REDIRECT_URI}?code=c&state=s`, { signal: 5 as never }),
    );
    const before = mcp.requests().length + as.tokenRequests();
    await client.close();
    const closed = {
      name: "ClientError",
      kind: "config",
      message: `Client "${NAME}" is closed`,
    };
    assert.deepEqual(
      [
        notSignal,
        await failure(client.beginAuthorization("files")),
        await failure(client.completeAuthorization("files", `${REDIRECT_URI}?code=c&state=s`)),
        await failure(client.signOut("files")),
        mcp.requests().length + as.tokenRequests() - before,
      ],
      [
        {
          name: "ClientError",
          kind: "config",
          message:
            'Call of completeAuthorization to server "files" refused: "signal" must be an AbortSignal, received 5',
        },
        closed,
        closed,
        closed,
        0,
      ],
    );
  });

  test("beginAuthorization() and completeAuthorization() refuse a client-credentials server as config: no person signs in to it", async () => {
    const client = createClient({
      name: "gate",
      environment: () => "m2m-secret",
      policies: [{
        server: "machine",
        transport: {
          url: "https://machine.example/mcp",
          auth: { clientCredentials: { clientId: "c", clientSecretEnv: "M2M" } },
        },
      }],
    });
    const refusal = {
      name: "ClientError",
      kind: "config",
      message: 'Server "machine" has "transport.auth.clientCredentials", expected "transport.auth.oauth": ' +
        "the client signs in to it by itself, with no person",
    };
    try {
      assert.deepEqual(
        [
          await failure(client.beginAuthorization("machine")),
          await failure(client.completeAuthorization("machine", `${REDIRECT_URI}?code=c&state=s`)),
        ],
        [refusal, refusal],
      );
    } finally {
      await client.close();
    }
  });
});

describe("a grant is bound to the endpoint it was issued for", () => {
  test("another upstream with the same server id sharing the store is never sent it, its 401 deletes nothing, and a grant stored without an endpoint is ignored", async () => {
    const otherAs = await startAuthorizationServer({ scopes: ["mcp:tools"], accessTokenTtl: TOKEN_TTL });
    const other = await startProtectedMcpServer(otherAs);
    const tokens = createMemoryTokenStore();
    // What a version that keyed grants by server id and principal alone left in the store.
    const earlier = JSON.stringify({
      accessToken: "earlier",
      expiresAt: null,
      scopes: [],
      issuer: as.issuer,
      clientId: "c",
    });
    await tokens.set("grant|files|", earlier);
    const seen = mcp.requests().length;
    const prompts: AuthorizationPrompt[] = [];
    const first = signingClient({ era: "legacy", tokens, authorize: signInAs("ivan", prompts) });
    const second = signingClient({
      era: "legacy",
      tokens,
      authorize: signInAs("judy", [], otherAs),
      policies: [filesPolicy("legacy", "files", other.url)],
    });
    try {
      assert.deepEqual(await whoami(first), said("ivan"));
      const firstToken = mcp.requests().at(-1)?.token;
      assert.deepEqual(await whoami(second), said("judy"));
      const secondToken = other.requests().at(-1)?.token;
      // The other upstream got no token, then its own: never the first's.
      assert.deepEqual([...new Set(other.requests().map((request) => request.token))], ["", secondToken]);
      // Both grants are kept, each under its endpoint, and the earlier one is left as it was.
      assert.equal(JSON.parse((await tokens.get(filesGrantKey())) ?? "null").accessToken, firstToken);
      assert.equal(
        JSON.parse((await tokens.get(filesGrantKey(other.url))) ?? "null").accessToken,
        secondToken,
      );
      assert.equal(await tokens.get("grant|files|"), earlier);
      assert.deepEqual(await whoami(first), said("ivan"));
      assert.equal(prompts.length, 1);
      // The first upstream got no token (the earlier grant is not read), then its own.
      assert.deepEqual([...new Set(mcp.requests().slice(seen).map((request) => request.token))], [
        "",
        firstToken,
      ]);
    } finally {
      await first.close();
      await second.close();
      await other.close();
      await otherAs.close();
    }
  });

  test("completeAuthorization() refuses the callback of a sign-in started for another endpoint of the same server id, before any token request", async () => {
    const other = await startProtectedMcpServer(as);
    const tokens = createMemoryTokenStore();
    const first = signingClient({ era: "modern", tokens });
    const second = signingClient({
      era: "modern",
      tokens,
      policies: [filesPolicy("modern", "files", other.url)],
    });
    try {
      const back = await callbackFor(first, "carol");
      const requested = as.tokenRequests();
      assert.deepEqual(await failure(second.completeAuthorization("files", back.href)), {
        name: "ClientError",
        kind: "transport",
        message:
          `Server "files": sign-in refused: the sign-in was not started for "${other.url}", the endpoint of "files"; start it again`,
      });
      assert.equal(as.tokenRequests(), requested);
      assert.equal(await tokens.get(filesGrantKey(other.url)), undefined);
      assert.equal(await tokens.get(filesGrantKey()), undefined);
    } finally {
      await first.close();
      await second.close();
      await other.close();
    }
  });
});

describe("refresh and sign-out through the client", () => {
  test("a usable grant is read from the store once: later calls do not wait for it", async () => {
    const store = createMemoryTokenStore();
    const reads: string[] = [];
    const tokens: TokenStore = {
      get: (key) => (reads.push(key), store.get(key)),
      set: (key, value, ttlMs) => store.set(key, value, ttlMs),
      delete: (key) => store.delete(key),
      claim: (key, ttlMs) => store.claim(key, ttlMs),
    };
    const client = signingClient({ era: "modern", tokens, authorize: signInAs("hugo") });
    try {
      assert.deepEqual(await whoami(client), said("hugo"));
      assert.deepEqual(await whoami(client), said("hugo"));
      const before = reads.filter((key) => key === filesGrantKey()).length;
      for (let call = 0; call < 3; call++) assert.deepEqual(await whoami(client), said("hugo"));
      assert.equal(reads.filter((key) => key === filesGrantKey()).length, before);
    } finally {
      await client.close();
    }
  });

  for (const era of ERAS) {
    test(`${era} era: past its lifetime the token is refreshed, and the stored grant's refresh token rotated`, async () => {
      let now = Date.now();
      const tokens = createMemoryTokenStore();
      const client = signingClient({ era, now: () => now, tokens, authorize: signInAs("frank") });
      const read = async () => JSON.parse((await tokens.get(filesGrantKey())) ?? "null");
      try {
        assert.deepEqual(await whoami(client), said("frank"));
        const first = await read();
        assert.deepEqual(Object.keys(first).sort(), [
          "accessToken",
          "clientId",
          "clientSource",
          "expiresAt",
          "issuer",
          "redirectUri",
          "refreshToken",
          "scopes",
        ]);
        assert.deepEqual(
          [first.expiresAt, first.issuer, first.clientSource, first.redirectUri, first.scopes],
          // The granted scopes: oidc-provider lists the resource's, offline_access is on the grant.
          [now + TOKEN_TTL * 1000, as.issuer, "registration", REDIRECT_URI, ["mcp:tools"]],
        );
        assert.equal(decodeJwt(first.accessToken).sub, "frank");
        const requested = as.tokenRequests();
        const seen = mcp.requests().length;

        now += (TOKEN_TTL + 60) * 1000;
        assert.deepEqual(await whoami(client), said("frank"));
        const second = await read();
        assert.equal(as.tokenRequests(), requested + 1);
        assert.notEqual(second.refreshToken, first.refreshToken);
        assert.notEqual(second.accessToken, first.accessToken);
        assert.deepEqual(
          [second.expiresAt, second.clientId, second.clientSource, second.redirectUri],
          [now + TOKEN_TTL * 1000, first.clientId, "registration", REDIRECT_URI],
        );
        // Refreshed before anything was sent: every request after the clock moved carried the new token.
        const sent = mcp.requests().slice(seen).map((request) => request.token);
        assert.deepEqual(sent, sent.map(() => second.accessToken));
      } finally {
        await client.close();
      }
    });
  }

  /**
   * Signs in as `subject` to a server that names its protected resource metadata only in its 401's
   * challenge, through `authorize` (which sees the challenge); then, past the token's lifetime, a
   * new client sharing the store (a new process: nothing discovered yet, and no `authorize`, so
   * only a refresh can answer) makes one call, through `fetch` when given.
   */
  async function refreshedByNewClient(
    era: Era,
    subject: string,
    options: ProtectedMcpServerOptions,
    fetch?: (url: string, init: RequestInit) => Promise<Response>,
  ) {
    const server = await startProtectedMcpServer(as, { metadataPath: "/custom/prm.json", ...options });
    const policies = [filesPolicy(era, "files", server.url)];
    const tokens = createMemoryTokenStore();
    let now = Date.now();
    const first = signingClient({ era, tokens, policies, now: () => now, authorize: signInAs(subject) });
    try {
      assert.deepEqual(await whoami(first), said(subject));
    } finally {
      await first.close();
    }
    const requested = as.tokenRequests();
    const seen = server.requests().length;
    now += (TOKEN_TTL + 60) * 1000;
    const second = createClient({
      name: NAME,
      policies,
      clock: { now: () => now },
      signIn: { redirectUri: REDIRECT_URI, tokens },
      ...(fetch === undefined ? {} : { fetch }),
    });
    try {
      const answer = await whoami(second).catch((error: unknown) => error);
      const grant = JSON.parse((await tokens.get(filesGrantKey(server.url))) ?? "null");
      const requests = server.requests().slice(seen).map(({ method, rpc, token }) => ({
        method,
        rpc,
        token: token === "" ? "none" : token === grant?.accessToken ? "refreshed" : "other",
      }));
      return { answer, tokenRequests: as.tokenRequests() - requested, requests, url: server.url };
    } finally {
      await second.close();
      await server.close();
    }
  }

  for (const era of ERAS) {
    test(`${era} era: a new client refreshes the expired grant of a server that names its metadata only in its challenge, asking it for its challenge first`, async () => {
      const { answer, tokenRequests, requests } = await refreshedByNewClient(era, "ivan", {});
      assert.deepEqual(answer, said("ivan"));
      assert.equal(tokenRequests, 1);
      const asked = { method: "POST", rpc: "server/discover", token: "none" };
      const refreshed = (rpc: string) => ({ method: "POST", rpc, token: "refreshed" });
      if (era === "modern") {
        assert.deepEqual(requests, [asked, refreshed("tools/list"), refreshed("tools/call")]);
        return;
      }
      // The GET stream opens as notifications/initialized is sent, on a connection of its own, so
      // its place among the requests the server logged is not fixed, only that it follows
      // initialize; the others come in the order the protocol gives them.
      const stream = requests.findIndex(({ method }) => method === "GET");
      assert.deepEqual(requests.slice(0, 2), [asked, refreshed("initialize")]);
      assert.deepEqual(requests[stream], { method: "GET", rpc: "", token: "refreshed" });
      assert.deepEqual(requests.filter((_, index) => index !== stream), [
        asked,
        refreshed("initialize"),
        refreshed("notifications/initialized"),
        refreshed("tools/list"),
        refreshed("tools/call"),
      ]);
    });
  }

  test("a refresh whose metadata is not found without a challenge sends the request without a token, and the 401's challenge leads to the refresh", async () => {
    // The server answers server/discover without a token: asking for the challenge finds none,
    // and its metadata is at no well-known URL.
    const { answer, tokenRequests, requests } = await refreshedByNewClient("modern", "judy", {
      openMethods: ["server/discover"],
    });
    assert.deepEqual(answer, said("judy"));
    assert.equal(tokenRequests, 1);
    assert.deepEqual(requests, [
      { method: "POST", rpc: "server/discover", token: "none" },
      { method: "POST", rpc: "tools/list", token: "none" },
      { method: "POST", rpc: "tools/list", token: "refreshed" },
      { method: "POST", rpc: "tools/call", token: "refreshed" },
    ]);
  });

  test("a refresh whose metadata is not found, and a 401 without a challenge: the call fails saying why, after the request went without a token", async () => {
    // A fetch that drops the server's challenges, as a server that sends none.
    const withoutChallenges = async (url: string, init: RequestInit) => {
      const response = await fetch(url, init);
      const headers = new Headers(response.headers);
      headers.delete("www-authenticate");
      return new Response(response.body, { status: response.status, headers });
    };
    const { answer, tokenRequests, requests, url } = await refreshedByNewClient(
      "modern",
      "karl",
      {},
      withoutChallenges,
    );
    assert.deepEqual(
      [(answer as ClientError).kind, (answer as ClientError).message],
      [
        "transport",
        `${prefix("modern")}no protected resource metadata found for "${url}" at the well-known URLs`,
      ],
    );
    assert.equal(tokenRequests, 0);
    // Asked for a challenge twice (server/discover, tools/list), then the call's tools/list.
    assert.deepEqual(requests, [
      { method: "POST", rpc: "server/discover", token: "none" },
      { method: "POST", rpc: "tools/list", token: "none" },
      { method: "POST", rpc: "tools/list", token: "none" },
    ]);
  });

  for (const era of ERAS) {
    test(`${era} era: a server whose 401 carries no challenge is signed in to through the metadata at its well-known URL`, async () => {
      // A fetch that drops the server's challenges, as a server that sends none; its metadata is
      // at the well-known URL.
      const withoutChallenges = async (url: string, init: RequestInit) => {
        const response = await fetch(url, init);
        const headers = new Headers(response.headers);
        headers.delete("www-authenticate");
        return new Response(response.body, { status: response.status, headers });
      };
      const prompts: AuthorizationPrompt[] = [];
      const client: Client = createClient({
        name: NAME,
        policies: [filesPolicy(era)],
        fetch: withoutChallenges,
        signIn: { redirectUri: REDIRECT_URI, tokens: createMemoryTokenStore() },
        handler: { authorize: (prompt, ctx) => signInAs("lena", prompts)(client)(prompt, ctx) },
      });
      try {
        assert.deepEqual(await whoami(client), said("lena"));
      } finally {
        await client.close();
      }
      assert.equal(prompts.length, 1);
      assert.equal(new URL(prompts[0]?.url ?? "").searchParams.get("resource"), mcp.url);
    });
  }

  for (const era of ERAS) {
    test(`${era} era: after signOut() the stored grant is gone and the next call signs in again`, async () => {
      const tokens = createMemoryTokenStore();
      const prompts: AuthorizationPrompt[] = [];
      const client = signingClient({ era, tokens, authorize: signInAs("grace", prompts) });
      try {
        assert.deepEqual(await whoami(client), said("grace"));
        await client.signOut("files");
        assert.equal(await tokens.get(filesGrantKey()), undefined);
        assert.deepEqual(await whoami(client), said("grace"));
        assert.equal(prompts.length, 2);
      } finally {
        await client.close();
      }
    });
  }

  test("after signOut() a client without authorize() fails with SignInRequiredError again", async () => {
    const client = signingClient({ era: "modern" });
    try {
      await client.completeAuthorization("files", (await callbackFor(client, "heidi")).href);
      assert.deepEqual(await whoami(client), said("heidi"));
      await client.signOut("files");
      const error = await client.callTool("files", "whoami").then(() => undefined, (error: unknown) => error);
      assert.equal(signInRequiredBy(error)?.server, "files");
    } finally {
      await client.close();
    }
  });
});
