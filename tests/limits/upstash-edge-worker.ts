// A Worker that takes from the Upstash store over `@upstash/redis/cloudflare`; run by
// upstash-edge.node.test.ts in workerd with no compatibility flags, against the REST shim.
import { Redis } from "@upstash/redis/cloudflare";
import { createUpstashStore } from "../../src/upstash.ts";

interface Env {
  readonly UPSTASH_URL: string;
  readonly UPSTASH_TOKEN: string;
}

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    const redis = new Redis({ url: env.UPSTASH_URL, token: env.UPSTASH_TOKEN, retry: { retries: 0 } });
    const store = createUpstashStore({ redis, prefix: "edge" });
    const rule = { rate: 1, perMs: 60_000, burst: 2 };
    const results = [];
    for (let i = 0; i < 3; i++) {
      const result = await store.take("github", rule);
      results.push([result.allowed, result.remaining, result.retryAfterMs > 0]);
    }
    let failure = "";
    try {
      await createUpstashStore({
        redis: new Redis({ url: "http://127.0.0.1:9", token: "t", retry: { retries: 0 } }),
      })
        .take("github", rule);
    } catch (error) {
      failure = error instanceof Error ? error.name : String(error);
    }
    return Response.json({
      results,
      failure,
      nodeGlobals: ["Buffer", "process", "require"].filter((name) => name in globalThis),
    });
  },
};
