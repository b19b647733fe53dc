/// <reference types="node" />
/**
 * `sluice serve`: the self-hosted front on this runtime (`@hono/node-server` on Node,
 * `Deno.serve` on Deno, `Bun.serve` on Bun), with the policies of a folder and, optionally, a
 * handler module; it runs until SIGINT or SIGTERM, then closes and exits 0.
 *
 * @module
 */
import { resolve } from "node:path";
import type { RunningGateway, ServeOptions } from "../adapters/_serve-options.ts";
import { defineHandler, type Handler } from "../handler/handler.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { flagText, parseArgs, show } from "./_args.ts";
import { describeThrown, loadModule, runtimeName } from "./_load-module.ts";
import type { CliIo } from "./cli-io.ts";
import { loadPolicyFolder } from "./_policy-folder.ts";

/** The text of `sluice serve --help`. */
export const SERVE_HELP: string =
  `Usage: sluice serve [--port N] [--host H] [--policies dir] [--handler module]

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
  -h, --help          show this help

Environment:
  SLUICE_STATE_KEY    the key sealing continuation states (at least 32 bytes), the same on
                      every instance; unset, a random key is made for this process only
  PORT                the port when --port is not given

Exit codes:
  0   stopped by SIGINT or SIGTERM
  1   cannot listen (the address is in use or not permitted)
  2   usage error: bad flags, policies or handler that do not load, a bad state key

Examples:
  sluice serve
  sluice serve --port 8787 --policies ./policies --handler ./handler.ts
  SLUICE_STATE_KEY="$(openssl rand -base64 32)" sluice serve --host 0.0.0.0
`;

type Serve = (options: ServeOptions) => Promise<RunningGateway>;

/**
 * Runs `sluice serve` until the io's signal fires.
 *
 * @param argv The arguments after `serve`.
 * @param io The command's io.
 * @returns 0 once stopped, 1 when it cannot listen, 2 on a usage or configuration error.
 */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  const options = await readOptions(argv, io);
  if (typeof options === "number") return options;
  if (options.stateKey === undefined) {
    io.stderr.write(
      "sluice serve: SLUICE_STATE_KEY is not set: continuation states are sealed with a random key of " +
        "this process only\n",
    );
  }
  let running: RunningGateway;
  try {
    const serve = await loadServe();
    running = await serve({
      ...options,
      stateKey: options.stateKey ?? crypto.getRandomValues(new Uint8Array(32)),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof TypeError) return usage(io, message);
    io.stderr.write(`${message}\n`);
    return 1;
  }
  io.stdout.write(banner(running.url, options.policies));
  await stopped(io.signal);
  io.stdout.write("sluice serve: stopping\n");
  await running.close();
  return 0;
}

function usage(io: CliIo, message: string): number {
  io.stderr.write(`sluice serve: ${message}\nRun "sluice serve --help" for usage.\n`);
  return 2;
}

/** Reads the command line, the policies and the handler; an exit code when there is nothing to serve. */
async function readOptions(
  argv: readonly string[],
  io: CliIo,
): Promise<(ServeOptions & { policies: readonly CompiledPolicy[] }) | number> {
  const kinds = { port: "string", host: "string", policies: "string", handler: "string" } as const;
  const parsed = parseArgs("sluice serve", argv, kinds);
  if (!parsed.ok) return usage(io, parsed.message.replace(/^sluice serve: /, ""));
  const { args } = parsed;
  if (args.flags.has("help")) return (io.stdout.write(SERVE_HELP), 0);
  if (args.positionals.length > 0) {
    return usage(io, `unexpected argument ${show(args.positionals[0] ?? "")}, expected only flags`);
  }
  const port = flagText(args, "port") ?? io.env["PORT"] ?? "8787";
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    const from = args.flags.has("port") ? 'flag "--port"' : "PORT";
    return usage(io, `${from} must be an integer from 0 to 65535, received ${show(port)}`);
  }
  const policies = await loadPolicyFolder(flagText(args, "policies") ?? "policies", io);
  if (typeof policies === "string") return usage(io, policies);
  const handlerPath = flagText(args, "handler");
  const handler = handlerPath === undefined
    ? undefined
    : await loadHandler(resolve(io.cwd ?? ".", handlerPath));
  if (typeof handler === "string") return usage(io, `--handler ${show(handlerPath ?? "")}: ${handler}`);
  const stateKey = io.env["SLUICE_STATE_KEY"];
  return {
    port: Number(port),
    hostname: flagText(args, "host") ?? "127.0.0.1",
    policies,
    handler,
    ...(stateKey === undefined || stateKey === "" ? {} : { stateKey }),
  };
}

function banner(
  url: string,
  policies: readonly { server: string; era: string; transport: { kind: string } }[],
): string {
  const width = Math.max(...policies.map((p) => `${url}/mcp/${p.server}`.length), `${url}/healthz`.length) +
    2;
  const lines = [
    `sluice front listening on ${url}`,
    ...policies.map((p) =>
      `  POST ${`${url}/mcp/${p.server}`.padEnd(width)}${p.server}: ${p.era}, ${p.transport.kind}`
    ),
    `  GET  ${`${url}/servers`.padEnd(width)}the servers, their capabilities and limits`,
    `  GET  ${`${url}/healthz`.padEnd(width)}health check`,
    "Stop with Ctrl-C (SIGINT) or SIGTERM.",
  ];
  return `${lines.join("\n")}\n`;
}

async function loadServe(): Promise<Serve> {
  switch (runtimeName()) {
    case "deno":
      return (await import("../adapters/deno.ts")).serve;
    case "bun":
      return (await import("../adapters/bun.ts")).serve;
    case "node":
      return (await import("../adapters/node.ts")).serve;
  }
}

async function loadHandler(path: string): Promise<Handler | string> {
  let namespace: Readonly<Record<string, unknown>>;
  try {
    namespace = await loadModule(path);
  } catch (error) {
    return `the module does not load: ${describeThrown(error)}`;
  }
  const value = namespace["default"] ?? namespace["handler"];
  if (value === undefined) return 'expected a default export or an export named "handler", found neither';
  try {
    return defineHandler(value as Handler);
  } catch (error) {
    return (error as Error).message;
  }
}

function stopped(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener("abort", () => done(), { once: true }));
}
