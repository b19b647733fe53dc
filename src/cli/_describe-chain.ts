/**
 * The report `sluice check` prints for one compiled policy: transport and era, call and message
 * limits, the chain's steps as `chainSteps` lists them (order, numbers, codes) with their effective
 * numbers, then logs, legacy supervision and front settings. Nothing that may be a secret is
 * printed: env variables and headers by name only, and a URL's password and query values and a
 * secret-looking stdio argument's value as `…`.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { formatDuration } from "../policy/duration.ts";
import { type ChainStep, type ChainSteps, chainSteps } from "../chain/chain.ts";
import { inputKindOf } from "../checks/capability.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";
import { suggestsSecret } from "../checks/form/secret-words.ts";

const d = formatDuration;
const row = (indent: number, label: string, text: string): string =>
  `${" ".repeat(indent)}${label.padEnd(21 - indent)}${text}`;
const onOff = (value: boolean): string => value ? "on" : "off";

/**
 * Writes a byte count in the largest binary unit that divides it exactly: `4 MiB`, `1536 bytes`.
 *
 * @param bytes A byte count.
 * @returns The count with its unit.
 */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return bytes === 1 ? "1 byte" : `${bytes} bytes`;
}

/**
 * Describes a compiled policy, one line per setting or step (no trailing newline).
 *
 * @param policy The compiled policy.
 * @returns The lines.
 */
export function describeChain(policy: CompiledPolicy): string[] {
  const p = policy;
  const steps = chainSteps(p);
  return [
    `${p.server}${p.source === undefined ? "" : `  ${p.source}`}`,
    row(2, "transport", transport(p)),
    row(2, "era", p.era === "auto" ? "auto (server/discover, else initialize)" : p.era),
    row(
      2,
      "calls",
      `callTimeout ${d(p.callTimeoutMs)} per leg, maxTotalTimeout ${d(p.maxTotalTimeoutMs)} per call, ` +
        `maxRounds ${p.maxRounds}, maxInputRequests ${p.maxInputRequests} per round`,
    ),
    row(
      2,
      "messages",
      `maxMessageBytes ${formatBytes(p.maxMessageBytes)} (a JSON body, a stdio line, a front request), ` +
        `maxEventBytes ${formatBytes(p.maxEventBytes)} per SSE event, maxJsonDepth ${p.maxJsonDepth} levels`,
    ),
    "  input requests, checked in this order:",
    ...steps.gate.map((step) => row(4, `${step.number}. ${step.name}`, describeStep(p, step))),
    ...kindLines(p, steps, "sampling/createMessage"),
    ...kindLines(p, steps, "elicitation/create"),
    ...kindLines(p, steps, "roots/list"),
    row(
      2,
      "logs",
      `level ${p.logLevel} and above, logRateLimit ${rate(p.logRateLimit)}; ` +
        `maxWaitingNotifications ${p.maxWaitingNotifications} per consumer, newer dropped`,
    ),
    row(2, "legacy", `maxServerRequests ${p.maxServerRequests} at once, the next answered busy (-32000)`),
    row(
      2,
      "front",
      `passDown ${p.passDown.length === 0 ? "none" : p.passDown.join(", ")}, stateTtl ${d(p.stateTtlMs)}, ` +
        `maxSessions ${p.maxSessions} (one unused ${d(p.sessionIdleTimeoutMs)} is closed)`,
    ),
    row(2, "access", access(p.access)),
  ];
}

/** Who may call the server through the front, and which tools: the rules, any of which admits. */
function access(rules: CompiledPolicy["access"]): string {
  if (rules === undefined) return "every caller, every tool";
  // A rule listing no subject admits no one, and an empty list of rules no one at all.
  const open = rules.filter((rule) => rule.subjects?.size !== 0);
  if (open.length === 0) return "no one";
  return open.map((rule) => {
    const who = rule.subjects === undefined ? "any caller" : `subjects ${[...rule.subjects].join(", ")}`;
    const scopes = rule.scopes.length === 0 ? "" : ` holding scopes ${rule.scopes.join(", ")}`;
    const tools = rule.tools === "*"
      ? "every tool"
      : rule.tools.size === 0
      ? "no tool"
      : `tools ${[...rule.tools].join(", ")}`;
    return `${who}${scopes}: ${tools}`;
  }).join("; or ");
}

function rate(r: CompiledPolicy["inputRateLimit"]): string {
  return `${r.rate} per ${d(r.perMs)}, burst ${r.burst}`;
}

/** A kind's own steps, or the gate step that refuses it. */
function kindLines(p: CompiledPolicy, steps: ChainSteps, method: InputRequest["method"]): string[] {
  const own = steps.kinds[method];
  if (own.length === 0) {
    const gate = steps.gate.find((step) => step.name === "capability");
    return [`    ${method}: refused at step ${gate?.number} (${inputKindOf(method)}: false)`];
  }
  return [
    `    ${method}:`,
    ...own.map((step) => row(6, `${step.number}. ${step.name}`, describeStep(p, step, method))),
  ];
}

/** What one step does under this policy. */
function describeStep(p: CompiledPolicy, step: ChainStep, method?: InputRequest["method"]): string {
  const s = p.sampling;
  const e = p.elicitation;
  const code = step.code;
  switch (step.name) {
    case "capability":
      return capability(p, code);
    case "budget":
      return `inputRateLimit ${rate(p.inputRateLimit)}; over it: ${s.rejectionCode} (sampling), ` +
        `${code} (others); store unavailable: ${
          p.rateLimitFailOpen ? "let through (rateLimitFailOpen)" : "refused"
        }`;
    case "tools":
      return `tools and toolChoice refused (${code}) unless sampling.tools (${onOff(s.tools)})`;
    case "maxTokens":
      return `a positive integer (else ${code}), clamped to ${s.maxTokens}`;
    case "tool_result":
      return `tool_result blocks answer the tool_use blocks just before them and nothing else (else ${code})`;
    case "idle":
      return s.allowIdle
        ? "legacy only: let through with no call in flight (allowIdle on)"
        : `legacy only: refused (${code}) with no call in flight (allowIdle off)`;
    case "tool loop":
      return `refused (${code}) beyond ${s.maxToolIterations} assistant tool_use turns`;
    case "context":
      return s.context ? "includeContext kept (context on)" : 'includeContext becomes "none" (context off)';
    case "mode":
      return `${e.modes.join(" or ")}, of those the handler declares (missing: form); else ${code}`;
    case "url":
      return `(url mode only) ${hosts(p)}, at most ${e.maxUrlLength} characters; else ${code}; ` +
        "never opened by sluice";
    case "form":
      return `(form mode only) flat primitive fields only, at most ${e.maxFields} fields and ` +
        `${e.maxEnumValues} enum values; else ${code}`;
    case "handler":
      return `timeout ${d(step.timeoutMs ?? 0)}`;
    case "answer":
      return `${method === undefined ? "" : ANSWERS[method]}; else ${code}`;
  }
}

const ANSWERS: Readonly<Record<InputRequest["method"], string>> = {
  "sampling/createMessage": "a valid CreateMessageResult",
  "elicitation/create": "accept, decline or cancel; a form accept fits the schema (defaults filled in); " +
    "a URL accept has no content",
  "roots/list": 'only file:// roots on this host, "." and ".." resolved, the rest dropped',
};

function transport(p: CompiledPolicy): string {
  const t = p.transport;
  if (t.kind === "stdio") {
    const env = Object.keys(t.env);
    return [
      `stdio ${[t.command, ...shownArgs(t.args)].join(" ")}`,
      t.cwd === undefined ? "" : `, cwd ${t.cwd}`,
      env.length === 0 ? "" : `, env ${env.join(", ")}`,
    ].join("");
  }
  const headers = Object.keys(t.headers);
  // The sign-in shows its kind and client id only: nothing read from variables is printed.
  const auth = t.auth === undefined
    ? ""
    : t.auth.kind === "client_credentials"
    ? `, sign-in client_credentials as ${JSON.stringify(t.auth.clientId)}`
    : `, sign-in oauth as ${
      t.auth.client === undefined
        ? "a registered client (metadata document or registration)"
        : `${JSON.stringify(t.auth.client.clientId)} at ${t.auth.client.issuer}`
    }`;
  return `http ${withoutUrlSecrets(t.url)} (redirects ${t.redirect}${
    headers.length === 0 ? "" : `, headers ${headers.join(", ")}`
  }${auth})`;
}

/** An argument that starts as a URL does: a scheme, then `//`. */
const URL_START = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** `--name=value`, `-name=value` or `NAME=value`: the name (dashes included), then the value. */
const ASSIGNMENT = /^([A-Za-z0-9_.-]+)=(.*)$/s;
/** A flag alone, whose value may be the next argument: `--token`, `-password`. */
const FLAG = /^-[A-Za-z0-9_.-]+$/;
/**
 * Endings of a secret name the form check's words miss, being joined to what comes before:
 * `PGPASSWORD`, `HF_TOKEN`, `--apikey`. `--monkey` is hidden too: one `…` too many costs nothing.
 */
const SECRET_ENDING = /(?:password|passwd|pass|token|secret|key)$/i;
/** Flags whose value is an HTTP header, `Name: value` (mcp-remote's `--header`, curl's `-H`). */
const HEADER_FLAGS: ReadonlySet<string> = new Set(["--header", "-H"]);

/**
 * Whether a flag's or an assignment's name looks secret: by the form check's words, or by its
 * ending once its dashes are stripped.
 *
 * @param name The name, dashes included.
 * @returns `true` when its value is to be shown as `…`.
 */
function looksSecret(name: string): boolean {
  return suggestsSecret(name, undefined, undefined) || SECRET_ENDING.test(name.replaceAll("-", ""));
}

/**
 * A header argument as printed: its name only, as a policy's headers are (`Authorization: …`),
 * or `…` when it has no name before a colon.
 *
 * @param header The argument, `Name: value`.
 * @returns The header to print.
 */
function shownHeader(header: string): string {
  const colon = header.indexOf(":");
  return colon < 0 ? "…" : `${header.slice(0, colon).trim()}: …`;
}

/**
 * A stdio command's arguments as printed, with what may be a secret shown as `…`: the value of a
 * flag or assignment whose name {@linkcode looksSecret} (`--token x`, `PGPASSWORD=x`), a header's
 * value (`--header`, `-H`: shown by name), and a URL's password and query values.
 *
 * @param args The arguments.
 * @returns The arguments to print.
 */
function shownArgs(args: readonly string[]): string[] {
  const shownValue = (text: string) => URL_START.test(text) ? withoutUrlSecrets(text) : text;
  return args.map((arg, i) => {
    const previous = args[i - 1] ?? "";
    if (HEADER_FLAGS.has(previous)) return shownHeader(arg);
    if (FLAG.test(previous) && looksSecret(previous)) return "…";
    const assigned = ASSIGNMENT.exec(arg);
    if (assigned === null) return shownValue(arg);
    const [, name = "", value = ""] = assigned;
    if (HEADER_FLAGS.has(name)) return `${name}=${shownHeader(value)}`;
    return `${name}=${looksSecret(name) ? "…" : shownValue(value)}`;
  });
}

function capability(p: CompiledPolicy, code: number | undefined): string {
  const allowed: string[] = [];
  const refused: string[] = [];
  (p.sampling.enabled ? allowed : refused).push("sampling");
  if (p.elicitation.enabled) allowed.push(`elicitation (${p.elicitation.modes.join(", ")})`);
  else refused.push("elicitation");
  (p.roots.enabled ? allowed : refused).push("roots");
  const never = refused.length === 0 ? "" : `; never: ${refused.join(", ")} (${code})`;
  return `declared when the handler implements it: ${allowed.join(", ") || "nothing"}${never}`;
}

function hosts(p: CompiledPolicy): string {
  const e = p.elicitation;
  return [
    "https, no userinfo",
    e.allowHosts === undefined ? "any public host" : `allowHosts ${e.allowHosts.join(", ")}`,
    e.denyHosts.length === 0 ? "" : `denyHosts ${e.denyHosts.join(", ")}`,
    e.allowIpHosts ? "IP hosts allowed" : "no IP hosts",
    e.allowPrivateHosts ? "private hosts allowed" : "no private hosts",
  ].filter((part) => part !== "").join(", ");
}
