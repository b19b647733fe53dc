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
  /**
   * Signs in to the server with OAuth when it answers 401 with a Bearer challenge; the token is
   * sent as `Authorization: Bearer`, so `headers` must not set `Authorization` too.
   */
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
 * A person signs in with the authorization code grant (the MCP authorization spec: PKCE,
 * resource indicators, refresh). sluice identifies itself to the authorization server with the
 * pre-registered `clientId` when given, else with its Client ID Metadata Document where the
 * server supports them, else by Dynamic Client Registration. Tokens are kept per server and
 * caller in the client's token store.
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
  /**
   * The issuer of the authorization server `clientId` is registered with: the client is used
   * there only (another authorization server is an error, not a silent reuse).
   */
  readonly issuer?: string | undefined;
  /** The environment variable holding `clientId`'s secret, for a confidential client. */
  readonly clientSecretEnv?: string | undefined;
  /**
   * How `clientId` authenticates at the token endpoint.
   * @default "client_secret_basic" with a secret (or "client_secret_post" when that is all the server lists), else "none"
   */
  readonly tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post" | undefined;
  /**
   * The URL of sluice's Client ID Metadata Document (an `https:` URL with a path, serving a
   * document whose `client_id` is that URL), used as the client id where the authorization
   * server supports them. The gateway serves its own at `/oauth/client-metadata.json`.
   */
  readonly clientMetadataUrl?: string | undefined;
}

/**
 * A pre-registered confidential client of the server's authorization server. Exactly one of
 * `clientSecretEnv` and `privateKeyEnv` names where its credential lives; the variable is read
 * when the first token is needed, and neither it nor a token ever appears in errors or output.
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
      /**
       * The environment variable holding the client secret, sent with `client_secret_basic` (or
       * `client_secret_post` when that is all the authorization server lists).
       */
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
   * URL mode: never these hosts, nor the subdomains of one within its registrable domain (a public
   * suffix such as `co.uk` or `github.io` refuses itself only); checked before `allowHosts`.
   * @default []
   */
  readonly denyHosts?: readonly string[] | undefined;
  /** URL mode: lets IP-address hosts through, loopback and private ranges included. @default false */
  readonly allowIpHosts?: boolean | undefined;
  /** URL mode: lets hosts without a public suffix (`localhost`, intranet names) through. @default false */
  readonly allowPrivateHosts?: boolean | undefined;
  /**
   * URL mode: longest URL accepted, in characters, both as the server sent it and once normalised
   * (percent-encoded, host in punycode). @default 2048
   */
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
  /**
   * Lowest server log level asked for, whether or not the handler's `log` or a notification
   * subscriber hears the entries (those nobody hears are dropped, and so are those below it that a
   * server sends anyway); `"emergency"` asks for the fewest.
   * @default "info"
   */
  readonly logLevel?: LogLevel | undefined;
  /** Lets input requests through when the shared rate-limit store cannot answer. @default false */
  readonly rateLimitFailOpen?: boolean | undefined;
  /** Handler time limits. */
  readonly handlerTimeout?: HandlerTimeoutPolicy | undefined;
  /**
   * Each leg of a call (an HTTP or a stdio request), and each notification or answer sent.
   * @default "60s"
   */
  readonly callTimeout?: Duration | undefined;
  /** A whole call: every round and paused time included. @default "10m" */
  readonly maxTotalTimeout?: Duration | undefined;
  /** Legacy server requests handled at once; more are answered busy. @default 8 */
  readonly maxServerRequests?: number | undefined;
  /**
   * Rounds of one multi round-trip request: `input_required` answered and retried. A server that
   * asks again after the last one fails the call (`rounds_exceeded`). @default 10
   */
  readonly maxRounds?: number | undefined;
  /**
   * The largest message accepted, in bytes: a JSON response body (both eras), a stdio line, the
   * front's downstream request body. A larger one fails the call (HTTP: kind `"protocol"`;
   * stdio: the connection is ended, kind `"transport"`) or is refused with 413 (the front).
   * From 1024 to 268435456. @default 4194304 (4 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The largest SSE event accepted, in UTF-8 bytes of its data (a line still arriving counts
   * too), on every stream of both eras. A larger one fails the call (kind `"protocol"`) or ends
   * the legacy listen stream. From 1024 to `maxMessageBytes`. @default 4194304 (4 MiB: a
   * response may arrive as one event, so it gets the room a JSON body gets)
   */
  readonly maxEventBytes?: number | undefined;
  /**
   * The most `inputRequests` entries in one round of a multi round-trip request (and in one
   * `input_required` task status). More fail the call (kind `"protocol"`) before any handler
   * runs. From 1 to 1000. @default 16
   */
  readonly maxInputRequests?: number | undefined;
  /**
   * The deepest nesting of arrays and objects in any message received (the message object is
   * level 1), checked on the text before it is parsed. A deeper one is a protocol error (stdio:
   * the connection is ended). From 16 to 1000. @default 64
   */
  readonly maxJsonDepth?: number | undefined;
  /**
   * The most notifications and log entries of this server waiting for each consumer (the
   * handler, each subscriber, each iterator); newer ones are dropped and counted
   * (`stats().dropped`), and other servers' entries still get their own room.
   * From 1 to 1000000. @default 1000
   */
  readonly maxWaitingNotifications?: number | undefined;
  /**
   * The front: kinds with no handler that it passes down to its caller (who must declare them)
   * instead of refusing. @default [] (nothing passes down unless a handler calls `ctx.defer()`)
   */
  readonly passDown?: readonly ("sampling" | "elicitation" | "roots")[] | undefined;
  /** The front: how long a sealed continuation state stays valid. @default "10m" */
  readonly stateTtl?: Duration | undefined;
  /**
   * The front: the most sessions of legacy callers (2025 hosts) at once for this server; each
   * has its own upstream session to a legacy server (a stdio child, an HTTP session). At the cap
   * the longest-unused idle session is closed to make room, fairly between callers (one of the new
   * session's caller or of a caller holding more, the biggest holder's; a caller holding two or
   * more and more than half the cap gives up one with no request in flight, even with streams
   * open); while none can go, the next `initialize` is refused (HTTP 503). The same cap, counted
   * apart, bounds the upstream sessions the front keeps for 2026-07-28 callers of a legacy server
   * (there a new call is refused `-32000` while none can go). From 1 to 10000. @default 32
   */
  readonly maxSessions?: number | undefined;
  /**
   * The front: a legacy caller's session with no request in flight and no stream open for this
   * long is closed (with its upstream session); so is an upstream session kept for 2026-07-28
   * callers of a legacy server that no call or request used for this long. @default "10m"
   */
  readonly sessionIdleTimeout?: Duration | undefined;
  /**
   * The front: which callers may use this server, and which of its tools. A caller may use the
   * server when at least one rule matches it (its subject is in `subjects`, when given, and it
   * holds every scope in `scopes`, when given); it may call and list the tools of the rules that
   * match it. Others are refused (HTTP 403; `insufficient_scope` naming the scopes when scopes
   * would admit them); an empty list admits no one.
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
 * Declares a server's policy: returns it unchanged, typed, for a `*.policy.ts` file's default
 * export. {@linkcode compilePolicy} validates it.
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
