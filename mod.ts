/**
 * sluice: the client side of the Model Context Protocol, answering what MCP servers ask of the
 * client (sampling, elicitation, roots) safely and per server. This is the edge entry: Web
 * standards only, so it runs on Cloudflare Workers, Deno Deploy, Bun, Deno and Node.
 *
 * @example
 * ```ts
 * import { ClientError } from "@sluice/mcp";
 * const error = new ClientError("timeout", "Call to \"github\" timed out after 60 s");
 * console.log(error.kind); // timeout
 * ```
 *
 * @module
 */
export { ClientError, type ClientErrorDetails, type ClientErrorKind } from "./src/errors.ts";
