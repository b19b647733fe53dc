// serve() of this runtime's entry (@sluice/mcp/node, /deno or /bun) on an address the network
// reaches: it requires "allowedHosts" and "auth", and auth "none" starts with a warning on every
// start. Nothing here listens beyond loopback: the start with auth "none" on 0.0.0.0 is made to
// fail at the bind (its port is held on 127.0.0.1), after the checks and the warning; the shared
// serveGateway() then shows the start itself with a listen that binds nothing.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import process from "node:process";
import { buildGateway, type Gateway, type GatewayOptions } from "../../src/adapters/gateway.ts";
import { createClient } from "../../src/client/create-client.ts";
import {
  listenError,
  type RunningGateway,
  serveGateway,
  type ServeOptions,
} from "../../src/adapters/serve-options.ts";

const KEY = "serve-exposed-state-key-0123456789abcdef";
const POLICIES = [{
  server: "files",
  transport: { url: "https://mcp.example.com/mcp" },
  era: "modern" as const,
}];

/** This runtime's entry. */
async function entry(): Promise<{ serve: (options: ServeOptions) => Promise<RunningGateway> }> {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.deno !== undefined) return await import("../../src/adapters/deno.ts");
  if (versions.bun !== undefined) return await import("../../src/adapters/bun.ts");
  return await import("../../src/adapters/node.ts");
}

const NO_HOSTS = (hostname: string) =>
  `sluice serve(): listening on "${hostname}" answers the network: set "allowedHosts" (the command's --allowed-hosts) to the names clients reach it by, such as ["gate.example.com"] (other Host values are refused, against DNS rebinding)`;
/** Who reaches the gateway: port 0 is picked as it binds, after the words are said. */
const reached = (port: number) => port === 0 ? "its port (a free one, picked as it binds)" : `port "${port}"`;
const NO_AUTH = (hostname: string, port: number) =>
  `sluice serve(): listening on "${hostname}" needs "auth" (the command's --auth, SLUICE_BEARER_TOKENS or --public): bearer secrets ({ bearer: [{ secret, subject }] }), JWT settings ({ jwt: { issuer, jwks } }) or a function; or auth: "none" (the command's --public) to let anyone who reaches ${
    reached(port)
  } call every server with the credentials its policies hold`;
const WARNING = (hostname: string, port: number) =>
  `sluice serve(): WARNING: listening on "${hostname}" with auth: "none": anyone who reaches ${
    reached(port)
  } can call every server behind this gateway, with the credentials its policies hold`;

/** Runs `work` with console.warn recording its calls instead of printing. */
async function withWarnings<T>(work: () => Promise<T>): Promise<{ result: T; warnings: unknown[][] }> {
  const warnings: unknown[][] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args);
  try {
    return { result: await work(), warnings };
  } finally {
    console.warn = original;
  }
}

/** A TCP listener on 127.0.0.1 holding a free port. */
function holdPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

describe("serve() on an address the network reaches", () => {
  test('serve() on "0.0.0.0" and "::" without allowedHosts throws the exact TypeError', async () => {
    const { serve } = await entry();
    for (const hostname of ["0.0.0.0", "::", "192.0.2.10"]) {
      await assert.rejects(serve({ hostname, port: 0, stateKey: KEY, policies: POLICIES }), {
        name: "TypeError",
        message: NO_HOSTS(hostname),
      });
    }
  });

  test("serve() refuses a hostname that is no host name nor address before the network rules, and takes names with _ and zoned IPv6", async () => {
    const { serve } = await entry();
    for (const hostname of ["bad host!", "", "gate.example.com/", "[::1", ":"]) {
      await assert.rejects(serve({ hostname, port: 0, stateKey: KEY, policies: POLICIES }), {
        name: "TypeError",
        message: `sluice serve(): "hostname" must be a host name or an IP address to listen on, received ${
          JSON.stringify(hostname)
        }`,
      });
    }
    // Past the hostname check: the network rules come next.
    for (const hostname of ["my_service", "fe80::1%eth0", "[fe80::1%eth0]", "host.docker.internal"]) {
      await assert.rejects(serve({ hostname, port: 0, stateKey: KEY, policies: POLICIES }), {
        name: "TypeError",
        message: NO_HOSTS(hostname),
      });
    }
  });

  test('serve() on "0.0.0.0" with allowedHosts and no auth throws the exact TypeError naming the port', async () => {
    const { serve } = await entry();
    const { warnings } = await withWarnings(async () => {
      for (const port of [0, 8787]) {
        await assert.rejects(
          serve({
            hostname: "0.0.0.0",
            port,
            stateKey: KEY,
            policies: POLICIES,
            allowedHosts: ["gate.example.com"],
          }),
          { name: "TypeError", message: NO_AUTH("0.0.0.0", port) },
        );
      }
    });
    assert.deepEqual(warnings, []);
  });

  test('serve() on "0.0.0.0" with auth "none" passes the checks and warns with the exact text (then fails to bind a held port)', async () => {
    const { serve } = await entry();
    const held = await holdPort();
    const port = (held.address() as { port: number }).port;
    try {
      const { warnings } = await withWarnings(() =>
        assert.rejects(
          serve({
            hostname: "0.0.0.0",
            port,
            stateKey: KEY,
            policies: POLICIES,
            allowedHosts: ["gate.example.com"],
            auth: "none",
          }),
          (error: Error) => {
            assert.match(
              error.message,
              new RegExp(`^sluice serve\\(\\): cannot listen on "0\\.0\\.0\\.0" port "${port}": `),
            );
            return true;
          },
        )
      );
      assert.deepEqual(warnings, [[WARNING("0.0.0.0", port)]]);
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });

  test('serveGateway() on "0.0.0.0" with auth "none" starts, warning on every start', async () => {
    const built: GatewayOptions[] = [];
    const parts = {
      createGateway: (options: GatewayOptions): Gateway => {
        built.push(options);
        return {
          app: undefined as never,
          client: { close: () => Promise.resolve() } as never,
          fetch: () => new Response(null),
        };
      },
      environment: () => undefined,
      listen: (_gateway: Gateway, address: { port: number }) =>
        Promise.resolve({ port: address.port, stop: () => Promise.resolve() }),
    };
    const options = {
      hostname: "0.0.0.0",
      port: 8787,
      stateKey: KEY,
      policies: POLICIES,
      allowedHosts: ["gate.example.com"],
      auth: "none" as const,
    };
    const { result, warnings } = await withWarnings(async () => {
      const first = await serveGateway(options, parts);
      await first.close();
      const second = await serveGateway(options, parts);
      await second.close();
      return [first.url, second.url];
    });
    assert.deepEqual(result, ["http://0.0.0.0:8787", "http://0.0.0.0:8787"]);
    assert.deepEqual(warnings, [[WARNING("0.0.0.0", 8787)], [WARNING("0.0.0.0", 8787)]]);
    assert.deepEqual(built.map((o) => [o.auth, o.allowedHosts]), [["none", ["gate.example.com"]], [
      "none",
      ["gate.example.com"],
    ]]);
  });

  test("serveGateway() takes an optional option written as undefined as left out: 127.0.0.1, port 8787, loopback names only", async () => {
    const options: ServeOptions = {
      port: undefined,
      hostname: undefined,
      signal: undefined,
      policies: POLICIES,
      handler: undefined,
      name: undefined,
      stateKey: KEY,
      store: undefined,
      tokens: undefined,
      assigns: undefined,
      playground: undefined,
      auth: undefined,
      allowedHosts: undefined,
      allowedOrigins: undefined,
      publicUrl: undefined,
      decisions: undefined,
      heartbeat: undefined,
      signInUser: undefined,
    };
    const addresses: unknown[] = [];
    const running = await serveGateway(options, {
      createGateway: (gateway) => buildGateway(gateway, { createClient, environment: () => undefined }),
      environment: () => undefined,
      listen: (_gateway, address) => {
        addresses.push(address);
        return Promise.resolve({ port: address.port, stop: () => Promise.resolve() });
      },
    });
    const statuses = [];
    for (const base of [running.url, "http://gate.example.com"]) {
      const response = await running.fetch(new Request(`${base}/servers`));
      await response.body?.cancel();
      statuses.push(response.status);
    }
    await running.close();
    assert.deepEqual([running.url, addresses, statuses], [
      "http://127.0.0.1:8787",
      [{ port: 8787, hostname: "127.0.0.1" }],
      [200, 403],
    ]);
  });

  test("listenError() blames the host for a name that does not resolve or an address not this machine's, and the port otherwise", () => {
    const failure = (code: string) => Object.assign(new Error(code), { code });
    const address = { hostname: "gate.example", port: 8787 };
    assert.deepEqual(
      ["ENOTFOUND", "EADDRNOTAVAIL", "EINVAL", "EADDRINUSE", "EACCES"].map((code) =>
        listenError(address, failure(code)).message
      ),
      [
        'sluice serve(): cannot listen on "gate.example" port "8787": ENOTFOUND, expected a name or address of this machine',
        'sluice serve(): cannot listen on "gate.example" port "8787": EADDRNOTAVAIL, expected a name or address of this machine',
        'sluice serve(): cannot listen on "gate.example" port "8787": EINVAL, expected a name or address of this machine',
        'sluice serve(): cannot listen on "gate.example" port "8787": EADDRINUSE, expected a free port this process may bind',
        'sluice serve(): cannot listen on "gate.example" port "8787": EACCES, expected a free port this process may bind',
      ],
    );
  });

  test("serve() on loopback needs neither allowedHosts nor auth, and does not warn", async () => {
    const { serve } = await entry();
    const { result, warnings } = await withWarnings(async () => {
      const statuses: Array<[string, number]> = [];
      // IPv6 loopback as an address and as a URL writes it, alike on every runtime.
      for (const hostname of ["127.0.0.1", "localhost", "::1", "[::1]"]) {
        const gateway = await serve({
          hostname,
          port: 0,
          stateKey: KEY,
          policies: POLICIES,
          playground: false,
        });
        try {
          const response = await fetch(`${gateway.url}/healthz`);
          statuses.push([gateway.url.replace(/:\d+$/, ""), response.status]);
          await response.body?.cancel();
        } finally {
          await gateway.close();
        }
      }
      return statuses;
    });
    assert.deepEqual([result, warnings], [[
      ["http://127.0.0.1", 200],
      ["http://localhost", 200],
      ["http://[::1]", 200],
      ["http://[::1]", 200],
    ], []]);
  });
});
