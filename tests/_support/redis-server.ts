// Starts and stops a throwaway redis-server on loopback for the tests that need real Redis.
// node:child_process and node:net work the same on Node, Deno and Bun.
import { type ChildProcess, spawnSync } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import process from "node:process";
import { test } from "node:test";
import { spawnTethered, stopTethered } from "./tethered.ts";

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  /** Kills the server and resolves once it has exited. */
  stop(): Promise<void>;
}

const MISSING = "redis-server not found; install it with apt-get install redis-server";

/** Whether `redis-server` can be run here. */
export function redisAvailable(): boolean {
  const result = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  return result.error === undefined && result.status === 0;
}

/**
 * Decides whether the tests that need redis-server run. When it is missing: outside CI, says so
 * loudly on stderr and registers one skipped test; under `CI=true`, registers a failing test.
 */
export function redisTestsEnabled(): boolean {
  if (redisAvailable()) return true;
  if (process.env.CI === "true") {
    test("redis-server is installed (required when CI=true)", () => {
      throw new Error(`${MISSING} (CI=true requires the Upstash tests to run)`);
    });
  } else {
    console.error(`\n*** UPSTASH TESTS SKIPPED: ${MISSING} ***\n`);
    test.skip(`UPSTASH TESTS SKIPPED: ${MISSING}`, () => {});
  }
  return false;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("freePort(): no TCP address");
  return address.port;
}

/** Whether a Redis on `port` answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(String(data).startsWith("+PONG")));
  });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Starts `redis-server` on a free loopback port (or `port`), with no persistence, and resolves
 * once it answers PING.
 */
export async function startRedis(options: { port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawnTethered("redis-server", args);
  let output = "";
  const keep = (chunk: unknown) => (output = (output + String(chunk)).slice(-2000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  // The tether stops redis-server when the test process ends, however it ends.
  const stop = (): Promise<void> => stopTethered(child);

  // A deadline only: a busy machine may take seconds to start a process.
  const deadline = Date.now() + 30_000;
  while (!(await answersPing(port))) {
    const failed = exited(child) || Date.now() > deadline;
    if (failed || await Promise.race([spawnError, delay(20)]) !== undefined) {
      await stop();
      throw new Error(`startRedis(): redis-server did not answer PING on port "${port}", output "${output}"`);
    }
  }
  return { port, stop };
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}
