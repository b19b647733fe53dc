/**
 * `createClient` of the edge entry: the modern era (`2026-07-28`) over Streamable HTTP, on Web
 * standards only. The legacy era and stdio come from `@sluice/mcp/legacy`.
 *
 * @module
 */
import { createClientWith } from "./client-core.ts";
import type { Client, ClientOptions } from "./client-types.ts";

/**
 * Creates a client.
 *
 * @param options Name, handler, policies and the rest (see {@linkcode ClientOptions}).
 * @returns The client.
 * @throws {TypeError} When the options are not valid (not an object, an unknown option, no name, an option of
 *   the wrong shape), each named.
 * @throws {PolicyError} When a policy does not compile, or two name the same server, listing every problem.
 * @example
 * ```ts
 * import { createClient } from "./create-client.ts";
 * const client = createClient({
 *   name: "my-agent",
 *   handler: { elicitation: async () => ({ action: "decline" }) },
 *   policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }],
 * });
 * console.log(client.servers()); // ["github"]
 * await client.close();
 * ```
 */
export function createClient(options: ClientOptions): Client {
  return createClientWith(options, {});
}
