/**
 * Turns valibot issues and transport rules into policy problems naming the option's path, what it
 * expects and what it received, with a suggestion for a misspelt option or value.
 *
 * @module
 */
import type * as v from "valibot";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";
import { CLIENT_METADATA_URL_RULE, isClientMetadataUrl } from "../_internal/client-metadata-url.ts";
import { describeKind } from "../_internal/quote.ts";
import { suggest } from "../_internal/suggest.ts";
import type { HttpTransport, OAuthSignIn } from "./policy.ts";
import type { PolicyProblem } from "./policy-error.ts";
import { PolicySchema, TransportSchemas } from "./policy-schema.ts";

/** Where problems are reported: the policy's source and server, and a path prefix. */
export interface ProblemSite {
  readonly source: string | undefined;
  readonly server: string | undefined;
  readonly prefix?: string;
}

type Issue = v.BaseIssue<unknown>;
type AnySchema = v.GenericSchema & {
  entries?: Record<string, AnySchema>;
  wrapped?: AnySchema;
  options?: AnySchema[] | readonly unknown[];
  item?: AnySchema;
};

/**
 * Converts the issues of one validation into problems.
 *
 * @param issues valibot's issues (`abortEarly: false`).
 * @param schema The schema validated against, to suggest the value meant by one not in a list.
 * @param site Source, server and path prefix.
 * @returns One problem per issue.
 */
export function problemsFromIssues(
  issues: readonly Issue[],
  schema: v.GenericSchema,
  site: ProblemSite,
): PolicyProblem[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => item.key as string | number);
    const path = joinPath(site.prefix, keys);
    // A required option left out or written as `undefined` (the schema lets an optional one be).
    if (
      issue.input === undefined && keys.length > 0 &&
      (issue.type === "object" || isOptionOf(schemaAt(schema as AnySchema, keys.slice(0, -1)), keys.at(-1)))
    ) {
      return problemAt(site, path, `"${path}" is required`);
    }
    const subject = path === "" ? "the policy" : `"${path}"`;
    const allowed = issue.type === "picklist" ? picklistAt(schema as AnySchema, keys) : [];
    const guess = typeof issue.input === "string" ? suggest(issue.input, allowed, 1) : undefined;
    const hint = guess === undefined ? "" : ` (did you mean ${JSON.stringify(guess)}?)`;
    const received = SECRET_PATH.test(path)
      ? `${describeKind(issue.input)} (not shown: it may be a secret)`
      : render(issue.input);
    return problemAt(site, path, `${subject} must be ${issue.message}, received ${received}${hint}`);
  });
}

/**
 * Finds every key the schema does not know, at any depth, suggesting the option it misspells or
 * the same name elsewhere in a policy.
 *
 * @param input The value as written.
 * @param schema The schema it is checked against.
 * @param site Source, server and path prefix.
 * @returns One problem per unknown key.
 */
export function unknownKeyProblems(
  input: unknown,
  schema: v.GenericSchema,
  site: ProblemSite,
): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const walk = (value: unknown, node: AnySchema | undefined, keys: (string | number)[]) => {
    // A list of option objects (access rules): each item is checked against the item's schema.
    const item = itemOf(node);
    if (Array.isArray(value) && item !== undefined) {
      value.forEach((entry, index) => walk(entry, item, [...keys, index]));
      return;
    }
    const object = objectOf(node);
    if (
      object?.entries === undefined || typeof value !== "object" || value === null || Array.isArray(value)
    ) return;
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(object.entries, key)) {
        walk((value as Record<string, unknown>)[key], object.entries[key], [...keys, key]);
        continue;
      }
      problems.push(
        unknownKeyProblem(key, Object.keys(object.entries), { ...site, prefix: joinPath(site.prefix, keys) }),
      );
    }
  };
  walk(input, schema as AnySchema, []);
  return problems;
}

/**
 * One unknown key: `"maxTokens" is not a policy option (did you mean "sampling.maxTokens"?)`; with
 * no guess, a small object's options are listed instead.
 */
function unknownKeyProblem(key: string, here: readonly string[], site: ProblemSite): PolicyProblem {
  const path = joinPath(site.prefix, [key]);
  const shape = path.replace(/\[\d+\]/g, "[]");
  // The same name elsewhere beats a near name here ("url" at the top means "transport.url", not
  // "era"), except in an object keyed by kinds ("sampling" in "handlerTimeout") or in another case.
  const lower = key.toLowerCase();
  const own = here.find((name) => name.toLowerCase() === lower);
  const kindHere = KINDS.has(lower) && here.some((name) => KINDS.has(name));
  const elsewhere = own !== undefined || kindHere
    ? []
    : optionPaths().filter((option) =>
      option !== shape && option.slice(option.lastIndexOf(".") + 1).toLowerCase() === lower
    );
  const typo = own ?? (elsewhere.length > 0 ? undefined : suggest(key, here, 2));
  const guesses = typo === undefined ? elsewhere : [joinPath(site.prefix, [typo])];
  const hint = guesses.length > 0
    ? ` (did you mean ${either(guesses.slice(0, 3))}?)`
    : here.length <= 8
    ? ` (expected ${either(here)})`
    : "";
  return problemAt(site, path, `"${path}" is not a policy option${hint}`);
}

/** The kinds of input request, which some options are keyed by. */
const KINDS: ReadonlySet<string> = new Set(["sampling", "elicitation", "roots"]);

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function either(names: readonly string[]): string {
  const quoted = names.map((name) => JSON.stringify(name));
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** Which transport a value describes: by `command` or `url`, else by its other keys. */
export interface TransportKind {
  /** `undefined` when neither `url` nor `command` is there and the other keys do not tell. */
  readonly kind: "http" | "stdio" | undefined;
  /** A key that misspells `url` or `command`, when that told the kind. */
  readonly misspelt?: string;
}

/**
 * Tells a transport's kind from its keys: `command` is stdio, `url` HTTP (one written `undefined`
 * is left out); without either, a misspelling (`cmd`) or the options only one kind has (`args`).
 *
 * @param transport The transport as written (an object).
 * @returns The kind, and the key that misspells `url` or `command`.
 */
export function transportKindOf(transport: object): TransportKind {
  const { command, url } = transport as { command?: unknown; url?: unknown };
  if (command !== undefined || (url === undefined && Object.hasOwn(transport, "command"))) {
    return { kind: "stdio" };
  }
  if (Object.hasOwn(transport, "url")) return { kind: "http" };
  const stdio = Object.keys((TransportSchemas.stdio as AnySchema).entries ?? {});
  const http = Object.keys((TransportSchemas.http as AnySchema).entries ?? {});
  let votes = 0;
  for (const key of Object.keys(transport)) {
    const meant = stdio.includes(key) || http.includes(key) ? key : suggest(key, [...stdio, ...http], 2);
    if (meant === "command") return { kind: "stdio", misspelt: key };
    if (meant === "url") return { kind: "http", misspelt: key };
    if (meant !== undefined) votes += stdio.includes(meant) ? 1 : -1;
  }
  return { kind: votes > 0 ? "stdio" : votes < 0 ? "http" : undefined };
}

/**
 * The unknown keys of a transport (an option of the other kind said to be one); for an unknown
 * kind, that it needs `url` or `command`, and the keys no transport has.
 *
 * @param transport The transport as written.
 * @param kind Its kind, from {@linkcode transportKindOf}.
 * @param site Source, server, and `transport` as prefix.
 * @returns The problems.
 */
export function transportKeyProblems(
  transport: object,
  kind: "http" | "stdio" | undefined,
  site: ProblemSite,
): PolicyProblem[] {
  const entries = (schema: v.GenericSchema) => Object.keys((schema as AnySchema).entries ?? {});
  const path = joinPath(site.prefix, []);
  if (kind === undefined) {
    const known = [...entries(TransportSchemas.http), ...entries(TransportSchemas.stdio)];
    return [
      problemAt(
        site,
        path,
        `"${path}" must have "url" (an HTTP server) or "command" (a program on stdio), received ${
          Object.keys(transport).length === 0
            ? "{}"
            : `an object with ${Object.keys(transport).map(render).join(", ")}`
        }`,
      ),
      ...Object.keys(transport).filter((key) => !known.includes(key)).map((key) =>
        unknownKeyProblem(key, known, site)
      ),
    ];
  }
  const others = entries(kind === "http" ? TransportSchemas.stdio : TransportSchemas.http);
  const http = 'an HTTP transport (with "url")';
  const stdio = 'a stdio transport (with "command")';
  return unknownKeyProblems(transport, TransportSchemas[kind], site).flatMap((problem) => {
    const key = problem.path.slice(path.length + 1);
    if (!others.includes(key) || problem.path !== joinPath(site.prefix, [key])) return [problem];
    // Written as `undefined`, an option of the other kind is left out (`args: cfg.args`).
    if ((transport as Record<string, unknown>)[key] === undefined) return [];
    const [is, isNot] = kind === "http" ? [stdio, http] : [http, stdio];
    if (key === "url" || key === "command") {
      const message =
        `"${path}" must have "url" (an HTTP server) or "command" (a program on stdio), not both`;
      return [{ ...problem, path, message }];
    }
    return [{ ...problem, message: `"${problem.path}" is an option of ${is}, not of ${isNot}` }];
  });
}

/** Every option path a policy can have: `sampling.maxTokens`, `access[].tools`, `transport.url`. */
function optionPaths(): string[] {
  const paths: string[] = [];
  const visit = (node: AnySchema | undefined, prefix: string) => {
    for (const [key, entry] of Object.entries(objectOf(node)?.entries ?? {})) {
      const path = `${prefix}${key}`;
      paths.push(path);
      const item = itemOf(entry);
      if (item !== undefined) visit(item, `${path}[].`);
      else if (objectOf(entry) !== undefined) visit(entry, `${path}.`);
    }
  };
  visit(PolicySchema as AnySchema, "");
  visit(TransportSchemas.http as AnySchema, "transport.");
  visit(TransportSchemas.stdio as AnySchema, "transport.");
  return paths;
}

/** The values a picklist at `keys` of the schema allows (none when it is not a picklist). */
function picklistAt(schema: AnySchema, keys: readonly (string | number)[]): readonly unknown[] {
  let node = schemaAt(schema, keys);
  while (node?.wrapped !== undefined) node = node.wrapped;
  return node?.type === "picklist" ? node.options ?? [] : [];
}

/** The schema of the value at `keys` (a list's item at a number), when the schema has one there. */
function schemaAt(schema: AnySchema, keys: readonly (string | number)[]): AnySchema | undefined {
  let node: AnySchema | undefined = schema;
  for (const key of keys) {
    node = typeof key === "number" ? listItemOf(node) : objectOf(node)?.entries?.[key];
  }
  return node;
}

/** Whether `key` is an option of the object schema `node` (not a key of a record, such as a header). */
function isOptionOf(node: AnySchema | undefined, key: string | number | undefined): boolean {
  const entries = objectOf(node)?.entries;
  return typeof key === "string" && entries !== undefined && Object.hasOwn(entries, key);
}

/**
 * Checks what the schema cannot: an HTTP transport URL is absolute, http(s), without
 * credentials, and `https:` unless its host is loopback or `allowHttp` is set.
 *
 * @param transport A transport that passed its schema.
 * @param site Source, server and path prefix.
 * @returns The problems (often none).
 */
export function httpTransportProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  return [
    ...urlProblems(transport, site),
    ...headerProblems(transport, site),
    ...authProblems(transport, site),
  ];
}

/**
 * The headers the transport sets itself and RFC 9110's hop-by-hop fields: a policy's would clash,
 * and `fetch` refuses most (Node's fails every request on `Transfer-Encoding`, `Upgrade`, `Expect`,
 * `Keep-Alive`).
 */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  // The self-hosted fetch asks for no encoding and reads bodies as they come: a compressed answer
  // would read as text that is not JSON.
  "accept-encoding",
  "content-type",
  "content-length",
  "host",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "mcp-method",
  "mcp-name",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
  "te",
  "trailer",
]);
/** A character `fetch` cannot send in a header value: above U+00FF. */
const WIDE = /[^\0-\xff]/;
/** RFC 9110's token: what a header name is made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Each header must be one `fetch` can send and one the transport does not set itself: either would
 * fail every request after `sluice check` passed the policy.
 */
function headerProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  for (const [name, value] of Object.entries(transport.headers ?? {})) {
    const at = joinPath(site.prefix, ["headers", name]);
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      const headers = joinPath(site.prefix, ["headers"]);
      problems.push(problemAt(
        site,
        headers,
        `"${headers}" has ${
          JSON.stringify(name)
        }, which is not a header name: expected letters, digits and !#$%&'*+.^_\`|~-`,
      ));
    } else if (TRANSPORT_HEADERS.has(lower) || lower.startsWith("mcp-param-")) {
      problems.push(
        problemAt(
          site,
          at,
          `"${at}" is a header the transport or HTTP sets itself, expected one of your own`,
        ),
      );
    } else if (/[\0\r\n]/.test(value)) {
      problems.push(problemAt(site, at, `"${at}" must be a header value: no line break or NUL character`));
    } else if (WIDE.test(value)) {
      // fetch sends a header value as bytes, one per character: U+0100 and above cannot be sent.
      problems.push(problemAt(
        site,
        at,
        `"${at}" must be a header value of characters up to U+00FF: the one at index ${
          value.search(WIDE)
        } is above`,
      ));
    }
  }
  return problems;
}

/**
 * The parts of a schema-valid HTTP transport the cross-field rules read: unlike
 * {@linkcode HttpTransport}, its `auth` may name both grants, or neither.
 */
export interface HttpTransportShape extends Pick<HttpTransport, "url" | "allowHttp" | "headers"> {
  readonly auth?: { readonly clientCredentials?: Credentials; readonly oauth?: OAuthSignIn };
}

/**
 * `auth` is exactly one grant; client credentials need exactly one secret source; a
 * pre-registered OAuth client names its issuer; and `auth` owns the `Authorization` header.
 */
function authProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  if (transport.auth === undefined) return [];
  const problems: PolicyProblem[] = [];
  const add = (at: string, message: string) => problems.push(problemAt(site, at, message));
  const { clientCredentials: credentials, oauth } = transport.auth;
  if ((credentials === undefined) === (oauth === undefined)) {
    const at = joinPath(site.prefix, ["auth"]);
    add(
      at,
      `"${at}" must name exactly one of "oauth" (a person signs in) and "clientCredentials" (machine to machine), received ${
        credentials === undefined ? "neither" : "both"
      }`,
    );
  }
  if (oauth !== undefined) problems.push(...oauthProblems(oauth, site));
  if (credentials !== undefined) problems.push(...credentialProblems(credentials, site));
  if (Object.keys(transport.headers ?? {}).some((name) => name.toLowerCase() === "authorization")) {
    const headers = joinPath(site.prefix, ["headers"]);
    add(
      headers,
      `"${headers}" must not set "Authorization" together with "${
        joinPath(site.prefix, ["auth"])
      }": the sign-in sends its own token`,
    );
  }
  return problems;
}

function oauthProblems(oauth: OAuthSignIn, site: ProblemSite): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const at = (key: string) => joinPath(site.prefix, ["auth", "oauth", key]);
  const add = (key: string, message: string) => problems.push(problemAt(site, at(key), message));
  if (oauth.clientId === undefined) {
    for (const key of ["issuer", "clientSecretEnv", "tokenEndpointAuthMethod"] as const) {
      if (oauth[key] !== undefined) {
        add(key, `"${at(key)}" needs "${at("clientId")}": it describes a pre-registered client`);
      }
    }
  } else if (oauth.issuer === undefined) {
    add(
      "issuer",
      `"${at("issuer")}" is required with "${
        at("clientId")
      }": a pre-registered client is used only with the authorization server that issued it`,
    );
  } else if (!isHttpsIssuer(oauth.issuer)) {
    add(
      "issuer",
      `"${at("issuer")}" must be an https URL (http only on localhost) without credentials, received ${
        JSON.stringify(withoutUrlSecrets(oauth.issuer))
      }`,
    );
  }
  if (
    oauth.tokenEndpointAuthMethod !== undefined && oauth.tokenEndpointAuthMethod !== "none" &&
    oauth.clientSecretEnv === undefined
  ) {
    add(
      "tokenEndpointAuthMethod",
      `"${at("tokenEndpointAuthMethod")}" is "${oauth.tokenEndpointAuthMethod}", which needs "${
        at("clientSecretEnv")
      }"`,
    );
  }
  if (oauth.clientMetadataUrl !== undefined && !isClientMetadataUrl(oauth.clientMetadataUrl)) {
    add(
      "clientMetadataUrl",
      `"${at("clientMetadataUrl")}" must be ${CLIENT_METADATA_URL_RULE}, received ${
        JSON.stringify(withoutUrlSecrets(oauth.clientMetadataUrl))
      }`,
    );
  }
  return problems;
}

/** Whether an issuer is an https URL (http only on loopback) without a user name or a password. */
function isHttpsIssuer(text: string): boolean {
  const url = parseUrl(text);
  if (url === undefined || url.username !== "" || url.password !== "") return false;
  return url.protocol === "https:" || (url.protocol === "http:" && hasLoopbackHost(url));
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** What the cross-field rules read of `clientCredentials`. */
interface Credentials {
  readonly clientSecretEnv?: string;
  readonly privateKeyEnv?: string;
  readonly algorithm?: string;
}

/** Client credentials need exactly one secret source, and `algorithm` only signs with a private key. */
function credentialProblems(credentials: Credentials, site: ProblemSite): PolicyProblem[] {
  const path = joinPath(site.prefix, ["auth", "clientCredentials"]);
  const secret = credentials.clientSecretEnv !== undefined;
  if (secret === (credentials.privateKeyEnv !== undefined)) {
    return [problemAt(
      site,
      path,
      `"${path}" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received ${
        secret ? "both" : "neither"
      }`,
    )];
  }
  if (!secret || credentials.algorithm === undefined) return [];
  const algorithm = joinPath(path, ["algorithm"]);
  return [problemAt(
    site,
    algorithm,
    `"${algorithm}" needs "${joinPath(path, ["privateKeyEnv"])}": it is the private key's signing algorithm`,
  )];
}

function urlProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  const path = joinPath(site.prefix, ["url"]);
  const problem = (message: string) => [problemAt(site, path, message)];
  const url = parseUrl(transport.url);
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return problem(
      `"${path}" must be an absolute http(s) URL, received ${
        JSON.stringify(withoutUrlSecrets(transport.url))
      }`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    return problem(`"${path}" must not carry credentials: put them in "transport.headers"`);
  }
  if (url.protocol === "http:" && !hasLoopbackHost(url) && transport.allowHttp !== true) {
    return problem(
      `"${path}" must use https unless its host is loopback, received ${
        JSON.stringify(withoutUrlSecrets(transport.url))
      } (set "transport.allowHttp: true" to accept the risk)`,
    );
  }
  return [];
}

function problemAt(site: ProblemSite, path: string, message: string): PolicyProblem {
  return { source: site.source, server: site.server, path, message };
}

function joinPath(prefix: string | undefined, keys: readonly (string | number)[]): string {
  let out = prefix ?? "";
  for (const key of keys) out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`;
  return out;
}

/**
 * The options whose values are not echoed in problems: header values and environment variables
 * carry tokens, and problems land in terminals and CI logs.
 */
const SECRET_PATH = /^transport\.(headers|env)(\.|\[|$)/;

function render(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") {
    return typeof value;
  }
  // JSON would write null for these (a JSON file's 1e400 reads as Infinity).
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  // A URL an option was given (an origin, a host list) may carry a password or a token.
  const shown = typeof value === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)
    ? withoutUrlSecrets(value)
    : value;
  const text = JSON.stringify(shown) ?? String(shown);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The object schema of a list's items, when the schema is a list of objects. */
function itemOf(schema: AnySchema | undefined): AnySchema | undefined {
  return objectOf(listItemOf(schema));
}

/** The schema of a list's items. */
function listItemOf(schema: AnySchema | undefined): AnySchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.item !== undefined) return schema.item;
  return schema.wrapped === undefined ? undefined : listItemOf(schema.wrapped);
}

/** The object schema inside optional, `false`-or and union wrappers. */
function objectOf(schema: AnySchema | undefined): AnySchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.entries !== undefined) return schema;
  if (schema.wrapped !== undefined) return objectOf(schema.wrapped);
  // A picklist's options are values, a union's are schemas.
  if (schema.type !== "union") return undefined;
  for (const option of schema.options as AnySchema[]) {
    const found = objectOf(option);
    if (found !== undefined) return found;
  }
  return undefined;
}
