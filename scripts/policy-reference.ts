/**
 * `policies/README.md`, the reference of every policy option, generated from the policy schema
 * (`src/policy/policy-schema.ts`: the options and what each accepts) and `POLICY_DEFAULTS` (the
 * defaults). Only the prose (what an option does, what it protects against) is written here, in
 * {@linkcode OPTION_NOTES}; a test fails when an option of the schema has no note, a note names
 * no option, or the file on disk differs from what this script writes.
 *
 * `npm run docs` rewrites the file.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { POLICY_DEFAULTS } from "../src/policy/policy-defaults.ts";
import { PolicySchema, TransportSchemas } from "../src/policy/policy-schema.ts";

/** What an option does, what it protects against, and its default where the schema has none. */
interface OptionNote {
  readonly what: string;
  readonly protects: string;
  /** The default as shown, when `POLICY_DEFAULTS` does not hold it (or holds a whole object). */
  readonly shownDefault?: string;
  /** What it accepts, when the schema does not say (`transport` is checked by its two shapes). */
  readonly accepts?: string;
}

/** The prose of every option, by dotted path (transport options under `transport.http.` / `.stdio.`). */
export const OPTION_NOTES: Readonly<Record<string, OptionNote>> = {
  "server": {
    what:
      "The operator's id for the server: `ctx.serverId`, the front's `/mcp/<server>`, `sluice call <server>`.",
    protects: "Keeps every budget, log limit and cache per server, so one server cannot use another's.",
    shownDefault: "required",
  },
  "transport": {
    what:
      "How to reach the server: `{ url }` (Streamable HTTP) or `{ command }` (a child process over stdio, " +
      "self-hosted only).",
    protects: "—",
    shownDefault: "required",
    accepts: "an object { url } or { command }",
  },
  "transport.http.url": {
    what: "The MCP endpoint.",
    protects:
      "Plain `http:` is refused except on loopback hosts (or with `allowHttp`), so credentials are not " +
      "sent in the clear by accident.",
    shownDefault: "required",
  },
  "transport.http.headers": {
    what: "Extra request headers, such as `Authorization`; not one the transport sets itself (`Accept`, " +
      "`Accept-Encoding`, `Content-Type`, `Mcp-Session-Id`, `Mcp-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, " +
      "`Mcp-Param-*`, `Last-Event-ID`).",
    protects: "Never sent to another origin, not even after a redirect.",
    shownDefault: "none",
  },
  "transport.http.redirect": {
    what:
      '`"same-origin"` follows only redirects that stay on the server\'s origin, `"none"` follows none, ' +
      '`"any"` follows any (without `headers`).',
    protects: "A server sending the client, and its headers, somewhere else.",
    shownDefault: '`"same-origin"`',
  },
  "transport.http.allowHttp": {
    what: "Allows a plain `http:` URL on a host that is not loopback, for the endpoint and the redirects " +
      "followed; a redirect from `https:` to `http:` is refused even so.",
    protects:
      "Off, traffic and headers cannot be read on the network by mistake: neither the endpoint nor a " +
      "redirect may be plain `http:` on a host that is not loopback.",
    shownDefault: "`false`",
  },
  "transport.http.auth": {
    what: "Signs in to an OAuth-protected server: on a 401 Bearer challenge sluice discovers the server's " +
      "resource and authorization server metadata, gets a token and retries once with it. Exactly one of " +
      "`oauth` and `clientCredentials`.",
    protects:
      "Tokens go to the server's origin only; metadata and token requests use https (plain http only on " +
      "loopback) and follow no redirects; the server's metadata must name this server and its issuer.",
    shownDefault: "none",
  },
  "transport.http.auth.oauth": {
    what: "A person signs in (authorization code grant with PKCE S256 and `resource`): through the " +
      "handler's `authorize`, the gateway's `/oauth/start` page, or `sluice login`. Tokens are kept per " +
      "server and caller and refreshed when the server issues refresh tokens.",
    protects:
      "The callback's `state` is single-use and bound to its sign-in, its `iss` checked (RFC 9207); " +
      "a server without S256 is refused; tokens never appear in errors, logs or output.",
    shownDefault: "none",
  },
  "transport.http.auth.oauth.scopes": {
    what: "Scopes asked for; without them, those of the server's challenge, else its metadata's " +
      "`scopes_supported`, else none (`offline_access` added when the authorization server lists it). " +
      "A 403 `insufficient_scope` asks for the union, at most twice in a row.",
    protects: "Asking for no more than the policy names.",
    shownDefault: "the server's",
  },
  "transport.http.auth.oauth.clientId": {
    what: "A client id registered with the authorization server beforehand (used before a metadata " +
      "document or dynamic registration).",
    protects: "—",
    shownDefault: "none",
  },
  "transport.http.auth.oauth.issuer": {
    what: "The issuer `clientId` is registered with; required with it.",
    protects: "The client is never offered to another authorization server: when the server moves, the " +
      "sign-in fails and says so.",
    shownDefault: "none",
  },
  "transport.http.auth.oauth.clientSecretEnv": {
    what: "The environment variable holding `clientId`'s secret (a confidential client).",
    protects: "The secret stays out of policy files; it is read when a token is requested, never printed.",
    shownDefault: "none",
  },
  "transport.http.auth.oauth.tokenEndpointAuthMethod": {
    what: "How `clientId` authenticates at the token endpoint.",
    protects: "—",
    shownDefault: '`"client_secret_basic"` with a secret, else `"none"`',
  },
  "transport.http.auth.oauth.clientMetadataUrl": {
    what: "sluice's Client ID Metadata Document URL, used as the client id where the authorization server " +
      "supports them (the client's `signIn.clientMetadataUrl`, or the gateway's own document, otherwise).",
    protects: "No registration is left behind at the authorization server.",
    shownDefault: "the client's",
  },
  "transport.http.auth.clientCredentials": {
    what: "Machine-to-machine sign-in with the client credentials grant, as a pre-registered client; " +
      "exactly one of `clientSecretEnv` and `privateKeyEnv`.",
    protects: "No person signs in; `headers` may not set `Authorization` beside it.",
    shownDefault: "required",
  },
  "transport.http.auth.clientCredentials.clientId": {
    what: "The client id registered at the server's authorization server.",
    protects: "—",
    shownDefault: "required",
  },
  "transport.http.auth.clientCredentials.clientSecretEnv": {
    what:
      "The environment variable holding the client secret (`client_secret_basic`, or `client_secret_post` " +
      "when that is all the authorization server lists).",
    protects: "The secret stays out of policy files; it is read when a token is first needed, never printed.",
    shownDefault: "none",
  },
  "transport.http.auth.clientCredentials.privateKeyEnv": {
    what: "The environment variable holding a PKCS#8 PEM private key, for `private_key_jwt`.",
    protects: "No shared secret at all; the key is read when a token is first needed, never printed.",
    shownDefault: "none",
  },
  "transport.http.auth.clientCredentials.algorithm": {
    what: "The private key's signing algorithm.",
    protects: "—",
    shownDefault: '`"ES256"`',
  },
  "transport.http.auth.clientCredentials.scopes": {
    what: "Scopes asked for; without them, those of the server's challenge, else its metadata's " +
      "`scopes_supported`, else none. A 403 `insufficient_scope` asks once more for the union.",
    protects: "Asking for no more than the policy names.",
    shownDefault: "the server's",
  },
  "transport.stdio.command": {
    what: "The program to run.",
    protects: "—",
    shownDefault: "required",
  },
  "transport.stdio.args": { what: "Its arguments.", protects: "—", shownDefault: "`[]`" },
  "transport.stdio.env": {
    what: "Environment variables added to the minimal set the child inherits.",
    protects: "The child does not see the parent's secrets unless they are listed here.",
    shownDefault: "none",
  },
  "transport.stdio.cwd": {
    what: "The child's working directory.",
    protects: "—",
    shownDefault: "the current one",
  },
  "era": {
    what:
      '`"modern"` (2026-07-28, over HTTP only), `"legacy"` (2025-11-25, 2025-06-18, self-hosted only) or ' +
      '`"auto"` (probe with `server/discover`, fall back to `initialize`, cache the answer; over stdio: legacy).',
    protects: "—",
  },
  "sampling": {
    what: "Sampling rules (`sampling/createMessage`), or `false` to refuse every sampling request.",
    protects: "A server spending the operator's model budget.",
    shownDefault: "each option's, below",
  },
  "sampling.maxTokens": {
    what: "The largest `maxTokens` passed to the handler; a larger request is clamped to it (a copy: the " +
      "server's request is not changed), and one past 2^53 − 1 (no longer an exact count) is refused `-32602`.",
    protects: "Unbounded model spend per request.",
  },
  "sampling.context": {
    what: 'Lets `includeContext` through; otherwise it becomes `"none"`.',
    protects: "A server reading the conversation of other servers through the model's context.",
  },
  "sampling.allowIdle": {
    what: "Lets a legacy sampling request through when no call to that server is in flight.",
    protects: "A server spending model budget on its own, unprompted.",
  },
  "sampling.maxToolIterations": {
    what: "The most assistant `tool_use` turns a sampling request may already hold.",
    protects: "Endless tool loops driven by a server.",
  },
  "sampling.rejectionCode": {
    what: "The JSON-RPC error code of a sampling refusal (idle, tool loop, over budget).",
    protects: "—",
  },
  "sampling.tools": {
    what: "Declares `sampling.tools`, letting servers send `tools` and `toolChoice`.",
    protects: "Off, a server cannot make the model call tools.",
  },
  "elicitation": {
    what: "Elicitation rules (`elicitation/create`), or `false` to refuse every elicitation.",
    protects: "A server asking the user for data, or sending them to a page, without the operator's say.",
    shownDefault: "each option's, below",
  },
  "elicitation.modes": {
    what: "The modes allowed, intersected with the handler's.",
    protects: "URL mode sends the user to a page the server chose; leave it out where that is not wanted.",
  },
  "elicitation.origin": {
    what:
      "The server's origin, for the `originMismatch` warning shown with a URL; HTTP transports default to " +
      "their URL's origin.",
    protects: "Phishing: a URL on another site than the server's own is flagged to the user.",
    shownDefault: "the transport URL's origin",
  },
  "elicitation.allowHosts": {
    what: "URL mode: only these hosts (exact, or `*.` suffix patterns, compared on the registrable domain).",
    protects: "Phishing: the user is only ever sent to hosts the operator listed.",
    shownDefault: "all hosts",
  },
  "elicitation.denyHosts": {
    what:
      "URL mode: never these hosts, nor the subdomains of one within its registrable domain (`evil.example` also refuses `login.evil.example`; a public suffix such as `co.uk` or `github.io` refuses itself only; checked before `allowHosts`).",
    protects: "Known-bad hosts, even inside an allowed domain.",
    shownDefault: "`[]`",
  },
  "elicitation.allowIpHosts": {
    what: "URL mode: lets hosts written as IP addresses through, loopback and private ranges included " +
      "(`allowPrivateHosts` governs names only): the user's own machine and network become reachable.",
    protects: "Phishing with bare addresses, and decimal, octal or hex IPv4 spellings.",
  },
  "elicitation.allowPrivateHosts": {
    what: "URL mode: lets hosts without a public suffix (`localhost`, intranet names) through.",
    protects: "A server steering the user's browser at their own network.",
  },
  "elicitation.maxUrlLength": {
    what:
      "URL mode: the longest URL accepted, in characters, both as the server sent it and once normalised " +
      "(percent-encoded, the host in punycode).",
    protects: "URLs that hide their real host past the edge of the screen.",
  },
  "elicitation.maxFields": {
    what: "Form mode: the most fields in one form.",
    protects: "Forms that wear the user down or exhaust memory.",
  },
  "elicitation.maxEnumValues": {
    what: "Form mode: the most values in one enum.",
    protects: "Huge choice lists (memory, and the terminal or page that renders them).",
  },
  "roots": {
    what: "`false` refuses `roots/list`.",
    protects: "A server learning which folders the client works in.",
  },
  "inputRateLimit": {
    what: "The budget of input requests (sampling, elicitation, roots) from this server: a token bucket " +
      "`{ rate, per, burst }`, shared across isolates with the Upstash store.",
    protects: "Floods of input requests: model spend, prompts to the user, handler load.",
  },
  "logRateLimit": {
    what: "The budget of log entries (`notifications/message`) from this server; the rest are dropped and " +
      "counted.",
    protects: "Log floods filling the handler's logs and memory.",
  },
  "logLevel": {
    what:
      "The lowest server log level asked for, whether or not anything hears the entries (modern: on every " +
      "request; legacy: `logging/setLevel` once connected, when the server declares `logging`). They reach the " +
      "handler's `log` and notification subscribers; nobody listening, they are dropped, and so is an entry " +
      "below this level that a server sends anyway. There is no off: " +
      '`"emergency"` asks for the fewest.',
    protects: "A chatty server: a higher level asks it for fewer entries.",
  },
  "rateLimitFailOpen": {
    what: "Lets input requests through when the shared rate-limit store cannot answer.",
    protects: "Off (fail closed): Redis going away never lifts the budget.",
  },
  "handlerTimeout": {
    what: "Handler time limits, each at most `maxTotalTimeout` (a default is shortened to it).",
    protects: "A hung handler holding a call, and a server, forever.",
    shownDefault: "each option's, below",
  },
  "handlerTimeout.elicitation": {
    what: "For elicitation handlers (a person is answering).",
    protects: "A form left open forever.",
  },
  "handlerTimeout.default": {
    what: "For sampling and roots handlers.",
    protects: "A hung model call.",
  },
  "callTimeout": {
    what:
      "The time limit of each leg of a call (an HTTP request, or a stdio request), and of each notification or " +
      "answer the client sends (its POST, or its write to a stdio server's stdin); at most `maxTotalTimeout` " +
      "(the default is shortened to it).",
    protects: "A server that never answers, answers one byte at a time, or stops reading its stdin.",
  },
  "maxTotalTimeout": {
    what: "The time limit of a whole call: every round, and time parked waiting for a caller, included.",
    protects: "Calls kept alive forever by endless rounds or slow answers.",
  },
  "maxServerRequests": {
    what: "Legacy server requests handled at once per server; the next is answered busy (`-32000`).",
    protects: "A server flooding requests to exhaust memory or handler capacity.",
  },
  "maxRounds": {
    what: "The rounds of one multi round-trip request (`input_required` answered and retried); a server " +
      "asking again after the last one fails the call (`rounds_exceeded`).",
    protects: "A server answering `input_required` forever.",
  },
  "maxMessageBytes": {
    what: "The largest JSON message read from this server: an HTTP body, one stdio line, and the front's " +
      "downstream request bodies for this server.",
    protects: "A server exhausting memory with one huge message.",
  },
  "maxEventBytes": {
    what: "The largest SSE event (and unterminated line) read from this server; at most `maxMessageBytes` " +
      "(the default is lowered to it).",
    protects: "A stream that never ends its event.",
  },
  "maxInputRequests": {
    what: "The most `inputRequests` entries in one round of a multi round-trip request; more fail the call " +
      "(kind `protocol`) before any handler runs.",
    protects: "One round asking thousands of questions at once.",
  },
  "maxJsonDepth": {
    what: "The deepest nesting of arrays and objects in any message decoded from this server (both eras), " +
      "checked before parsing.",
    protects: "Stack exhaustion from deeply nested JSON.",
  },
  "maxWaitingNotifications": {
    what: "Notifications and log entries from this server waiting for each consumer (handler, subscriber); " +
      "newer ones are dropped and counted in `client.stats()`.",
    protects: "A slow consumer, or a flood, growing memory without bound.",
  },
  "passDown": {
    what: "The front: the kinds with no handler that it passes down to its caller (who must declare them) " +
      "instead of refusing.",
    protects: "Nothing passes down unless listed here or a handler calls `ctx.defer()`.",
  },
  "stateTtl": {
    what: "The front: how long a sealed continuation state (`requestState`) stays valid.",
    protects: "Replays of old states.",
  },
  "maxSessions": {
    what:
      "The front: the most sessions of legacy callers (2025 hosts) at once for this server, each with its " +
      "own upstream session to a legacy server (a stdio child, an HTTP session). At the cap the longest-unused " +
      "idle session (no request in flight, no stream open) is closed to make room, fairly between callers: " +
      "one of the new session's caller or of a caller holding more (the biggest holder's); a caller " +
      "holding two or more and more than half the cap gives up to another its longest-unused session with " +
      "no request in flight, even with its stream open. While none can go, the next `initialize` is " +
      "refused (HTTP 503). A host holding its GET stream open is never idle.",
    protects: "Callers opening sessions (and child processes) without bound.",
  },
  "sessionIdleTimeout": {
    what: "The front: a legacy caller's session with no request in flight and no stream open for this long " +
      "is closed, with its upstream session.",
    protects: "Abandoned sessions holding upstream connections and processes.",
  },
  "access": {
    what: "The front: which callers may use this server and which of its tools, as rules " +
      "`{ subjects?, scopes?, tools? }`. A caller may use the server when a rule matches it (its subject is " +
      "listed, when `subjects` is given, and it holds every scope in `scopes`); it may call, and `tools/list` " +
      'shows it, the tools of the rules that match it (`tools: "*"` or absent: all). An empty list admits no one.',
    protects: "One caller using another's servers or tools through the gateway's credentials: refused with " +
      "HTTP 403 (`insufficient_scope` naming the scopes when scopes would admit it).",
    shownDefault: "every caller the gateway's `auth` admits, every tool",
  },
  "access[].subjects": {
    what: "The callers' subjects (`ctx.principal.subject`) the rule admits.",
    protects: "—",
    shownDefault: "any caller",
  },
  "access[].scopes": {
    what: "The scopes a caller must all hold for the rule to admit it.",
    protects: "—",
    shownDefault: "none",
  },
  "access[].tools": {
    what: 'The tools the rule opens, by name, or `"*"` for all.',
    protects: "—",
    shownDefault: '`"*"`',
  },
};

interface Row {
  readonly path: string;
  readonly accepts: string;
  readonly shownDefault: string;
  readonly note: OptionNote;
}

/** Any valibot schema, seen through the fields this walk reads. */
interface SchemaNode {
  readonly type: string;
  readonly message?: unknown;
  readonly wrapped?: SchemaNode;
  readonly entries?: Readonly<Record<string, SchemaNode>>;
  readonly item?: SchemaNode;
  readonly pipe?: readonly { readonly message?: unknown }[];
}

/** The first custom message of a schema or its pipe: the schema's own "what it expects". */
function accepts(node: SchemaNode): string {
  const messages = [node.message, ...(node.pipe ?? []).map((step) => step.message)];
  const text = messages.find((message): message is string => typeof message === "string");
  return text ?? node.type;
}

/** The default of `path` from POLICY_DEFAULTS, shown as code, or undefined when it has none. */
function defaultOf(path: string): string | undefined {
  let value: unknown = POLICY_DEFAULTS;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null || !(key in value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return `\`${JSON.stringify(value).replaceAll(",", ", ").replaceAll(":", ": ")}\``;
}

/**
 * Every option of the schema in order, nested objects (but not rates) and the items of lists of
 * objects (`access[].scopes`) expanded after their parent.
 */
export function optionPaths(): string[] {
  return rows().map((row) => row.path);
}

const isRate = (node: SchemaNode) => Object.keys(node.entries ?? {}).sort().join() === "burst,per,rate";

/**
 * What a rate accepts, with what each of its numbers accepts: a rate has one row, so its
 * numbers' bounds are stated there.
 *
 * @param node The rate's object schema.
 * @returns For example ``an object { rate, per, burst }: `rate` an integer from 1 to 1000000; …``.
 */
function rateAccepts(node: SchemaNode): string {
  const parts = Object.entries(node.entries ?? {}).map(([key, entry]) => `\`${key}\` ${accepts(entry)}`);
  return `${accepts(node)}: ${parts.join("; ")}`;
}

function rows(): Row[] {
  const out: Row[] = [];
  const visit = (prefix: string, entries: Readonly<Record<string, SchemaNode>>) => {
    for (const [key, entry] of Object.entries(entries)) {
      const path = prefix + key;
      const node = entry.type === "optional" && entry.wrapped !== undefined ? entry.wrapped : entry;
      const note = OPTION_NOTES[path];
      if (note === undefined) throw new Error(`policy option "${path}" has no note in OPTION_NOTES`);
      const shown = note.shownDefault ?? defaultOf(path);
      if (shown === undefined) throw new Error(`policy option "${path}" has no default to show`);
      const accepted = note.accepts ?? (isRate(node) ? rateAccepts(node) : accepts(node));
      out.push({ path, accepts: accepted, shownDefault: shown, note });
      // Nested option objects (sampling, elicitation, handlerTimeout) get a row per option; a rate's
      // three numbers are described by its own row.
      if (node.type === "object" && node.entries !== undefined && !isRate(node)) {
        visit(`${path}.`, node.entries);
      }
      // A list of option objects (access rules) gets a row per option of its items.
      if (node.type === "array" && node.item?.type === "object" && node.item.entries !== undefined) {
        visit(`${path}[].`, node.item.entries);
      }
    }
  };
  visit("", (PolicySchema as unknown as SchemaNode).entries ?? {});
  for (const [kind, schema] of Object.entries(TransportSchemas)) {
    visit(`transport.${kind}.`, (schema as unknown as SchemaNode).entries ?? {});
  }
  return out;
}

const escapeCell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/**
 * An option's name as a policy spells it: the notes keep a transport's options apart under
 * `transport.http.` and `transport.stdio.`, where a policy writes `transport.url`,
 * `transport.command`.
 */
export const optionName = (path: string): string =>
  path.replace(/^transport\.(?:http|stdio)\./, "transport.");

/**
 * The text of `policies/README.md`.
 *
 * @returns The Markdown.
 */
export function policyReference(): string {
  const all = rows();
  const unused = Object.keys(OPTION_NOTES).filter((path) => !all.some((row) => row.path === path));
  if (unused.length > 0) throw new Error(`OPTION_NOTES names options the schema lacks: ${unused.join(", ")}`);
  const table = (list: readonly Row[]) =>
    [
      "| option | accepts | default | what it does | what it protects against |",
      "| --- | --- | --- | --- | --- |",
      ...list.map((row) =>
        `| \`${optionName(row.path)}\` | ${escapeCell(row.accepts)} | ${escapeCell(row.shownDefault)} | ${
          escapeCell(row.note.what)
        } | ${escapeCell(row.note.protects)} |`
      ),
    ].join("\n");
  const policyRows = all.filter((row) => !row.path.startsWith("transport."));
  const transportRows = all.filter((row) => row.path.startsWith("transport."));
  return [
    "# Policy files",
    "",
    "<!-- Generated by scripts/policy-reference.ts from src/policy/policy-schema.ts and POLICY_DEFAULTS.",
    "     Do not edit by hand: run `npm run docs`. A test fails when this file is out of date. -->",
    "",
    "One file per upstream server, `policies/<server>.policy.ts`, whose default export is plain data:",
    "",
    "```ts",
    'import { definePolicy } from "@sluice/mcp";',
    "",
    "export default definePolicy({",
    '  server: "github",',
    '  transport: { url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${process.env.MCP_TOKEN}` } },',
    "  sampling: false,",
    '  elicitation: { modes: ["url"], allowHosts: ["github.com", "*.github.com"] },',
    "});",
    "```",
    "",
    "`server` and `transport` make a complete policy: every other option has a safe default. `sluice check`",
    "compiles every file of a folder and prints each server's chain with its effective numbers; it lists every",
    "problem of every file at once, each naming the file, the option, what it expects and what it received. An",
    "unknown key is an error, so a typo never silently drops a limit. JSON files (`<server>.policy.json`) work",
    'too. Durations are strings such as `"500ms"`, `"60s"`, `"5m"`, `"1h"`: whole milliseconds from `"1ms"` to',
    '`"596h"`, in any unit (`"2145600000ms"` is the longest); rates are `{ rate, per, burst }` token buckets.',
    "",
    "The examples here: [`demo.policy.ts`](demo.policy.ts) (the demo server `npm start` runs),",
    "[`everything.policy.ts`](everything.policy.ts) (the official reference server over stdio, legacy era),",
    "[`github.policy.ts`](github.policy.ts) (a remote server over HTTP). [`mod.ts`](mod.ts) exports them all.",
    "They import `../mod.ts`: in a clone of sluice itself, `@sluice/mcp` names the built package (`dist/`,",
    "which `npm run build` makes), so a policy added here imports `../mod.ts` as they do.",
    "",
    "## Options",
    "",
    table(policyRows),
    "",
    "## `transport`",
    "",
    "`{ url, … }` for Streamable HTTP:",
    "",
    table(transportRows.filter((row) => row.path.startsWith("transport.http."))),
    "",
    "`{ command, … }` for a child process over stdio (Node, Deno, Bun):",
    "",
    table(transportRows.filter((row) => row.path.startsWith("transport.stdio."))),
    "",
  ].join("\n");
}

/**
 * {@linkcode policyReference} as `deno fmt` lays it out (the repository's formatter, with its
 * settings from deno.json), which is exactly what `policies/README.md` holds.
 *
 * @returns The formatted Markdown.
 */
export function formattedPolicyReference(): string {
  const root = new URL("..", import.meta.url).pathname;
  const result = spawnSync(`${root}node_modules/.bin/deno`, ["fmt", "--ext", "md", "-"], {
    cwd: root,
    input: policyReference(),
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`deno fmt failed: ${result.stderr}`);
  return result.stdout;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL("../policies/README.md", import.meta.url);
  writeFileSync(path, formattedPolicyReference());
  console.log(`wrote ${path.pathname}`);
}
