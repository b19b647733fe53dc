/**
 * Turns valibot issues and transport rules into policy problems that name the option's path,
 * what it expects and what it received, with a suggestion for a misspelt option.
 *
 * @module
 */
import type * as v from "valibot";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import type { PolicyProblem } from "./policy-error.ts";

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
  options?: AnySchema[];
  item?: AnySchema;
};

/**
 * Converts the issues of one validation into problems.
 *
 * @param issues valibot's issues (`abortEarly: false`).
 * @param schema The schema validated against, to suggest the option meant by an unknown key.
 * @param site Source, server and path prefix.
 * @returns One problem per issue.
 */
export function problemsFromIssues(issues: readonly Issue[], site: ProblemSite): PolicyProblem[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => item.key as string | number);
    const path = joinPath(site.prefix, keys);
    const at = { source: site.source, server: site.server, path };
    if (issue.type === "object" && issue.received === "undefined" && keys.length > 0) {
      return { ...at, message: `"${path}" is required` };
    }
    const subject = path === "" ? "the policy" : `"${path}"`;
    return { ...at, message: `${subject} must be ${issue.message}, received ${render(issue.input)}` };
  });
}

/**
 * Finds every key the schema does not know, at any depth, with a suggestion for a misspelling.
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
      const path = joinPath(site.prefix, [...keys, key]);
      const guess = suggest(key, Object.keys(object.entries));
      const hint = guess === undefined ? "" : ` (did you mean "${joinPath(site.prefix, [...keys, guess])}"?)`;
      problems.push({
        source: site.source,
        server: site.server,
        path,
        message: `"${path}" is not a policy option${hint}`,
      });
    }
  };
  walk(input, schema as AnySchema, []);
  return problems;
}

/**
 * Checks what the schema cannot: an HTTP transport URL is absolute, http(s), without
 * credentials, and `https:` unless its host is loopback or `allowHttp` is set.
 *
 * @param transport A transport that passed its schema.
 * @param site Source, server and path prefix.
 * @returns The problems (often none).
 */
export function httpTransportProblems(
  transport: HttpTransportShape,
  site: ProblemSite,
): PolicyProblem[] {
  return [...urlProblems(transport, site), ...authProblems(transport, site)];
}

/** The parts of a schema-valid HTTP transport the cross-field rules read. */
export interface HttpTransportShape {
  readonly url: string;
  readonly allowHttp?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: {
    readonly clientCredentials?: { readonly clientSecretEnv?: string; readonly privateKeyEnv?: string };
    readonly oauth?: {
      readonly clientId?: string;
      readonly issuer?: string;
      readonly clientSecretEnv?: string;
      readonly tokenEndpointAuthMethod?: string;
      readonly clientMetadataUrl?: string;
    };
  };
}

/**
 * `auth` is exactly one grant; client credentials need exactly one secret source; a
 * pre-registered OAuth client names its issuer; and `auth` owns the `Authorization` header.
 */
function authProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  if (transport.auth === undefined) return [];
  const problems: PolicyProblem[] = [];
  const add = (at: string, message: string) =>
    problems.push({ source: site.source, server: site.server, path: at, message });
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

function oauthProblems(
  oauth: NonNullable<NonNullable<HttpTransportShape["auth"]>["oauth"]>,
  site: ProblemSite,
): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const at = (key: string) => joinPath(site.prefix, ["auth", "oauth", key]);
  const add = (key: string, message: string) =>
    problems.push({ source: site.source, server: site.server, path: at(key), message });
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
  } else if (!isHttpsOrLoopback(oauth.issuer)) {
    add(
      "issuer",
      `"${at("issuer")}" must be an https URL (http only on localhost), received ${
        JSON.stringify(oauth.issuer)
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
  if (oauth.clientMetadataUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(oauth.clientMetadataUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || url.protocol !== "https:" || url.pathname === "/" || url.hash !== "") {
      add(
        "clientMetadataUrl",
        `"${
          at("clientMetadataUrl")
        }" must be an https URL with a path and no fragment (it is the client id), received ${
          JSON.stringify(oauth.clientMetadataUrl)
        }`,
      );
    }
  }
  return problems;
}

function isHttpsOrLoopback(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || (url.protocol === "http:" && hasLoopbackHost(url));
  } catch {
    return false;
  }
}

/** Client credentials need exactly one secret source. */
function credentialProblems(
  credentials: { readonly clientSecretEnv?: string; readonly privateKeyEnv?: string },
  site: ProblemSite,
): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const path = joinPath(site.prefix, ["auth", "clientCredentials"]);
  const add = (at: string, message: string) =>
    problems.push({ source: site.source, server: site.server, path: at, message });
  const secret = credentials.clientSecretEnv !== undefined;
  const key = credentials.privateKeyEnv !== undefined;
  if (secret === key) {
    add(
      path,
      `"${path}" must name exactly one of "clientSecretEnv" and "privateKeyEnv", received ${
        secret ? "both" : "neither"
      }`,
    );
  }
  return problems;
}

function urlProblems(transport: HttpTransportShape, site: ProblemSite): PolicyProblem[] {
  const path = joinPath(site.prefix, ["url"]);
  const problem = (
    message: string,
  ): PolicyProblem[] => [{ source: site.source, server: site.server, path, message }];
  let url: URL;
  try {
    url = new URL(transport.url);
  } catch {
    return problem(`"${path}" must be an absolute http(s) URL, received ${JSON.stringify(transport.url)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return problem(`"${path}" must be an absolute http(s) URL, received ${JSON.stringify(transport.url)}`);
  }
  if (url.username !== "" || url.password !== "") {
    return problem(`"${path}" must not carry credentials: put them in "transport.headers"`);
  }
  if (url.protocol === "http:" && !hasLoopbackHost(url) && transport.allowHttp !== true) {
    return problem(
      `"${path}" must use https unless its host is loopback, received ${
        JSON.stringify(transport.url)
      } (set "transport.allowHttp: true" to accept the risk)`,
    );
  }
  return [];
}

function joinPath(prefix: string | undefined, keys: readonly (string | number)[]): string {
  let out = prefix ?? "";
  for (const key of keys) out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`;
  return out;
}

function render(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") {
    return typeof value;
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function itemOf(schema: AnySchema | undefined): AnySchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.item !== undefined) return objectOf(schema.item);
  return schema.wrapped === undefined ? undefined : itemOf(schema.wrapped);
}

function objectOf(schema: AnySchema | undefined): AnySchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.entries !== undefined) return schema;
  if (schema.wrapped !== undefined) return objectOf(schema.wrapped);
  for (const option of schema.options ?? []) {
    const found = objectOf(option);
    if (found !== undefined) return found;
  }
  return undefined;
}

function suggest(typo: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(typo.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(typo.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? Infinity;
}
