/// <reference types="node" />
/**
 * `sluice serve`: the self-hosted front on this runtime (`@hono/node-server` on Node,
 * `Deno.serve` on Deno, `Bun.serve` on Bun), with the policies of a folder and, optionally, a
 * handler module; it runs until SIGINT or SIGTERM, then closes and exits 0.
 *
 * @module
 */
import { resolve } from "node:path";
import type { RunningGateway, ServeOptions } from "../adapters/serve-options.ts";
import { type Decision, decisionJson, describeDecision } from "../chain/decision.ts";
import { droppingBehind, type DroppingWriter } from "../_internal/line-backlog.ts";
import { defineHandler, type Handler } from "../handler/handler.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { flagText, parseArgs, type ParsedArgs, show, usageError } from "./_args.ts";
import { bearerSecretProblem, downstreamAuth, type GatewayAuth } from "../front/downstream-auth.ts";
import { systemClock } from "../_internal/clock.ts";
import { HEARTBEAT_RULE, heartbeatMsOf } from "../front/heartbeat.ts";
import type { Duration } from "../policy/duration.ts";
import { NO_STATE_KEY, secretKeyProblem } from "../_internal/secret-key.ts";
import { checkHostRules } from "../front/guard.ts";
import { describeThrown, loadModule, runtimeName } from "./_load-module.ts";
import type { CliIo } from "./cli-io.ts";
import { loadPolicyFolder } from "./_policy-folder.ts";
import { untilAborted } from "./_prompt-input.ts";
import { serveBanner } from "./_serve-banner.ts";

/** The text of `sluice serve --help`. */
export const SERVE_HELP: string =
  `Usage: sluice serve [--port N] [--host H] [--policies dir] [--handler module] [--auth module]
                    [--allowed-hosts h,h] [--allowed-origins o,o] [--public]
                    [--decisions json|text|none] [--heartbeat duration|off]

Runs the sluice front: MCP hosts talk to /mcp/<server> (2026-07-28 without a session, 2025-11-25
and 2025-06-18 with one), and the front enforces that server's policy, answers input requests
with the handler, or passes them down to the host. Runs until SIGINT (Ctrl-C) or SIGTERM.

Flags:
  --port <N>          the TCP port, 0 for any free one (default $PORT, else 8787)
  --host <H>          the interface to listen on (default 127.0.0.1; 0.0.0.0 exposes the front
                      and the servers behind it to the network)
  --policies <dir>    the folder of policy files (default ./policies)
  --handler <module>  a module whose default export (or export named "handler") is the handler
                      answering input requests (default none: requests are refused, or passed
                      down where a policy's passDown says so)
  --auth <module>     a module whose default export (or export named "auth") says who may call
                      the front: { bearer: [{ secret, subject, scopes }] }, { jwt: { issuer,
                      jwks, scopes } } or a function (request) => principal | Response
  --allowed-hosts <h,h>   host names the front answers besides loopback ones (required with
                      a --host other than loopback), such as gate.example.com
  --allowed-origins <o,o> origins whose pages may call the front besides its own (CORS)
  --public            with a --host other than loopback and no --auth: let anyone in (a warning
                      is printed on every start)
  --decisions <how>   one line on stdout per decision event (each input request a server sends,
                      each call): "text" for a person, "json" for a log shipper (one JSON object
                      a line), "none" for no lines (default text on a terminal, else json)
  --heartbeat <d>     how often an open SSE stream (a long call's answer, a 2025 host's streams)
                      carries a comment, so idle-closing proxies keep it and a caller that left
                      is noticed: a duration from 100ms to 596h such as 15s, or "off" (default 15s)
  -h, --help          show this help

Environment:
  SLUICE_STATE_KEY    required: the key sealing continuation states, at least 32 random bytes
                      (openssl rand -base64 32), the same on every instance
  SLUICE_BEARER_TOKENS  who may call the front, instead of --auth: "subject:secret" entries
                      separated by commas (each secret at least 32 random bytes)
  PORT                the port when --port is not given

Exit codes:
  0   stopped by SIGINT or SIGTERM (also while the policies, handler and auth load)
  1   cannot listen (the address is in use or not permitted)
  2   usage error: bad flags, policies, handler or auth that do not load, a missing or weak
      state key, a --host other than loopback without --allowed-hosts and --auth (or --public)
  130 a second SIGINT or SIGTERM while stopping: stopped at once, calls in flight cut off

Examples:
  export SLUICE_STATE_KEY="$(openssl rand -base64 32)"
  sluice serve
  sluice serve --port 8787 --policies ./policies --handler ./handler.ts
  SLUICE_BEARER_TOKENS="ci:$(openssl rand -base64 32)" sluice serve --host 0.0.0.0 --allowed-hosts gate.example.com
`;

/**
 * Runs `sluice serve` until the io's signal fires.
 *
 * @param argv The arguments after `serve`.
 * @param io The command's io.
 * @returns 0 once stopped, 1 when it cannot listen, 2 on a usage or configuration error.
 */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  // Policies, handler and auth may take their time at top level: a signal meanwhile stops at once.
  const lines = decisionLines(io);
  const options = await untilAborted(readOptions(argv, io, lines), io.signal);
  if (options === undefined) return stopping(io);
  if (typeof options === "number") return options;
  let running: RunningGateway;
  try {
    const serve = await loadServe();
    running = await serve(options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof TypeError) return usage(io, message);
    io.stderr.write(`sluice serve: ${message.replace(/^sluice serve\(\): /, "")}\n`);
    return 1;
  }
  // For the person who started it: stdout carries the decision events alone.
  if (io.signal?.aborted !== true) io.stderr.write(serveBanner(running.url, options));
  // Runs until the io's signal fires: never, without one.
  await untilAborted(new Promise<never>(() => {}), io.signal);
  stopping(io);
  await running.close();
  lines.sayDropped();
  return 0;
}

function stopping(io: CliIo): number {
  io.stderr.write("sluice serve: stopping\n");
  return 0;
}

function usage(io: CliIo, message: string): number {
  // The entry's errors name it ("sluice serve(): ..."), and its "hostname" is --host.
  const said = message.replace(/^sluice serve\(\): /, "").replace(/^"hostname"/, 'flag "--host"');
  return usageError(io, "serve", said);
}

/** Reads the command line, the policies and the handler; an exit code when there is nothing to serve. */
async function readOptions(
  argv: readonly string[],
  io: CliIo,
  lines: DroppingWriter,
): Promise<(ServeOptions & { policies: readonly CompiledPolicy[] }) | number> {
  const kinds = {
    port: "string",
    host: "string",
    policies: "string",
    handler: "string",
    auth: "string",
    "allowed-hosts": "string",
    "allowed-origins": "string",
    public: "boolean",
    decisions: "string",
    heartbeat: "string",
  } as const;
  const parsed = parseArgs(argv, kinds);
  if (!parsed.ok) return usage(io, parsed.message);
  const { args } = parsed;
  if (args.flags.has("help")) return (io.stdout.write(SERVE_HELP), 0);
  if (args.positionals.length > 0) {
    return usage(io, `unexpected argument ${show(args.positionals[0] ?? "")}, expected only flags`);
  }
  // An empty PORT is unset, as an empty SLUICE_STATE_KEY or SLUICE_BEARER_TOKENS is.
  const port = flagText(args, "port") ?? (io.env["PORT"] || "8787");
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    const from = args.flags.has("port") ? 'flag "--port"' : "PORT";
    return usage(io, `${from} must be an integer from 0 to 65535, received ${show(port)}`);
  }
  if (flagText(args, "host") === "") {
    return usage(io, 'flag "--host" expects a host name or address, received ""');
  }
  const decisions = flagText(args, "decisions") ?? (io.isTTY ? "text" : "json");
  if (decisions !== "json" && decisions !== "text" && decisions !== "none") {
    return usage(io, `flag "--decisions" must be one of json, text, none, received ${show(decisions)}`);
  }
  const heartbeat = flagText(args, "heartbeat");
  if (heartbeat !== undefined && heartbeat !== "off" && heartbeatMsOf(heartbeat) === undefined) {
    return usage(io, `flag "--heartbeat" must be ${HEARTBEAT_RULE} or "off", received ${show(heartbeat)}`);
  }
  const policies = await loadPolicyFolder(flagText(args, "policies") ?? "policies", io);
  if (typeof policies === "string") return usage(io, policies);
  const handler = await readHandler(args, io);
  if (typeof handler === "string") return usage(io, handler);
  const stateKey = io.env["SLUICE_STATE_KEY"];
  if (stateKey === undefined || stateKey === "") {
    // The entry's own words, after this command's name.
    return usage(io, NO_STATE_KEY.replace(/^sluice: /, ""));
  }
  const keyProblem = secretKeyProblem(stateKey);
  if (keyProblem !== undefined) return usage(io, `"SLUICE_STATE_KEY" ${keyProblem}`);
  const auth = await readAuth(args, io);
  if ("problem" in auth) return usage(io, auth.problem);
  const allowedHosts = listFlag(args, "allowed-hosts");
  const allowedOrigins = listFlag(args, "allowed-origins");
  for (
    const [name, list, what] of [
      ["allowed-hosts", allowedHosts, "the names clients reach the gateway by"],
      ["allowed-origins", allowedOrigins, "the origins of the pages that may call it"],
    ] as const
  ) {
    if (list?.length === 0) {
      return usage(io, `flag "--${name}" names nothing: expected ${what}, separated by commas`);
    }
  }
  try {
    checkHostRules({
      ...(allowedHosts === undefined ? {} : { allowedHosts }),
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
    }, "serve");
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // Named as the operator wrote it: the flag, not the option it becomes.
    const flag = error.message.startsWith('serve: "allowedHosts"') ? "--allowed-hosts" : "--allowed-origins";
    return usage(io, `flag "${flag}"${error.message.replace(/^serve: "allowed(Hosts|Origins)"/, "")}`);
  }
  return {
    port: Number(port),
    hostname: flagText(args, "host") ?? "127.0.0.1",
    policies,
    handler,
    stateKey,
    decisions: writeDecisions(decisions, lines),
    ...(heartbeat === undefined ? {} : { heartbeat: heartbeat === "off" ? false : heartbeat as Duration }),
    // The banner says the playground is there (GET /).
    playground: true,
    ...(auth.auth === undefined ? {} : { auth: auth.auth }),
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  };
}

/** Who may call: `--auth`'s module, else `SLUICE_BEARER_TOKENS`, else `--public`'s "none". */
async function readAuth(
  args: ParsedArgs,
  io: CliIo,
): Promise<{ readonly auth: GatewayAuth | undefined } | { readonly problem: string }> {
  const path = flagText(args, "auth");
  const tokens = io.env["SLUICE_BEARER_TOKENS"];
  const given = [path !== undefined, tokens !== undefined && tokens !== "", args.flags.has("public")];
  if (given.filter(Boolean).length > 1) {
    return { problem: "--auth, SLUICE_BEARER_TOKENS and --public each say who may call: give one of them" };
  }
  if (args.flags.has("public")) return { auth: "none" };
  if (tokens !== undefined && tokens !== "") return bearerTokens(tokens);
  if (path === undefined) return { auth: undefined };
  const loaded = await loadFlagModule(io, "auth", path);
  if (typeof loaded === "string") return { problem: loaded };
  // Checked here too, so a problem names the module, not only the gateway's option.
  try {
    downstreamAuth(loaded.value, { who: `--auth ${show(path)}`, clock: systemClock });
  } catch (error) {
    if (error instanceof TypeError) return { problem: error.message };
    throw error;
  }
  return { auth: loaded.value as GatewayAuth };
}

/**
 * The bearer secrets of `SLUICE_BEARER_TOKENS`, checked here so a problem names the variable and
 * the entry (by position and subject, never its secret).
 *
 * @param tokens The variable's value: "subject:secret" entries separated by commas.
 * @returns The `auth`, or the problem.
 */
function bearerTokens(tokens: string): { readonly auth: GatewayAuth } | { readonly problem: string } {
  const bearer = [];
  for (const [index, entry] of tokens.split(",").entries()) {
    const at = entry.indexOf(":");
    const subject = entry.slice(0, Math.max(at, 0)).trim();
    const secret = entry.slice(at + 1).trim();
    if (at < 0 || subject === "" || secret === "") {
      return {
        problem:
          `SLUICE_BEARER_TOKENS must be "subject:secret" entries separated by commas, found an entry without a subject or secret`,
      };
    }
    const problem = bearerSecretProblem(secret);
    if (problem !== undefined) {
      return {
        problem: `SLUICE_BEARER_TOKENS: the secret of entry "${index + 1}" (subject ${
          show(subject)
        }) ${problem}`,
      };
    }
    const same = bearer.findIndex((earlier) => earlier.secret === secret);
    if (same >= 0) {
      return {
        problem: `SLUICE_BEARER_TOKENS: the secret of entry "${index + 1}" (subject ${
          show(subject)
        }) is the secret of entry "${same + 1}": expected a secret of its own`,
      };
    }
    bearer.push({ subject, secret });
  }
  return { auth: { bearer } };
}

/** `--handler`'s module, checked by `defineHandler`; the problem when it is not a handler. */
async function readHandler(args: ParsedArgs, io: CliIo): Promise<Handler | undefined | string> {
  const path = flagText(args, "handler");
  if (path === undefined) return undefined;
  const loaded = await loadFlagModule(io, "handler", path);
  if (typeof loaded === "string") return loaded;
  try {
    return defineHandler(loaded.value as Handler);
  } catch (error) {
    return `--handler ${show(path)}: ${(error as Error).message}`;
  }
}

/** The default export of a flag's module, else its export named as the flag; or the problem. */
async function loadFlagModule(
  io: CliIo,
  flag: "auth" | "handler",
  path: string,
): Promise<{ readonly value: unknown } | string> {
  const named = `--${flag} ${show(path)}`;
  let namespace: Readonly<Record<string, unknown>>;
  try {
    namespace = await loadModule(resolve(io.cwd ?? ".", path));
  } catch (error) {
    return `${named}: the module does not load: ${describeThrown(error)}`;
  }
  const value = namespace["default"] ?? namespace[flag];
  return value === undefined
    ? `${named}: expected a default export or an export named "${flag}", found neither`
    : { value };
}

/**
 * Where decision lines go: the io's stdout (not `console.log`). On Node and Bun, past
 * `MAX_LINE_BACKLOG` bytes behind, lines are dropped and their count said on stderr, before the
 * next line or when the command stops; Deno's `process.stdout` waits for the reader instead, so it
 * holds little and drops none.
 */
function decisionLines(io: CliIo): DroppingWriter {
  return droppingBehind(
    { write: (text) => io.stdout.write(text), backlog: () => io.stdout.backlog?.() ?? 0 },
    (count) =>
      io.stderr.write(`sluice serve: ${count} decision lines dropped: stdout was not read fast enough\n`),
  );
}

/** One line per decision event, in the `--decisions` form. */
function writeDecisions(
  how: "json" | "text" | "none",
  line: DroppingWriter,
): false | ((decision: Decision) => unknown) {
  if (how === "none") return false;
  return how === "text"
    ? (decision) => line.write(`sluice serve: ${describeDecision(decision)}\n`, 1)
    : (decision) => line.write(`${decisionJson(decision)}\n`, 1);
}

function listFlag(args: ParsedArgs, name: string): string[] | undefined {
  const text = flagText(args, name);
  return text === undefined
    ? undefined
    : text.split(",").map((entry) => entry.trim()).filter((e) => e !== "");
}

async function loadServe(): Promise<(options: ServeOptions) => Promise<RunningGateway>> {
  switch (runtimeName()) {
    case "deno":
      return (await import("../adapters/deno.ts")).serve;
    case "bun":
      return (await import("../adapters/bun.ts")).serve;
    case "node":
      return (await import("../adapters/node.ts")).serve;
  }
}
