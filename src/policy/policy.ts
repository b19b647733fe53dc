/**
 * A server's policy as an operator writes it: one plain-data default export per
 * `policies/<server>.policy.ts` file. Every option has a safe default, so `server` and
 * `transport` make a complete policy.
 *
 * @module
 */
import type { Duration } from "./duration.ts";

/** A token-bucket rate: `rate` tokens every `per`, at most `burst` saved up. */
export interface RateOption {
  /** Tokens added every `per`. From 1 to 1000000. */
  readonly rate: number;
  /** The refill period, e.g. `"1s"`. At most `"596h"`. */
  readonly per: Duration;
  /** The most tokens a bucket holds (and starts with). From 1 to 1000000. */
  readonly burst: number;
}

/** An MCP server reached over Streamable HTTP. */
export interface HttpTransport {
  /** The MCP endpoint, `https:` (or `http:` on a loopback host, or with `allowHttp`). */
  readonly url: string;
  /**
   * Extra request headers, e.g. `Authorization`. Never sent to another origin. Not one the
   * transport sets itself (`Accept`, `Accept-Encoding`, `Content-Type`, `Mcp-*`, `Last-Event-ID`).
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Redirects: `"same-origin"` follows only those that stay on the server's origin, `"none"`
   * follows none, `"any"` follows any (without `headers`).
   * @default "same-origin"
   */
  readonly redirect?: "same-origin" | "none" | "any" | undefined;
  /**
   * Allows a plain `http:` URL on a host that is not loopback, for `url` and for the redirects
   * `redirect` follows. Traffic and headers are then readable on the network. A redirect from
   * `https:` to `http:` is refused even so.
   * @default false
   */
  readonly allowHttp?: boolean | undefined;
  /** OAuth sign-in on a 401 Bearer challenge; `headers` must then not set `Authorization`. */
  readonly auth?: UpstreamAuth | undefined;
}

/**
 * How sluice signs in to an OAuth-protected MCP server (`transport.auth`): exactly one of
 * `oauth` (a person signs in) and `clientCredentials` (machine to machine).
 */
export type UpstreamAuth =
  | { readonly oauth: OAuthSignIn; readonly clientCredentials?: undefined }
  | { readonly clientCredentials: ClientCredentialsAuth; readonly oauth?: undefined };

/**
 * A person signs in with the authorization code grant (MCP authorization spec), identified by
 * `clientId`, else a Client ID Metadata Document, else Dynamic Client Registration.
 */
export interface OAuthSignIn {
  /**
   * Scopes asked for. @default the scopes of the server's challenge, else every scope of its
   * resource metadata's `scopes_supported`, else none (`offline_access` is added when the
   * authorization server lists it)
   */
  readonly scopes?: readonly string[] | undefined;
  /** A client id registered with the authorization server beforehand (needs `issuer`). */
  readonly clientId?: string | undefined;
  /** The issuer `clientId` is registered with; another authorization server is an error. */
  readonly issuer?: string | undefined;
  /** The environment variable holding `clientId`'s secret, for a confidential client. */
  readonly clientSecretEnv?: string | undefined;
  /**
   * How `clientId` authenticates at the token endpoint.
   * @default "client_secret_basic" with a secret (or "client_secret_post" when that is all the server lists), else "none"
   */
  readonly tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post" | undefined;
  /** sluice's Client ID Metadata Document URL (`https:`, with a path), used as the client id. */
  readonly clientMetadataUrl?: string | undefined;
}

/**
 * A pre-registered confidential client: exactly one of `clientSecretEnv` and `privateKeyEnv`.
 * Neither the credential nor a token ever appears in errors or output.
 */
export type ClientCredentialsAuth =
  & {
    /** The client id registered at the authorization server. */
    readonly clientId: string;
    /** The private key's JWS algorithm. @default "ES256" */
    readonly algorithm?: "ES256" | "RS256" | "PS256" | "EdDSA" | undefined;
    /**
     * Scopes asked for. @default the scopes of the server's challenge, else every scope of its
     * resource metadata's `scopes_supported`, else none
     */
    readonly scopes?: readonly string[] | undefined;
  }
  & (
    | {
      /** The environment variable holding the client secret. */
      readonly clientSecretEnv: string;
      readonly privateKeyEnv?: undefined;
    }
    | {
      /** The environment variable holding a PKCS#8 PEM private key, for `private_key_jwt`. */
      readonly privateKeyEnv: string;
      readonly clientSecretEnv?: undefined;
    }
  );

/** A local MCP server started as a child process speaking over stdio (self-hosted only). */
export interface StdioTransport {
  /** The program to run. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[] | undefined;
  /** Environment variables added to the minimal inherited set. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The working directory. */
  readonly cwd?: string | undefined;
}

/** How sampling requests (`sampling/createMessage`) are treated. `false` refuses them all. */
export interface SamplingPolicy {
  /** Largest `maxTokens` passed to the handler; larger requests are clamped. @default 4096 */
  readonly maxTokens?: number | undefined;
  /** Lets `includeContext` through; otherwise it becomes `"none"`. @default false */
  readonly context?: boolean | undefined;
  /** Lets a legacy sampling request through when no call is in flight. @default false */
  readonly allowIdle?: boolean | undefined;
  /** Most assistant `tool_use` turns a request may already hold. @default 5 */
  readonly maxToolIterations?: number | undefined;
  /** The JSON-RPC code of a sampling refusal (idle, tool loop, over budget). @default -1 */
  readonly rejectionCode?: number | undefined;
  /** Declares `sampling.tools`, letting servers send `tools` and `toolChoice`. @default false */
  readonly tools?: boolean | undefined;
}

/** How elicitation requests (`elicitation/create`) are treated. `false` refuses them all. */
export interface ElicitationPolicy {
  /** Modes allowed (intersected with the handler's). @default ["form", "url"] */
  readonly modes?: readonly ("form" | "url")[] | undefined;
  /** The server's origin for `originMismatch`; HTTP transports default to their URL's origin. */
  readonly origin?: string | undefined;
  /** URL mode: only these hosts (exact, or `*.` suffix patterns). @default all hosts */
  readonly allowHosts?: readonly string[] | undefined;
  /**
   * URL mode: never these hosts nor their subdomains (a public suffix refuses itself only);
   * checked before `allowHosts`. @default []
   */
  readonly denyHosts?: readonly string[] | undefined;
  /** URL mode: lets IP-address hosts through, loopback and private ranges included. @default false */
  readonly allowIpHosts?: boolean | undefined;
  /** URL mode: lets hosts without a public suffix (`localhost`, intranet names) through. @default false */
  readonly allowPrivateHosts?: boolean | undefined;
  /** URL mode: longest URL accepted, in characters, as sent and once normalised. @default 2048 */
  readonly maxUrlLength?: number | undefined;
  /** Form mode: most fields in one form. @default 100 */
  readonly maxFields?: number | undefined;
  /** Form mode: most values in one enum. @default 500 */
  readonly maxEnumValues?: number | undefined;
}

/** Handler time limits. */
export interface HandlerTimeoutPolicy {
  /** For elicitation (a person is answering). @default "5m" */
  readonly elicitation?: Duration | undefined;
  /** For sampling and roots. @default "60s" */
  readonly default?: Duration | undefined;
}

/** The MCP log levels, lowest first (RFC 5424). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** One upstream server's policy. */
export interface Policy {
  /** The operator's id for the server (`ctx.serverId`): letters, digits, `.`, `_`, `-`. */
  readonly server: string;
  /** How to reach the server. */
  readonly transport: HttpTransport | StdioTransport;
  /** Protocol era: `"modern"` (2026-07-28), `"legacy"` (2025-11-25, 2025-06-18) or `"auto"`. @default "auto" */
  readonly era?: "modern" | "legacy" | "auto" | undefined;
  /** Sampling rules, or `false` to refuse sampling. */
  readonly sampling?: false | SamplingPolicy | undefined;
  /** Elicitation rules, or `false` to refuse elicitation. */
  readonly elicitation?: false | ElicitationPolicy | undefined;
  /** `false` refuses roots requests. @default true */
  readonly roots?: boolean | undefined;
  /** Budget of input requests from this server. @default { rate: 10, per: "1s", burst: 20 } */
  readonly inputRateLimit?: RateOption | undefined;
  /** Budget of log entries from this server. @default { rate: 50, per: "1s", burst: 100 } */
  readonly logRateLimit?: RateOption | undefined;
  /** Lowest server log level asked for; entries below it are dropped. @default "info" */
  readonly logLevel?: LogLevel | undefined;
  /** Lets input requests through when the shared rate-limit store cannot answer. @default false */
  readonly rateLimitFailOpen?: boolean | undefined;
  /** Handler time limits. */
  readonly handlerTimeout?: HandlerTimeoutPolicy | undefined;
  /** Each leg of a call (an HTTP or stdio request), and each notification or answer sent. @default "60s" */
  readonly callTimeout?: Duration | undefined;
  /** A whole call: every round and paused time included. @default "10m" */
  readonly maxTotalTimeout?: Duration | undefined;
  /** Legacy server requests handled at once; more are answered busy. @default 8 */
  readonly maxServerRequests?: number | undefined;
  /** Rounds of one multi round-trip request; one more fails the call (`rounds_exceeded`). @default 10 */
  readonly maxRounds?: number | undefined;
  /**
   * The largest message accepted, in bytes (JSON body, stdio line, the front's request body); a larger
   * one fails the call or is refused 413. From 1024 to 268435456. @default 4194304 (4 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The largest SSE event accepted, in UTF-8 bytes of its data; a larger one fails the call (kind
   * `"protocol"`). From 1024 to `maxMessageBytes`. @default 4194304 (4 MiB)
   */
  readonly maxEventBytes?: number | undefined;
  /**
   * The most `inputRequests` entries in one round; more fail the call (kind `"protocol"`) before any
   * handler runs. From 1 to 1000. @default 16
   */
  readonly maxInputRequests?: number | undefined;
  /**
   * The deepest nesting of arrays and objects in a message received (the message is level 1),
   * checked before parsing; deeper is a protocol error. From 16 to 1000. @default 64
   */
  readonly maxJsonDepth?: number | undefined;
  /**
   * The most notifications and log entries waiting for each consumer; newer ones are dropped and
   * counted (`stats().dropped`). From 1 to 1000000. @default 1000
   */
  readonly maxWaitingNotifications?: number | undefined;
  /** The front: kinds with no handler passed down to its caller instead of refused. @default [] */
  readonly passDown?: readonly ("sampling" | "elicitation" | "roots")[] | undefined;
  /** The front: how long a sealed continuation state stays valid. @default "10m" */
  readonly stateTtl?: Duration | undefined;
  /**
   * The front: the most legacy caller sessions at once for this server (and, counted apart, upstream
   * sessions kept for 2026-07-28 callers of a legacy server); at the cap the longest-unused idle one
   * is closed, else the next is refused (HTTP 503 or `-32000`). From 1 to 10000. @default 32
   */
  readonly maxSessions?: number | undefined;
  /** The front: how long an unused legacy session (and its upstream session) is kept. @default "10m" */
  readonly sessionIdleTimeout?: Duration | undefined;
  /**
   * The front: which callers may use this server (any rule matches them) and which tools; others
   * get HTTP 403, and an empty list admits no one.
   * @default every caller the gateway's `auth` admits, every tool
   */
  readonly access?: readonly AccessRule[] | undefined;
}

/** One rule of a policy's `access`: who it admits, and to which tools. */
export interface AccessRule {
  /** The callers' subjects (`ctx.principal.subject`) it admits. @default any caller */
  readonly subjects?: readonly string[] | undefined;
  /** The scopes a caller must all hold. @default none */
  readonly scopes?: readonly string[] | undefined;
  /** The tools it opens, by name, or `"*"` for all. @default "*" */
  readonly tools?: readonly string[] | "*" | undefined;
}

/**
 * Declares a server's policy, returned unchanged; {@linkcode compilePolicy} validates it.
 *
 * @param policy The policy.
 * @returns The same object.
 * @example
 * ```ts
 * import { definePolicy } from "./policy.ts";
 * export default definePolicy({ server: "github", transport: { url: "https://mcp.example.com/mcp" } });
 * ```
 */
export function definePolicy(policy: Policy): Policy {
  return policy;
}
