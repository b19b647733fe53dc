// The Upstash store on Cloudflare Workers: its bundle pulls in no node:* module, and it runs in
// workerd with no compatibility flags (no nodejs_compat), over the REST shim and redis-server.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Miniflare } from "miniflare";
import { bundle } from "../_support/bundle.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";

describe("@sluice/mcp/upstash on the edge", () => {
  test("src/upstash.ts bundles with @upstash/ratelimit and @upstash/redis/cloudflare and no node:* import", async () => {
    const { metafile } = await bundle("tests/limits/upstash-edge-worker.ts");
    const inputs = Object.keys(metafile.inputs);
    const imports = Object.values(metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    assert.deepEqual(imports.filter((path) => path.startsWith("node:")), []);
    // A symlinked node_modules (a git worktree's) shows up as ../<elsewhere>/node_modules/….
    assert.deepEqual(
      ["src/upstash.ts", "node_modules/@upstash/ratelimit/", "node_modules/@upstash/redis/"].map((part) =>
        inputs.some((input) => input.startsWith(part) || input.includes(`/${part}`))
      ),
      [true, true, true],
    );
  });

  if (redisTestsEnabled()) {
    describe("in workerd with no compatibility flags", () => {
      let redis: RedisServer;
      let shim: UpstashShim;

      before(async () => {
        redis = await startRedis();
        shim = await startUpstashShim({ redisPort: redis.port });
      });

      after(async () => {
        await shim.stop();
        await redis.stop();
      });

      test("createUpstashStore() allows the burst, refuses the next, and fails closed when unreachable", async () => {
        const { code } = await bundle("tests/limits/upstash-edge-worker.ts");
        const miniflare = new Miniflare({
          modules: true,
          script: code,
          compatibilityDate: "2026-04-20",
          compatibilityFlags: [],
          bindings: { UPSTASH_URL: shim.url, UPSTASH_TOKEN: shim.token },
        });
        try {
          const response = await miniflare.dispatchFetch("http://sluice.test/");
          assert.deepEqual(await response.json(), {
            results: [[true, 1, false], [true, 0, false], [false, 0, true]],
            failure: "StoreUnavailableError",
            nodeGlobals: [],
          });
        } finally {
          await miniflare.dispose();
        }
      });
    });
  }
});
