// A Worker under `workerd serve`, the runtime Cloudflare runs, with nothing in between (Miniflare
// puts a Worker of its own in front). Used by the tests that must see what workerd itself does,
// and by the Worker bench's cold starts.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { eventually } from "./eventually.ts";
import { REPO_ROOT } from "./modern-peer.ts";
import { spawnTethered, stopTethered } from "./tethered.ts";
import { freePort } from "./redis-server.ts";

/** The workerd binary the `workerd` package installed. */
export const WORKERD: string = join(
  REPO_ROOT,
  "node_modules",
  "@cloudflare",
  "workerd-linux-64",
  "bin",
  "workerd",
);

/** The example Worker's compatibility date, read from its examples/worker/wrangler.jsonc. */
export const EXAMPLE_COMPATIBILITY_DATE: string = exampleCompatibilityDate();

function exampleCompatibilityDate(): string {
  const config = readFileSync(join(REPO_ROOT, "examples", "worker", "wrangler.jsonc"), "utf8");
  const date = /"compatibility_date"\s*:\s*"(\d{4}-\d{2}-\d{2})"/.exec(config)?.[1];
  if (date === undefined) throw new Error("no compatibility_date in examples/worker/wrangler.jsonc");
  return date;
}

/** A Durable Object class the module exports, bound in its `env` (its storage in memory). */
export interface DurableObjectBinding {
  /** The binding's name in `env`. */
  readonly binding: string;
  /** The exported class. */
  readonly className: string;
}

/**
 * A workerd config serving one ES module on a loopback port, with text bindings, its fetches
 * allowed to loopback.
 *
 * @param module The module's path, relative to the config file (workerd embeds it).
 * @param port The port.
 * @param bindings The Worker's text bindings (its `env`).
 * @param options The Worker's compatibility date (the example's by default), and a Durable
 *   Object namespace of the module's to bind in `env`.
 * @returns The config, in workerd's capnp text.
 */
export function workerdConfig(
  module: string,
  port: number,
  bindings: Readonly<Record<string, string>>,
  options: {
    readonly compatibilityDate?: string;
    readonly durableObject?: DurableObjectBinding | undefined;
  } = {},
): string {
  const { compatibilityDate = EXAMPLE_COMPATIBILITY_DATE, durableObject } = options;
  const texts = Object.entries(bindings).map(([name, text]) =>
    `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`
  );
  const objects = durableObject === undefined ? "" : `
  durableObjectNamespaces = [ (className = "${durableObject.className}", uniqueKey = "${durableObject.className}") ],
  durableObjectStorage = (inMemory = void),`;
  if (durableObject !== undefined) {
    texts.push(`(name = "${durableObject.binding}", durableObjectNamespace = "${durableObject.className}")`);
  }
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed ${JSON.stringify(module)}) ],
  compatibilityDate = "${compatibilityDate}",
  bindings = [ ${texts.join(", ")} ],${objects}
);
`;
}

/** A Worker that `workerd serve` serves. */
export interface ServedWorker {
  /** Its origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** What workerd printed so far (with `--verbose`, the Worker's `console.log` lines too). */
  readonly output: () => string;
  /** Stops workerd. */
  readonly stop: () => Promise<void>;
}

/**
 * Serves a bundled Worker module with `workerd serve --verbose` and waits until its
 * `GET /healthz` answers `200`.
 *
 * @param module The module's absolute path; the config is written beside it.
 * @param bindings The Worker's text bindings.
 * @param durableObject A Durable Object namespace of the module's, bound in `env`.
 * @returns The served Worker.
 * @throws {Error} When `/healthz` answers anything but `200`, or nothing within 30 s (workerd's
 *   output included).
 */
export async function serveWorker(
  module: string,
  bindings: Readonly<Record<string, string>>,
  durableObject?: DurableObjectBinding,
): Promise<ServedWorker> {
  const port = await freePort();
  const configPath = join(dirname(module), `${basename(module)}.capnp`);
  await writeFile(configPath, workerdConfig(basename(module), port, bindings, { durableObject }));
  let output = "";
  // Tethered: a test process killed by a signal leaves no workerd running.
  const workerd: ChildProcess = spawnTethered(WORKERD, ["serve", configPath, "--verbose"]);
  for (const stream of [workerd.stdout, workerd.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => (output += chunk));
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually("workerd answering /healthz", async () => {
      if (workerd.exitCode !== null) throw new Error(`workerd exited ${workerd.exitCode}: ${output}`);
      const health = await fetch(`${url}/healthz`).catch(() => undefined);
      if (health === undefined) return undefined; // not listening yet
      const body = await health.text();
      // Any other answer is the Worker's own (a missing secret answers 500): no use waiting.
      if (health.status !== 200) throw new Error(`GET /healthz answered ${health.status}: ${body}`);
      return true;
    });
  } catch (failure) {
    await stopTethered(workerd);
    throw new Error(`serveWorker(): ${String(failure)}\n${output}`);
  }
  return { url, output: () => output, stop: () => stopTethered(workerd) };
}
