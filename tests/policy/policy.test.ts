// The policy types of src/policy/policy.ts as a user writes them, under the project's
// exactOptionalPropertyTypes: every optional option may be written as undefined
// (`sampling: cond ? { … } : undefined`), as checkPolicy() takes it. The file fails to compile
// when an optional option's type leaves undefined out; the tests show the runtime agrees.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type {
  AccessRule,
  ClientCredentialsAuth,
  ElicitationPolicy,
  HandlerTimeoutPolicy,
  HttpTransport,
  OAuthSignIn,
  Policy,
  SamplingPolicy,
  StdioTransport,
} from "../../mod.ts";
import { checkPolicy, compilePolicy } from "../../src/policy/compile-policy.ts";
import { definePolicy } from "../../mod.ts";

/** As a policy file reads a setting: here, one that is not set. */
const enabled = (globalThis as { SAMPLING?: boolean }).SAMPLING === true;

const sampling: SamplingPolicy = {
  maxTokens: undefined,
  context: undefined,
  allowIdle: undefined,
  maxToolIterations: undefined,
  rejectionCode: undefined,
  tools: undefined,
};
const elicitation: ElicitationPolicy = {
  modes: undefined,
  origin: undefined,
  allowHosts: undefined,
  denyHosts: undefined,
  allowIpHosts: undefined,
  allowPrivateHosts: undefined,
  maxUrlLength: undefined,
  maxFields: undefined,
  maxEnumValues: undefined,
};
const handlerTimeout: HandlerTimeoutPolicy = { elicitation: undefined, default: undefined };
const access: AccessRule = { subjects: undefined, scopes: undefined, tools: undefined };
const oauth: OAuthSignIn = {
  scopes: undefined,
  clientId: undefined,
  issuer: undefined,
  clientSecretEnv: undefined,
  tokenEndpointAuthMethod: undefined,
  clientMetadataUrl: undefined,
};
const clientCredentials: ClientCredentialsAuth = {
  clientId: "sluice",
  clientSecretEnv: "SECRET",
  privateKeyEnv: undefined,
  algorithm: undefined,
  scopes: undefined,
};
const http: HttpTransport = {
  url: "https://mcp.example.com/mcp",
  headers: undefined,
  redirect: undefined,
  allowHttp: undefined,
  auth: undefined,
};
const stdio: StdioTransport = { command: "mcp-server", args: undefined, env: undefined, cwd: undefined };
const policy: Policy = {
  server: "a",
  transport: http,
  era: undefined,
  sampling: enabled ? sampling : undefined,
  elicitation: undefined,
  roots: undefined,
  inputRateLimit: undefined,
  logRateLimit: undefined,
  logLevel: undefined,
  rateLimitFailOpen: undefined,
  handlerTimeout: undefined,
  callTimeout: undefined,
  maxTotalTimeout: undefined,
  maxServerRequests: undefined,
  maxRounds: undefined,
  maxMessageBytes: undefined,
  maxEventBytes: undefined,
  maxInputRequests: undefined,
  maxJsonDepth: undefined,
  maxWaitingNotifications: undefined,
  passDown: undefined,
  stateTtl: undefined,
  maxSessions: undefined,
  sessionIdleTimeout: undefined,
  access: undefined,
};

describe("Policy", () => {
  test("Policy takes every optional option written as undefined, and compiles it as left out", () => {
    const bare = { server: "a", transport: { url: "https://mcp.example.com/mcp" } };
    assert.deepEqual(checkPolicy(policy), []);
    assert.deepEqual(compilePolicy(policy), compilePolicy(bare));
    assert.deepEqual(compilePolicy({ ...bare, sampling, elicitation, handlerTimeout }), compilePolicy(bare));
    assert.deepEqual(compilePolicy({ ...bare, access: [access] }).access, [
      { subjects: undefined, scopes: [], tools: "*" },
    ]);
  });

  test("HttpTransport and StdioTransport take their optional options, and a sign-in's, written as undefined", () => {
    const signIns = [{ oauth }, { clientCredentials }].map((auth) =>
      compilePolicy({ server: "a", transport: { ...http, auth } }).transport
    );
    assert.deepEqual(signIns, [
      {
        ...compilePolicy(policy).transport,
        auth: { kind: "authorization_code", scopes: [], client: undefined, clientMetadataUrl: undefined },
      },
      {
        ...compilePolicy(policy).transport,
        auth: {
          kind: "client_credentials",
          clientId: "sluice",
          credential: { kind: "secret", env: "SECRET" },
          scopes: [],
        },
      },
    ]);
    assert.deepEqual(compilePolicy({ server: "a", transport: stdio }).transport, {
      kind: "stdio",
      command: "mcp-server",
      args: [],
      env: {},
      cwd: undefined,
    });
  });
});

describe("definePolicy()", () => {
  test("definePolicy() types what compilePolicy() refuses (the file fails to compile without each @ts-expect-error): a misspelt option, anywhere, and both or neither of a client's credentials", () => {
    const refused = [
      // @ts-expect-error "maxRound" is no option
      definePolicy({ server: "x", transport: { url: "https://a.example/mcp" }, maxRound: 5 }),
      // @ts-expect-error "heders" is no option of an HTTP transport
      definePolicy({ server: "x", transport: { url: "https://a.example/mcp", heders: { a: "b" } } }),
      // @ts-expect-error "argz" is no option of a stdio transport
      definePolicy({ server: "x", transport: { command: "ls", argz: [] } }),
      definePolicy({
        server: "x",
        transport: {
          url: "https://a.example/mcp",
          // @ts-expect-error a client's credential is a secret or a private key, not both
          auth: { clientCredentials: { clientId: "a", clientSecretEnv: "A", privateKeyEnv: "B" } },
        },
      }),
      definePolicy({
        server: "x",
        // @ts-expect-error a client's credential is a secret or a private key: one is needed
        transport: { url: "https://a.example/mcp", auth: { clientCredentials: { clientId: "a" } } },
      }),
    ];
    assert.deepEqual(
      refused.map((policy) => {
        try {
          compilePolicy(policy);
          return "compiled";
        } catch (error) {
          return (error as Error).message;
        }
      }),
      [
        'Policy "x": "maxRound" is not a policy option (did you mean "maxRounds"?)',
        'Policy "x": "transport.heders" is not a policy option (did you mean "transport.headers"?)',
        'Policy "x": "transport.argz" is not a policy option (did you mean "transport.args"?)',
        'Policy "x": "transport.auth.clientCredentials" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received both',
        'Policy "x": "transport.auth.clientCredentials" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received neither',
      ],
    );
  });
});
