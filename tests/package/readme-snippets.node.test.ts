// The package as a user gets it: `npm pack`, installed from the tarball into an empty project; there
// the README's runnable snippets run on Node, Deno and Bun, and a Worker written as the README's
// Workers section shows is bundled with wrangler and served by workerd. A snippet is runnable when
// the line before its code block is `<!-- tested: node,deno,bun ... -->`; the first ```text block
// after it is its whole expected output.
//
// The pack runs in a staged copy of the packed files (node_modules linked), not in the repository:
// prepack builds dist/ beside package.json, and a dist/ in the clone would make bin/sluice.mjs run
// that build instead of the source; and prepack rewrites package.json for the time of the pack.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { build } from "esbuild";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildWorker } from "../../scripts/build-worker.ts";
import { within } from "../_support/eventually.ts";
import { answerOf, modernMeta, modernRequest } from "../_support/gateway-caller.ts";
import { REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";
import { MODERN_PEER_META } from "../peers/_hosts.ts";
import { EXAMPLE_COMPATIBILITY_DATE, type ServedWorker, serveWorker } from "../_support/workerd.ts";

type Runtime = "node" | "deno" | "bun";

interface Snippet {
  readonly runtimes: readonly Runtime[];
  readonly code: string;
  readonly output: string;
}

/** The packed files besides package.json, and what prepack needs to build and strip. */
const STAGED = [
  "package.json",
  "tsconfig.json",
  "tsconfig.lib.json",
  "tsconfig.build.json",
  "mod.ts",
  "src",
  "bin",
  "README.md",
  "LICENSE",
  "scripts/pack-manifest.ts",
];

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, unknown>;
  devDependencies: Record<string, string>;
};

/** How each runtime runs a snippet saved as `main.mjs`, as the README says. */
const COMMANDS: Readonly<Record<Runtime, readonly string[]>> = {
  node: [process.execPath, "main.mjs"],
  deno: [
    join(REPO_ROOT, "node_modules", ".bin", "deno"),
    "run",
    "--allow-run=npx",
    "--allow-env",
    "--allow-read",
    "main.mjs",
  ],
  bun: [join(REPO_ROOT, "node_modules", ".bin", "bun"), "main.mjs"],
};

/** The README's runnable snippets, each with its runtimes and expected output. */
function readmeSnippets(readme: string): Snippet[] {
  const marked = /^<!-- tested: ([a-z,]+)\b[^\n]*-->\n\n```(?:js|ts)\n([\s\S]*?)\n```\n/gm;
  return [...readme.matchAll(marked)].map((match) => {
    const after = readme.slice((match.index ?? 0) + match[0].length);
    const output = /^```text\n([\s\S]*?)\n```$/m.exec(after)?.[1];
    assert.notEqual(output, undefined, `the snippet at ${match.index} has no \`\`\`text block after it`);
    return {
      runtimes: (match[1] ?? "").split(",") as Runtime[],
      code: `${match[2] ?? ""}\n`,
      output: `${output}\n`,
    };
  });
}

function run(
  command: readonly string[],
  cwd: string,
  timeout = 60_000,
  env: Record<string, string> = {},
): SpawnSyncReturns<string> {
  const [file = "", ...args] = command;
  return spawnSync(file, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false", ...env },
  });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  assert.equal(result.status, 0, `${what}: ${result.error ?? ""}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The modern peer's answer to `echo` with `{ message: "hello" }`, as the Worker relays it. */
const ECHOED = {
  jsonrpc: "2.0",
  id: 1,
  result: {
    content: [{ type: "text", text: '{"message":"hello"}' }],
    resultType: "complete",
    _meta: MODERN_PEER_META,
  },
};

/** What a user's Worker looks like, as the README's Workers section writes it. */
const WORKER = `import { createWorker } from "@sluice/mcp/workers";
const worker = createWorker({
  policies: (env) => [{ server: "upstream", transport: { url: env.UPSTREAM_URL }, era: "modern" }],
  auth: (env) => ({ bearer: [{ secret: env.GATEWAY_TOKEN, subject: "agents" }] }),
});
export default worker;
export const SluiceSessions = worker.Sessions;
`;
const WORKER_CONFIG = {
  name: "readme-worker",
  main: "worker.mjs",
  compatibility_date: EXAMPLE_COMPATIBILITY_DATE,
};
const GATEWAY_TOKEN = "package-test-gateway-token-0123456789abcdef";

describe("the packed package, installed from its tarball into an empty project", { timeout: 300_000 }, () => {
  let work: string;
  let project: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "sluice-readme-"));
    const staged = join(work, "sluice");
    for (const path of STAGED) cpSync(join(REPO_ROOT, path), join(staged, path), { recursive: true });
    symlinkSync(join(REPO_ROOT, "node_modules"), join(staged, "node_modules"), "dir");
    const packs = join(work, "packs");
    mkdirSync(packs);
    ok(run(["npm", "pack", "--pack-destination", packs, "--silent"], staged, 120_000), "npm pack");
    const tarball = join(packs, `sluice-mcp-${manifest.version}.tgz`);
    // postpack put the repository's package.json back, byte for byte.
    assert.equal(
      readFileSync(join(staged, "package.json"), "utf8"),
      readFileSync(join(REPO_ROOT, "package.json"), "utf8"),
    );
    assert.equal(existsSync(join(staged, "package.json.packing")), false);

    project = join(work, "project");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "readme-snippets", private: true })}\n`,
    );
    const everything = `@modelcontextprotocol/server-everything@${
      manifest.devDependencies["@modelcontextprotocol/server-everything"]
    }`;
    ok(
      run(
        ["npm", "install", tarball, everything, "--no-audit", "--no-fund", "--prefer-offline"],
        project,
        150_000,
      ),
      "npm install",
    );
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("it brings its dependencies and no dev-only tool", () => {
    const installed = JSON.parse(
      readFileSync(join(project, "node_modules", "@sluice", "mcp", "package.json"), "utf8"),
    ) as Record<string, unknown>;
    assert.deepEqual([installed["scripts"], Object.keys(installed["dependencies"] as object)], [undefined, [
      "@hono/node-server",
      "@upstash/ratelimit",
      "@upstash/redis",
      "eventsource-parser",
      "hono",
      "jose",
      "oauth4webapi",
      "tldts",
      "undici",
      "valibot",
    ]]);
    // Dev-only tools stay out of a user's install (tsx is an optional peer of the `sluice` command).
    const modules = readdirSync(join(project, "node_modules"));
    assert.deepEqual(
      modules.filter((name) => ["tsx", "esbuild", "@esbuild", "typescript"].includes(name)),
      [],
    );
  });

  test("every entry it exports resolves each of its imports in the user's install", async () => {
    // As a bundler sees it: a static import of a package the install lacks (an optional peer)
    // fails the user's build, whatever the entry's runtime.
    const entries = Object.keys(manifest.exports).map((path) => `@sluice/mcp${path.slice(1)}`);
    const unresolved: Record<string, string[]> = {};
    for (const entry of entries) {
      const result = await build({
        stdin: { contents: `export * from "${entry}";`, resolveDir: project },
        bundle: true,
        write: false,
        format: "esm",
        platform: "node",
        conditions: ["workerd", "worker"],
        logLevel: "silent",
      }).catch((failure: { errors?: { text: string }[] }) => failure);
      const errors = "errors" in result ? result.errors ?? [] : [];
      unresolved[entry] = errors.map((error) => error.text);
    }
    assert.deepEqual(unresolved, Object.fromEntries(entries.map((entry) => [entry, []])));
  });

  test("its sluice command on Node, tsx not installed, names tsx for a .ts policy and checks a .policy.json one", () => {
    const folder = join(project, "checks");
    mkdirSync(folder);
    const transport = { url: "https://mcp.example.com/mcp" };
    writeFileSync(join(folder, "docs.policy.json"), JSON.stringify({ server: "docs", transport }));
    writeFileSync(
      join(folder, "files.policy.ts"),
      `export default ${JSON.stringify({ server: "files", transport })};\n`,
    );
    assert.equal(existsSync(join(project, "node_modules", "tsx")), false);
    const result = run(
      [process.execPath, join(project, "node_modules", ".bin", "sluice"), "check", "checks"],
      project,
    );
    assert.deepEqual([result.status, result.stdout, result.stderr], [
      1,
      `checks/files.policy.ts: Policy: Node loads .ts and .js files with tsx, an optional peer dependency, and it is not installed: expected it in the project ("npm install tsx"), or the policy in a .policy.json file\n\n1 of 2 policy files in "checks" have problems (1 in all)\n`,
      "",
    ]);
  });

  test("its sluice command on Node, tsx not installed, loads an .mjs handler as Node does", () => {
    const folder = join(project, "served");
    mkdirSync(folder);
    writeFileSync(
      join(folder, "docs.policy.json"),
      JSON.stringify({ server: "docs", transport: { url: "https://mcp.example.com/mcp" } }),
    );
    writeFileSync(join(project, "handler.mjs"), "export default { roots: () => ({ roots: [] }) };\n");
    // A state key too short to serve with: the command stops at it, once the handler has loaded.
    const result = run(
      [
        process.execPath,
        join(project, "node_modules", ".bin", "sluice"),
        "serve",
        "--policies",
        "served",
        "--handler",
        "./handler.mjs",
      ],
      project,
      60_000,
      { SLUICE_STATE_KEY: "short" },
    );
    assert.deepEqual([result.status, result.stdout, result.stderr.split("\n")[0]], [
      2,
      "",
      'sluice serve: "SLUICE_STATE_KEY" must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`',
    ]);
  });

  test("the README's tested snippets print what it says on Node, Deno and Bun", () => {
    const snippets = readmeSnippets(readFileSync(join(REPO_ROOT, "README.md"), "utf8"));
    assert.equal(snippets.length, 1, "the README marks one snippet as tested");
    for (const [index, snippet] of snippets.entries()) {
      writeFileSync(join(project, "main.mjs"), snippet.code);
      for (const runtime of snippet.runtimes) {
        const result = run(COMMANDS[runtime], project);
        assert.deepEqual(
          [index, runtime, result.status, result.stdout],
          [index, runtime, 0, snippet.output],
          result.stderr,
        );
      }
    }
  });

  test("a Worker importing @sluice/mcp/workers bundles with wrangler and, under workerd, relays a modern caller's and a 2025 host's tool call", async () => {
    writeFileSync(join(project, "worker.mjs"), WORKER);
    writeFileSync(join(project, "wrangler.jsonc"), `${JSON.stringify(WORKER_CONFIG)}\n`);
    const built = await within("buildWorker()", buildWorker(project, join(work, "worker")), 90_000);
    const peer = await startModernPeer();
    let worker: ServedWorker | undefined;
    let host: Client | undefined;
    try {
      worker = await serveWorker(built.path, {
        SLUICE_STATE_KEY: "package-test-state-key-0123456789abcdef",
        GATEWAY_TOKEN,
        UPSTREAM_URL: peer.url,
      }, { binding: "SLUICE_SESSIONS", className: "SluiceSessions" });
      const endpoint = `${worker.url}/mcp/upstream`;
      const authorization = `Bearer ${GATEWAY_TOKEN}`;
      const call = modernRequest(
        endpoint,
        "tools/call",
        { name: "echo", arguments: { message: "hello" }, _meta: modernMeta() },
        { authorization },
      );
      assert.deepEqual(await answerOf(await fetch(call)), { status: 200, headers: {}, body: ECHOED });
      // A 2025-11-25 host: its session lives in the Worker's Durable Object.
      host = new Client({ name: "package-test-host", version: "1.0.0" });
      await host.connect(
        new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization } } }),
      );
      // The same result, without the modern era's resultType.
      const { resultType: _modern, ...legacy } = ECHOED.result;
      assert.deepEqual(await host.callTool({ name: "echo", arguments: { message: "hello" } }), legacy);
    } finally {
      await host?.close();
      await worker?.stop();
      await peer.stop();
    }
  });
});
