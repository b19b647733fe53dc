/**
 * `npm run conformance [-- <client command>]`: the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned in `tests/conformance/package.json`) against a client,
 * for the `2026-07-28` and `2025-11-25` requirement sets, then its server scenarios of the
 * transport (sessions, streams, headers, version errors) against the gateway, with
 * `tests/conformance/baseline.yml` as the expected failures. Fully offline: every mock server,
 * the gateway and its upstreams are on localhost.
 *
 * The gateway runs as its users run it (`sluice serve`, `tests/peers/_hosts.ts`) in front of
 * server-everything over stdio (its 2025 face, `/mcp/everything`), the modern peer (its
 * 2026-07-28 face, `/mcp/modern`), and, for the scenarios that call the suite's own fixtures
 * (`test_simple_text`, `test://static-text`, `test_input_required_result_*`, …), the modern peer
 * serving those fixtures (`tests/peers/_conformance-tools.ts`, `/mcp/conformance`), every input
 * kind passed down: in both eras the suite then checks what the gateway relays, seals and asks.
 *
 * The suite needs Node 22 (it crashes on Node 20), so it runs on the Node 22 binary that
 * `npm ci --prefix tests/conformance` installs (run by the root `postinstall`,
 * scripts/install-conformance.mjs) and that stays out of the project's `node_modules/.bin`. The
 * client under test runs on the project's own Node, with `node_modules/.bin` on `PATH` (so `tsx`
 * resolves). A `tsx <file>.ts` client is bundled once with esbuild and run as `node <bundle>`: the
 * suite starts every scenario's client at once, and tsx compiling the sources again in each of
 * those processes cost several times the client's own work, enough under load to run a client
 * past its timeout (measures in the commit that added this).
 *
 * Options: `--requirements <rev>` (repeatable; default both), `--timeout <ms>` per client (default
 * 120000), `--output-dir <dir>` (the suite's per-scenario `checks.json`, `stdout.txt`, `stderr.txt`).
 * Every other argument is a word of the client command (default `tsx tests/conformance/client.ts`);
 * the suite appends the server URL and sets `MCP_CONFORMANCE_SCENARIO`,
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT`.
 *
 * Exits non-zero when the suite does (a scored failure not in the baseline, or a stale baseline
 * entry), or when a client process exits non-zero in a scenario that is neither baselined nor one
 * the suite lets error: in requirement-set mode the suite itself scores only the checks and ignores
 * the client's exit status, which would hide a client that crashes after the checks pass.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const suiteDir = join(root, "tests", "conformance");
const node22 = join(suiteDir, "node_modules", "node", "bin", "node");
const suitePackage = join(suiteDir, "node_modules", "@modelcontextprotocol", "conformance");
const baseline = join(suiteDir, "baseline.yml");
const DEFAULT_COMMAND = "tsx tests/conformance/client.ts";
/** Scenarios in which the suite allows the client to fail (it must refuse something). */
const CLIENT_ERRORS_ALLOWED = new Set([
  "http-invalid-tool-headers",
  // Sign-ins the client must refuse, or a scope that is never granted: the call fails.
  "auth/scope-retry-limit",
  "auth/resource-mismatch",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
]);

interface Options {
  readonly command: string;
  readonly revisions: readonly string[];
  readonly timeout: string;
  readonly outputDir?: string;
}

function fail(message: string): never {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Options {
  const words: string[] = [];
  const revisions: string[] = [];
  let timeout = "120000";
  let outputDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`"${arg}" needs a value`);
    if (arg === "--requirements") revisions.push(value());
    else if (arg === "--timeout") timeout = value();
    else if (arg === "--output-dir") outputDir = value();
    else if (arg === "--command") words.push(value());
    else if (arg !== "--") words.push(arg);
  }
  const command = words.length > 0 ? words.join(" ") : DEFAULT_COMMAND;
  if (command === DEFAULT_COMMAND && !existsSync(join(root, "tests", "conformance", "client.ts"))) {
    fail(
      `the default client "tests/conformance/client.ts" does not exist yet; name one, e.g.\n` +
        `  npm run conformance -- tsx tests/conformance/reference-client.ts`,
    );
  }
  const chosen = revisions.length > 0 ? revisions : ["2026-07-28", "2025-11-25"];
  return { command, revisions: chosen, timeout, ...outputDir === undefined ? {} : { outputDir } };
}

/** The Node 22 binary's version and the suite's version, or a message saying how to install them. */
function toolchain(): { node: string; suite: string } {
  // Without the stamp too: a suite broken in place would still carry one, and the script trusts it.
  const hint = "run: rm -rf tests/conformance/node_modules && node scripts/install-conformance.mjs";
  if (!existsSync(node22) || !existsSync(join(suitePackage, "package.json"))) {
    fail(`the suite is not installed in tests/conformance/node_modules; ${hint}`);
  }
  const node = spawnSync(node22, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
  if (!node.startsWith("v22.")) {
    fail(`expected Node 22 at "${relative(root, node22)}", received "${node}"; ${hint}`);
  }
  const suite =
    (JSON.parse(readFileSync(join(suitePackage, "package.json"), "utf8")) as { version: string }).version;
  return { node, suite };
}

/**
 * Wraps the client command in a shell function that appends `<scenario> <exit> <start ms> <end ms>`
 * to `$SLUICE_CONFORMANCE_LOG`. The suite splits `--command` on spaces, appends the URL and runs the
 * words through a shell, so the function receives the URL as `$1`.
 */
function recorded(command: string): string {
  return `sluice_client() { ${command} "$@"; s=$?; ` +
    `echo "$MCP_CONFORMANCE_SCENARIO $s $t0 $(date +%s%3N)" >> "$SLUICE_CONFORMANCE_LOG"; return $s; }; ` +
    `t0=$(date +%s%3N); sluice_client`;
}

interface ClientRun {
  readonly scenario: string;
  readonly exit: number;
  readonly seconds: number;
}

function readRuns(log: string): ClientRun[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8").trim().split("\n").filter((line) => line !== "").map((line) => {
    const [scenario = "?", exit = "-1", start = "0", end = "0"] = line.split(" ");
    return { scenario, exit: Number(exit), seconds: (Number(end) - Number(start)) / 1000 };
  });
}

function baselined(): Set<string> {
  const lines = readFileSync(baseline, "utf8").split("\n");
  return new Set(lines.map((line) => /^\s*-\s*(\S+)\s*$/.exec(line)?.[1]).filter((s) => s !== undefined));
}

/**
 * The command the suite runs: a `tsx <file>.ts` command becomes `node <bundle>` of that file, built
 * once into `scratch`; any other command is run as given.
 */
async function clientCommand(command: string, scratch: string): Promise<string> {
  const [runner, file, ...rest] = command.split(" ");
  if (runner !== "tsx" || file === undefined || !file.endsWith(".ts") || rest.length > 0) return command;
  const outfile = join(scratch, "client.mjs");
  await build({
    entryPoints: [join(root, file)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    // Bundled CommonJS dependencies call require(), which an ES module lacks.
    banner: {
      js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
    },
  });
  return `node ${outfile}`;
}

function runRevision(options: Options, revision: string, scratch: string): boolean {
  const log = join(scratch, `${revision}.log`);
  const args = [
    join(suitePackage, "dist", "index.js"),
    "client",
    "--command",
    recorded(options.command),
    "--requirements",
    revision,
    "--expected-failures",
    baseline,
    "--timeout",
    options.timeout,
    ...options.outputDir === undefined ? [] : ["--output-dir", join(options.outputDir, revision)],
  ];
  const env = {
    ...process.env,
    PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`,
    SLUICE_CONFORMANCE_LOG: log,
  };
  const started = performance.now();
  const result = spawnSync(node22, args, { cwd: root, stdio: "inherit", env });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const expected = baselined();
  const runs = readRuns(log).sort((a, b) => a.scenario.localeCompare(b.scenario));
  const crashed = runs.filter((r) =>
    r.exit !== 0 && !expected.has(r.scenario) && !CLIENT_ERRORS_ALLOWED.has(r.scenario)
  );
  console.log(`\n── conformance ${revision}: client runs (exit status, wall time)`);
  for (const run of runs) {
    const mark = crashed.includes(run) ? "CRASH" : run.exit === 0 ? "ok   " : "exit ";
    console.log(
      `${mark} ${run.scenario.padEnd(42)} exit ${String(run.exit).padStart(3)} ${run.seconds.toFixed(2)} s`,
    );
  }
  const ok = result.status === 0 && crashed.length === 0;
  console.log(
    `conformance ${revision}: suite exit ${result.status ?? result.signal}, ${runs.length} client runs, ` +
      `${crashed.length} unexpected client exits, ${seconds} s: ${ok ? "PASSED" : "FAILED"}`,
  );
  return ok;
}

/** What the fixtures' scenarios check in either era: content, resources, prompts, completion. */
const FIXTURE_SCENARIOS = [
  "completion-complete",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "json-schema-2020-12",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
];

/**
 * A 2025 host's session with the gateway, which the gateway keeps itself in front of a 2026-07-28
 * upstream (that era has no sessions): the handshake, the session's end, ping and the log level.
 */
const BRIDGE_SCENARIOS = ["server-initialize", "server-session-lifecycle", "ping", "logging-set-level"];

/** The suite's server scenarios run against the gateway: the transport's, and the fixtures', in each era. */
const SERVER_RUNS: readonly {
  server: "everything" | "modern" | "conformance";
  version: string;
  /** Run scenarios that are not on the spec's timeline (an extension's), which the suite skips otherwise. */
  force?: boolean;
  scenarios: string[];
}[] = [
  {
    server: "everything",
    version: "2025-11-25",
    scenarios: [
      "server-initialize",
      "server-session-lifecycle",
      "ping",
      "logging-set-level",
      "server-sse-multiple-streams",
      "tools-list",
      "dns-rebinding-protection",
    ],
  },
  {
    server: "modern",
    version: "2026-07-28",
    scenarios: [
      "http-header-validation",
      "server-sse-multiple-streams",
      "tools-list",
      "dns-rebinding-protection",
    ],
  },
  {
    // A 2025-06-18 host: the same, but for what that revision has not (2020-12 schemas, SEP-1034,
    // SEP-1330, SEP-1699) and the subscriptions a modern upstream cannot serve.
    server: "conformance",
    version: "2025-06-18",
    scenarios: [
      ...FIXTURE_SCENARIOS.filter((scenario) => scenario !== "json-schema-2020-12"),
      ...BRIDGE_SCENARIOS,
      "tools-call-with-logging",
      "tools-call-sampling",
      "tools-call-elicitation",
    ],
  },
  {
    server: "conformance",
    version: "2025-11-25",
    scenarios: [
      ...FIXTURE_SCENARIOS,
      ...BRIDGE_SCENARIOS,
      // The upstream asks in rounds; the gateway asks a 2025 host on its session's stream.
      "tools-call-with-logging",
      "tools-call-sampling",
      "tools-call-elicitation",
      "elicitation-sep1034-defaults",
      "elicitation-sep1330-enums",
      "server-sse-polling",
      "resources-subscribe",
      "resources-unsubscribe",
    ],
  },
  {
    server: "conformance",
    version: "2026-07-28",
    scenarios: [
      ...FIXTURE_SCENARIOS,
      // Its diagnostic tools (test_missing_capability, …) are among the fixtures.
      "server-stateless",
      "sep-2164-resource-not-found",
      "caching",
      "http-custom-header-server-validation",
      "input-required-result-basic-elicitation",
      "input-required-result-basic-sampling",
      "input-required-result-basic-list-roots",
      "input-required-result-request-state",
      "input-required-result-multiple-input-requests",
      "input-required-result-multi-round",
      "input-required-result-missing-input-response",
      "input-required-result-non-tool-request",
      "input-required-result-result-type",
      "input-required-result-unsupported-methods",
      "input-required-result-tampered-state",
      "input-required-result-capability-check",
      "input-required-result-ignore-extra-params",
      "input-required-result-validate-input",
    ],
  },
  {
    // The tasks extension (SEP-2663) through the gateway: a caller's task ids are bound to it, its
    // input requests go through the policy. Left out: tasks-status-notifications, whose one check
    // the suite itself skips (pending its rewrite around subscriptions/listen).
    server: "conformance",
    version: "2026-07-28",
    force: true,
    scenarios: [
      "tasks-lifecycle",
      "tasks-capability-negotiation",
      "tasks-wire-fields",
      "tasks-request-state-removal",
      "tasks-mrtr-input",
      "tasks-request-headers",
      "tasks-dispatch-and-envelope",
      "tasks-required-task-error",
      "tasks-mrtr-composition",
    ],
  },
];

/** Runs the server scenarios against a gateway process; whether every one met the baseline. */
async function runServerScenarios(options: Options): Promise<boolean> {
  const { startHostsGateway } = await import("../tests/peers/_hosts.ts");
  const gateway = await startHostsGateway({ conformance: true });
  let failed = 0;
  const started = performance.now();
  try {
    for (const run of SERVER_RUNS) {
      for (const scenario of run.scenarios) {
        const args = [
          join(suitePackage, "dist", "index.js"),
          "server",
          "--url",
          gateway.endpoint(run.server),
          "--scenario",
          scenario,
          "--spec-version",
          run.version,
          ...run.force === true ? ["--force"] : [],
          "--expected-failures",
          baseline,
          ...options.outputDir === undefined ? [] : ["--output-dir", join(options.outputDir, "server")],
        ];
        const result = spawnSync(node22, args, { cwd: root, encoding: "utf8", env: process.env });
        const summary = /Passed: .*/.exec(result.stdout ?? "")?.[0] ?? "no summary";
        const ok = result.status === 0;
        if (!ok) {
          failed++;
          process.stdout.write(result.stdout ?? "");
          process.stderr.write(result.stderr ?? "");
        }
        console.log(
          `${ok ? "ok   " : "FAIL "} ${run.server.padEnd(11)} ${run.version} ${
            scenario.padEnd(45)
          } ${summary}`,
        );
      }
    }
  } finally {
    await gateway.stop();
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const total = SERVER_RUNS.reduce((sum, run) => sum + run.scenarios.length, 0);
  console.log(`conformance server: ${total - failed} of ${total} scenarios met the baseline, ${seconds} s`);
  return failed === 0;
}

const options = parseArgs(process.argv.slice(2));
const { node, suite } = toolchain();
const scratch = mkdtempSync(join(tmpdir(), "sluice-conformance-"));
const outcomes: boolean[] = [];
try {
  const command = await clientCommand(options.command, scratch);
  const shown = command === options.command ? `"${command}"` : `"${options.command}" (bundled: ${command})`;
  for (const revision of options.revisions) {
    console.log(
      `\n── conformance: @modelcontextprotocol/conformance@${suite} on Node ${node} ` +
        `(${relative(root, node22)}): client ${shown} --requirements ${revision} ` +
        `--expected-failures ${relative(root, baseline)} --timeout ${options.timeout}`,
    );
    outcomes.push(runRevision({ ...options, command }, revision, scratch));
  }
  console.log(`\n── conformance: server scenarios against the gateway (sluice serve)`);
  outcomes.push(await runServerScenarios(options));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const passed = outcomes.filter(Boolean).length;
console.log(
  `\nconformance: ${passed} runs passed (each requirement set, the server scenarios), ${
    outcomes.length - passed
  } failed`,
);
process.exitCode = passed === outcomes.length ? 0 : 1;
