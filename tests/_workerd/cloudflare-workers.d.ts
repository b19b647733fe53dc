// The part of workerd's `cloudflare:workers` module the workerd-only tests use (the repository
// does not install @cloudflare/workers-types).
declare module "cloudflare:workers" {
  /** The bindings of the pool's Worker (tests/_workerd/wrangler.jsonc and vitest.config.ts). */
  export const env: unknown;
}
