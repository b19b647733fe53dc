/**
 * The valibot schema of a policy file; every leaf's message says what it expects. Unknown keys are
 * found by `unknownKeyProblems` (`strictObject` reports only the first per object). An option
 * written as `undefined` is absent; a required one written so is reported missing.
 *
 * @module
 */
import * as v from "valibot";
import { parseDuration } from "./duration.ts";

const positiveInteger = (max = Number.MAX_SAFE_INTEGER, min = 1) => {
  const expects = max === Number.MAX_SAFE_INTEGER ? "a positive integer" : `an integer from ${min} to ${max}`;
  // One check, so a value such as 0.5 is reported once, not once per broken rule.
  return v.pipe(
    v.number(expects),
    v.check((n) => Number.isSafeInteger(n) && n >= min && n <= max, expects),
  );
};
/** A byte limit (`maxMessageBytes`, `maxEventBytes`): 1 KiB to 256 MiB. */
const byteLimit = positiveInteger(268_435_456, 1024);
const flag = v.boolean("true or false");
/** A string matching `pattern`, both checks with one message so a wrong type and a wrong text read alike. */
const matching = (pattern: RegExp, expects: string) => v.pipe(v.string(expects), v.regex(pattern, expects));
const durationText =
  'a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to "596h"';
const duration = v.pipe(
  v.string(durationText),
  v.check((text) => parseDuration(text) !== undefined, durationText),
);
const HOST_PATTERN =
  /^(\*\.)?[A-Za-z0-9\u0080-\uffff]([A-Za-z0-9\u0080-\uffff-]*[A-Za-z0-9\u0080-\uffff])?(\.[A-Za-z0-9\u0080-\uffff]([A-Za-z0-9\u0080-\uffff-]*[A-Za-z0-9\u0080-\uffff])?)*$/;
const hostList = v.array(
  matching(HOST_PATTERN, 'a host such as "login.example.com" or "*.example.com"'),
  "a list of hosts",
);
const originText =
  'an origin such as "https://example.com" (a scheme and a host, with a port only when not the default, and no path)';
const origin = v.pipe(
  v.string(originText),
  v.check((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "https:" || url.protocol === "http:") &&
        url.origin === text.replace(/\/$/, "").toLowerCase();
    } catch {
      return false;
    }
  }, originText),
);
const rate = v.object({
  rate: positiveInteger(1_000_000),
  per: duration,
  burst: positiveInteger(1_000_000),
}, "an object { rate, per, burst }");

/** The schema of `sampling` when it is an object. */
const SamplingPolicySchema: v.GenericSchema = v.object({
  maxTokens: v.optional(positiveInteger()),
  context: v.optional(flag),
  allowIdle: v.optional(flag),
  maxToolIterations: v.optional(positiveInteger(1000, 0)),
  rejectionCode: v.optional(v.pipe(v.number("an integer"), v.safeInteger("an integer"))),
  tools: v.optional(flag),
}, "false or an object of sampling options");

/** The schema of `elicitation` when it is an object. */
const ElicitationPolicySchema: v.GenericSchema = v.object({
  modes: v.optional(
    v.pipe(
      v.array(v.picklist(["form", "url"], 'one of "form", "url"'), 'a list of "form" and "url"'),
      v.minLength(1, 'a non-empty list of "form" and "url"'),
    ),
  ),
  origin: v.optional(origin),
  allowHosts: v.optional(hostList),
  denyHosts: v.optional(hostList),
  allowIpHosts: v.optional(flag),
  allowPrivateHosts: v.optional(flag),
  maxUrlLength: v.optional(positiveInteger(65_536)),
  maxFields: v.optional(positiveInteger(10_000)),
  maxEnumValues: v.optional(positiveInteger(100_000)),
}, "false or an object of elicitation options");

const names = (what: string) => v.array(matching(/^\S+$/, what), `a list of ${what.replace(/^an? /, "")}s`);

/** The schema of one rule of `access`. */
const AccessRuleSchema: v.GenericSchema = v.object({
  subjects: v.optional(names("a subject")),
  scopes: v.optional(names("a scope")),
  tools: v.optional(v.union([v.literal("*"), names("a tool name")], '"*" or a list of tool names')),
}, "an access rule { subjects?, scopes?, tools? }");

/** A server id: letters, digits, `.`, `_` or `-`, at most 64, starting with a letter or a digit. */
export const SERVER_ID: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The schema of a whole policy, except `transport` (see {@linkcode TransportSchemas}). */
export const PolicySchema: v.GenericSchema = v.object({
  server: v.pipe(
    v.string('a server id such as "github"'),
    v.regex(
      SERVER_ID,
      'a server id: letters, digits, ".", "_" or "-", at most 64, starting with a letter or a digit',
    ),
  ),
  // Checked apart by its two shapes; here only that it is there.
  transport: v.nonOptional(v.unknown()),
  era: v.optional(v.picklist(["modern", "legacy", "auto"], 'one of "modern", "legacy", "auto"')),
  sampling: v.optional(falseOr(SamplingPolicySchema)),
  elicitation: v.optional(falseOr(ElicitationPolicySchema)),
  roots: v.optional(flag),
  inputRateLimit: v.optional(rate),
  logRateLimit: v.optional(rate),
  logLevel: v.optional(
    v.picklist(
      ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"],
      'a log level ("debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency")',
    ),
  ),
  rateLimitFailOpen: v.optional(flag),
  handlerTimeout: v.optional(
    v.object(
      { elicitation: v.optional(duration), default: v.optional(duration) },
      "an object { elicitation, default }",
    ),
  ),
  callTimeout: v.optional(duration),
  maxTotalTimeout: v.optional(duration),
  maxServerRequests: v.optional(positiveInteger(1000)),
  maxRounds: v.optional(positiveInteger(1000)),
  maxMessageBytes: v.optional(byteLimit),
  maxEventBytes: v.optional(byteLimit),
  maxInputRequests: v.optional(positiveInteger(1000)),
  maxJsonDepth: v.optional(positiveInteger(1000, 16)),
  maxWaitingNotifications: v.optional(positiveInteger(1_000_000)),
  passDown: v.optional(
    v.array(
      v.picklist(["sampling", "elicitation", "roots"], 'one of "sampling", "elicitation", "roots"'),
      'a list of "sampling", "elicitation" and "roots"',
    ),
  ),
  stateTtl: v.optional(duration),
  maxSessions: v.optional(positiveInteger(10_000)),
  sessionIdleTimeout: v.optional(duration),
  access: v.optional(v.array(AccessRuleSchema, "a list of access rules { subjects?, scopes?, tools? }")),
}, "a policy object");

/**
 * `false`, or an object checked by `schema` with its issues kept at their own paths (a plain
 * `v.union` would fold them into one issue about the union).
 */
function falseOr(schema: v.GenericSchema): v.GenericSchema & { wrapped: v.GenericSchema } {
  return {
    ...schema,
    wrapped: schema,
    "~run"(dataset, config) {
      if (dataset.value === false) return { typed: true, value: false };
      return schema["~run"](dataset, config);
    },
  };
}

const stringMap = v.record(v.string(), v.string("a string"), "an object of strings");
const envName = matching(
  /^[A-Za-z_][A-Za-z0-9_]*$/,
  'an environment variable name such as "GITHUB_CLIENT_SECRET"',
);
const scopes = v.array(
  matching(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope such as "mcp:tools"'),
  "a list of scopes",
);
const clientId = v.pipe(v.string("a non-empty client id"), v.minLength(1, "a non-empty client id"));

/**
 * The schema of `transport.auth` (exactly one grant, exactly one secret source, and `issuer`
 * with `clientId` are checked in `_policy-problems.ts`).
 */
const UpstreamAuthSchema: v.GenericSchema = v.object({
  oauth: v.optional(v.object({
    scopes: v.optional(scopes),
    clientId: v.optional(clientId),
    issuer: v.optional(v.string("an authorization server's issuer URL")),
    clientSecretEnv: v.optional(envName),
    tokenEndpointAuthMethod: v.optional(
      v.picklist(
        ["none", "client_secret_basic", "client_secret_post"],
        'one of "none", "client_secret_basic", "client_secret_post"',
      ),
    ),
    clientMetadataUrl: v.optional(v.string("an https URL with a path")),
  }, "an object { scopes?, clientId?, issuer?, clientSecretEnv?, clientMetadataUrl? }")),
  clientCredentials: v.optional(v.object({
    clientId,
    clientSecretEnv: v.optional(envName),
    privateKeyEnv: v.optional(envName),
    algorithm: v.optional(
      v.picklist(["ES256", "RS256", "PS256", "EdDSA"], 'one of "ES256", "RS256", "PS256", "EdDSA"'),
    ),
    scopes: v.optional(scopes),
  }, "an object { clientId, clientSecretEnv } or { clientId, privateKeyEnv }")),
}, "an object { oauth } or { clientCredentials }");

/** The two transport shapes, told apart by `command` (stdio) or `url` (HTTP). */
export const TransportSchemas: { readonly http: v.GenericSchema; readonly stdio: v.GenericSchema } = {
  http: v.object({
    url: v.string("an absolute http(s) URL"),
    headers: v.optional(stringMap),
    redirect: v.optional(
      v.picklist(["same-origin", "none", "any"], 'one of "same-origin", "none", "any"'),
    ),
    allowHttp: v.optional(flag),
    auth: v.optional(UpstreamAuthSchema),
  }, "an object { url } or { command }"),
  stdio: v.object({
    command: v.pipe(v.string("a program name or path"), v.minLength(1, "a program name or path")),
    args: v.optional(v.array(v.string("a string"), "a list of strings")),
    env: v.optional(stringMap),
    cwd: v.optional(v.string("a directory path")),
  }, "an object { url } or { command }"),
};
