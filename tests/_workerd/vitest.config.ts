import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Runs every `*.test.ts` that is not tagged for a host runtime (`.host`, `.node`, `.deno`,
// `.bun`) inside workerd.
const config: ReturnType<typeof defineConfig> = defineConfig({
  root: here("../.."),
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: here("./wrangler.jsonc") },
      // The main Worker's bindings that are known only once global-setup.ts has started the peer.
      miniflare: {
        bindings: {
          SLUICE_STATE_KEY: "workerd-pool-state-key-0123456789abcdef",
          UPSTREAM_URL: inject("modernPeerUrl"),
        },
      },
    })),
  ],
  resolve: { alias: { "node:test": here("./node-test.ts") } },
  test: {
    globalSetup: [here("./global-setup.ts")],
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/**/*.{host,node,deno,bun}.test.ts", "**/node_modules/**"],
  },
});

export default config;
