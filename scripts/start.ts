/**
 * `npm start`: the demo, in one Node process, with no network, account or key. It starts the demo
 * MCP server (`examples/demo-server/`) on 127.0.0.1:3971, then sluice's gateway on
 * 127.0.0.1:8787 with every policy of `policies/` and the demo handler, and prints where to go.
 * Ctrl-C stops both.
 *
 * Environment: `DEMO_PORT` (the demo server's port, default 3971, 0 for a free one; the gateway
 * uses the port actually bound, and the `sluice call` line printed carries it, since
 * `policies/demo.policy.ts` reads `DEMO_PORT` too),
 * `PORT` (the gateway's, default 8787), `SLUICE_STATE_KEY` (seals paused requests; default a random
 * key for this run).
 *
 * @module
 */
import process from "node:process";
import type { Policy } from "../mod.ts";
import { type RunningGateway, serve } from "../src/adapters/node.ts";
import { DEMO_PORT, type DemoServer, startDemoServer } from "../examples/demo-server/demo-server.ts";
import { demoHandler } from "../examples/demo-server/demo-handler.ts";

const say = (line = ""): void => console.log(line);
const fail = (line: string): never => {
  console.error(`sluice demo: ${line}`);
  process.exit(1);
};

/** A port from the environment variable `name` when set, else `fallback`; 0 picks a free one. */
function portFrom(name: "DEMO_PORT" | "PORT", fallback: number): number {
  const value = process.env[name]?.trim() ?? "";
  if (value === "") return fallback;
  if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) return Number(value);
  return fail(`${name} must be an integer from 0 to 65535, received ${JSON.stringify(value.slice(0, 32))}`);
}

/** What to do about a port that is taken. */
function suggest(name: "DEMO_PORT" | "PORT", port: number): string {
  return `stop what uses it, or pick another port: ${name}=${port === 65535 ? 0 : port + 1} npm start`;
}

/** The system's code for a failure to listen (`EADDRINUSE`), when there is one. */
function codeOf(error: unknown): string | undefined {
  for (let e: unknown = error; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** Every policy of `policies/`, the demo's pointed at the demo server actually started. */
async function withDemoUrl(url: string): Promise<Policy[]> {
  // Imported once DEMO_PORT is known to be a port: the demo policy reads it when it loads.
  const { policies } = await import("../policies/mod.ts");
  return policies.map((policy) =>
    policy.server === "demo" && "url" in policy.transport
      ? { ...policy, transport: { ...policy.transport, url } }
      : policy
  );
}

/**
 * The `sluice call` line to try: `sluice call` reads `policies/demo.policy.ts`, which points at
 * 3971 unless `DEMO_PORT` says otherwise, so on another port the line sets it.
 */
function tryLine(demoUrl: string): string {
  const port = new URL(demoUrl).port;
  return `${port === String(DEMO_PORT) ? "" : `DEMO_PORT=${port} `}npx sluice call demo book_trip`;
}

async function startDemo(port: number): Promise<DemoServer> {
  try {
    return await startDemoServer({ port });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail(
      codeOf(error) === "EADDRINUSE"
        ? `port ${port} is taken, so the demo MCP server cannot start: ${suggest("DEMO_PORT", port)}`
        : reason,
    );
  }
}

async function startGateway(
  port: number,
  demo: DemoServer,
  stateKey: string | Uint8Array,
): Promise<RunningGateway> {
  try {
    // Its banner says the playground is there.
    return await serve({
      port,
      policies: await withDemoUrl(demo.url),
      handler: demoHandler,
      stateKey,
      playground: true,
    });
  } catch (error) {
    await demo.close();
    return fail(
      codeOf(error) === "EADDRINUSE"
        ? `port ${port} is taken, so the gateway cannot start: ${suggest("PORT", port)}`
        : error instanceof Error
        ? error.message
        : String(error),
    );
  }
}

async function main(): Promise<void> {
  const ports = { demo: portFrom("DEMO_PORT", DEMO_PORT), gateway: portFrom("PORT", 8787) };
  const demo = await startDemo(ports.demo);
  say(`sluice demo: the demo MCP server listens on ${demo.url}`);
  let stateKey: string | Uint8Array | undefined = process.env.SLUICE_STATE_KEY;
  if (stateKey === undefined || stateKey === "") {
    stateKey = crypto.getRandomValues(new Uint8Array(32));
    say(
      "sluice demo: SLUICE_STATE_KEY is not set, so this run uses a random key: paused requests do not survive a restart",
    );
  }
  const gateway = await startGateway(ports.gateway, demo, stateKey);
  say(`sluice demo: the gateway listens on ${gateway.url}`);
  say();
  say(`  MCP endpoint for hosts:  ${gateway.url}/mcp/demo`);
  say(`  Playground:              ${gateway.url}/`);
  say(`  Try:                     ${tryLine(demo.url)}`);
  say();
  say("Press Ctrl-C to stop.");

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      console.error(`sluice demo: ${signal} again, exiting now`);
      process.exit(1);
    }
    stopping = true;
    say(`sluice demo: ${signal}, stopping`);
    // A page left open may hold a connection the gateway waits for: do not wait for ever.
    setTimeout(() => {
      say("sluice demo: connections still open after 3 s, exiting anyway");
      process.exit(0);
    }, 3000).unref();
    Promise.allSettled([gateway.close(), demo.close()]).then((outcomes) => {
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed !== undefined) fail(`could not stop cleanly: ${(failed as PromiseRejectedResult).reason}`);
      say("sluice demo: stopped");
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

await main();
