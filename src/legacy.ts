/**
 * sluice for self-hosted deployments (Node, Deno, Bun): everything of the edge entry, and a
 * `createClient` that also speaks the legacy era (2025-11-25, 2025-06-18) over stdio and legacy
 * Streamable HTTP, so policies may say `era: "legacy"` or `"auto"` and `transport: { command }`.
 * `createFileTokenStore` keeps upstream sign-ins in a file readable by its owner only.
 *
 * @example
 * ```ts
 * import { createClient } from "@sluice/mcp/legacy";
 * const client = createClient({
 *   name: "my-agent",
 *   handler: { roots: () => ({ roots: [{ uri: "file:///srv/project" }] }) },
 *   policies: [{ server: "everything", transport: { command: "npx", args: ["--no-install", "mcp-server-everything"] } }],
 * });
 * console.log(client.servers()); // ["everything"]
 * await client.close();
 * ```
 *
 * @module
 */
export * from "../mod.ts";
export { createClient } from "./client/legacy/legacy-client.ts";
export {
  createFileTokenStore,
  defaultTokenFile,
  type FileTokenStoreOptions,
} from "./auth/file-token-store.ts";
