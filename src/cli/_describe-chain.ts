/**
 * The report `sluice check` prints for one compiled policy: the transport and era, the call
 * and message limits, then the chain every input request goes through, step by step in the order the chain
 * runs them (`src/chain/chain.ts`, `src/chain/_kind-checks.ts`), with each step's effective
 * numbers (byte limits in KiB, MiB or GiB and durations as policy files write them, when exact),
 * then the log budget, legacy supervision and front settings. Each step has a number of its own:
 * a step that applies to one elicitation mode says so.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { formatDuration } from "../policy/duration.ts";

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
  const rate = (r: CompiledPolicy["inputRateLimit"]) => `${r.rate} per ${d(r.perMs)}, burst ${r.burst}`;
  return [
    `${p.server}${p.source === undefined ? "" : `  ${p.source}`}`,
    row(2, "transport", transport(p)),
    row(2, "era", p.era === "auto" ? "auto (server/discover, else initialize)" : p.era),
    row(
      2,
      "calls",
      `callTimeout ${d(p.callTimeoutMs)} per HTTP leg, maxTotalTimeout ${d(p.maxTotalTimeoutMs)} per call, ` +
        `maxRounds ${p.maxRounds}, maxInputRequests ${p.maxInputRequests} per round`,
    ),
    row(
      2,
      "messages",
      `maxMessageBytes ${formatBytes(p.maxMessageBytes)} (a JSON body, a stdio line, a front request), ` +
        `maxEventBytes ${formatBytes(p.maxEventBytes)} per SSE event, maxJsonDepth ${p.maxJsonDepth} levels`,
    ),
    "  input requests, checked in this order:",
    row(4, "1. capability", capability(p)),
    row(
      4,
      "2. budget",
      `inputRateLimit ${rate(p.inputRateLimit)}; over it: ${p.sampling.rejectionCode} (sampling), ` +
        `-32000 (others); store unavailable: ${
          p.rateLimitFailOpen ? "let through (rateLimitFailOpen)" : "refused"
        }`,
    ),
    ...sampling(p),
    ...elicitation(p),
    ...roots(p),
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
      `passDown ${p.passDown.length === 0 ? "none" : p.passDown.join(", ")}, stateTtl ${d(p.stateTtlMs)}`,
    ),
  ];
}

function transport(p: CompiledPolicy): string {
  const t = p.transport;
  if (t.kind === "stdio") {
    const env = Object.keys(t.env);
    return [
      `stdio ${[t.command, ...t.args].join(" ")}`,
      t.cwd === undefined ? "" : `, cwd ${t.cwd}`,
      env.length === 0 ? "" : `, env ${env.join(", ")}`,
    ].join("");
  }
  const headers = Object.keys(t.headers);
  // The sign-in shows its kind and client id only: the variables' names are not secret, but
  // nothing read from them is printed.
  const auth = t.auth === undefined
    ? ""
    : t.auth.kind === "client_credentials"
    ? `, sign-in client_credentials as ${JSON.stringify(t.auth.clientId)}`
    : `, sign-in oauth as ${
      t.auth.client === undefined
        ? "a registered client (metadata document or registration)"
        : `${JSON.stringify(t.auth.client.clientId)} at ${t.auth.client.issuer}`
    }`;
  return `http ${t.url} (redirects ${t.redirect}${
    headers.length === 0 ? "" : `, headers ${headers.join(", ")}`
  }${auth})`;
}

function capability(p: CompiledPolicy): string {
  const allowed: string[] = [];
  const refused: string[] = [];
  (p.sampling.enabled ? allowed : refused).push("sampling");
  if (p.elicitation.enabled) allowed.push(`elicitation (${p.elicitation.modes.join(", ")})`);
  else refused.push("elicitation");
  (p.roots.enabled ? allowed : refused).push("roots");
  const never = refused.length === 0 ? "" : `; never: ${refused.join(", ")} (-32601)`;
  return `declared when the handler implements it: ${allowed.join(", ") || "nothing"}${never}`;
}

function sampling(p: CompiledPolicy): string[] {
  const s = p.sampling;
  if (!s.enabled) return ["    sampling/createMessage: refused at step 1 (sampling: false)"];
  const code = s.rejectionCode;
  return [
    "    sampling/createMessage:",
    row(6, "3. tools", `tools and toolChoice refused (-32602) unless sampling.tools (${onOff(s.tools)})`),
    row(6, "4. maxTokens", `a positive integer (else -32602), clamped to ${s.maxTokens}`),
    row(6, "5. tool_result", "a message with tool_result blocks holds nothing else (else -32602)"),
    row(
      6,
      "6. idle",
      `legacy only: refused (${code}) with no call in flight, allowIdle ${onOff(s.allowIdle)}`,
    ),
    row(6, "7. tool loop", `refused (${code}) beyond ${s.maxToolIterations} assistant tool_use turns`),
    row(
      6,
      "8. context",
      s.context ? "includeContext kept (context on)" : 'includeContext becomes "none" (context off)',
    ),
    row(6, "9. handler", `timeout ${d(p.handlerTimeoutMs.default)}`),
    row(6, "10. answer", "a valid CreateMessageResult, else -32603"),
  ];
}

function elicitation(p: CompiledPolicy): string[] {
  const e = p.elicitation;
  if (!e.enabled) return ["    elicitation/create: refused at step 1 (elicitation: false)"];
  const hosts = [
    "https, no userinfo",
    e.allowHosts === undefined ? "any public host" : `allowHosts ${e.allowHosts.join(", ")}`,
    e.denyHosts.length === 0 ? "" : `denyHosts ${e.denyHosts.join(", ")}`,
    e.allowIpHosts ? "IP hosts allowed" : "no IP hosts",
    e.allowPrivateHosts ? "private hosts allowed" : "no private hosts",
    `at most ${e.maxUrlLength} characters; else -32602; never opened by sluice`,
  ].filter((part) => part !== "").join(", ");
  // The url and form checks are alternatives (each runs for its own mode), but each keeps a
  // number of its own, so a step number names one step.
  const steps = [
    ...(e.modes.includes("url") ? [["url", `(url mode only) ${hosts}`]] : []),
    ...(e.modes.includes("form")
      ? [[
        "form",
        `(form mode only) flat primitive fields only, at most ${e.maxFields} fields and ` +
        `${e.maxEnumValues} enum values; else -32602`,
      ]]
      : []),
    ["handler", `timeout ${d(p.handlerTimeoutMs.elicitation)}`],
    [
      "answer",
      "accept, decline or cancel; a form accept fits the schema (defaults filled in); " +
      "a URL accept has no content; else -32603",
    ],
  ];
  return [
    "    elicitation/create:",
    row(6, "3. mode", `${e.modes.join(" or ")}, of those the handler declares (missing: form); else -32602`),
    ...steps.map(([label, text], i) => row(6, `${i + 4}. ${label}`, text ?? "")),
  ];
}

function roots(p: CompiledPolicy): string[] {
  if (!p.roots.enabled) return ["    roots/list: refused at step 1 (roots: false)"];
  return [
    "    roots/list:",
    row(6, "3. handler", `timeout ${d(p.handlerTimeoutMs.default)}`),
    row(
      6,
      "4. answer",
      'only file:// roots on this host, "." and ".." resolved, the rest dropped; else -32603',
    ),
  ];
}
