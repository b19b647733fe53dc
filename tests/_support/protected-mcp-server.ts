/**
 * An OAuth-protected MCP server for tests: `@modelcontextprotocol/server` (both eras on one
 * endpoint: 2026-07-28, and 2025-11-25 served statelessly) behind a bearer check written with
 * jose against a real authorization server's JWKS (`tests/_support/authorization-server.ts`).
 *
 * A request without a valid token is answered 401 with
 * `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`
 * (or another path, when asked for: then the challenge alone names it) and a `scope`, when asked
 * for; that URL serves the protected resource metadata (RFC 9728)
 * naming the endpoint as `resource` and the authorization server (and `scopes_supported`, when
 * asked for). A token is valid when its signature verifies against the
 * server's JWKS, its `iss` is the server's issuer, its `aud` is the endpoint, and it is not
 * revoked (see {@linkcode ProtectedMcpServer.revoke}); `tools/call` may need a scope (403
 * `insufficient_scope` without it). Tool: `whoami` answers the token's `sub`.
 *
 * @module
 */
import { readBody } from "./http-body.ts";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";

/** One request to `/mcp` and what the bearer check made of it. */
export interface CheckedRequest {
  /** `POST`, `GET` or `DELETE`. */
  readonly method: string;
  /** The JSON-RPC method of a POST, else `""`. */
  readonly rpc: string;
  /** The bearer token sent, or `""`. */
  readonly token: string;
  /** The verified claims, or `undefined` when the token was refused (401). */
  readonly claims: JWTPayload | undefined;
}

/** A running protected server. */
export interface ProtectedMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`: the tokens' audience. */
  readonly url: string;
  /** Every request to `/mcp` so far, oldest first. */
  requests(): readonly CheckedRequest[];
  /** Refuses `token` from now on (401 `invalid_token`), as after a revocation. */
  revoke(token: string): void;
  /** Stops listening; resolves once closed. */
  close(): Promise<void>;
}

/** Options of {@linkcode startProtectedMcpServer}. */
export interface ProtectedMcpServerOptions {
  /**
   * A scope `tools/call` needs: a valid token without it is answered 403
   * `Bearer error="insufficient_scope", scope="<it>"`.
   * @default none
   */
  readonly toolCallScope?: string;
  /** The `scope` of the 401's challenge (space-separated). @default none */
  readonly challengeScope?: string;
  /** The protected resource metadata's `scopes_supported`. @default none */
  readonly scopesSupported?: readonly string[];
  /**
   * The path the protected resource metadata is served at, named in the 401's `resource_metadata`:
   * another than the well-known one leaves the challenge the only way to find it.
   * @default "/.well-known/oauth-protected-resource/mcp"
   */
  readonly metadataPath?: string;
  /** JSON-RPC methods answered without a token (as a server may leave `server/discover` open). @default none */
  readonly openMethods?: readonly string[];
}

/**
 * The default of a sign-in's `scopes`, case by case, as both grants follow it: the policy's, else
 * the 401 challenge's, else every one of the resource metadata's `scopes_supported`, else none.
 * `asked` is the scopes the sign-in must ask for.
 */
export const SCOPE_DEFAULT_CASES: ReadonlyArray<{
  readonly name: string;
  readonly scopes: readonly string[] | undefined;
  readonly server: ProtectedMcpServerOptions;
  readonly asked: readonly string[];
}> = [
  {
    name: "the policy's scopes, not the challenge's",
    scopes: ["mcp:tools"],
    server: { challengeScope: "mcp:admin", scopesSupported: ["mcp:tools", "mcp:admin"] },
    asked: ["mcp:tools"],
  },
  {
    name: "without scopes in the policy, the challenge's",
    scopes: undefined,
    server: { challengeScope: "mcp:admin", scopesSupported: ["mcp:tools", "mcp:admin"] },
    asked: ["mcp:admin"],
  },
  {
    name: "without a scope in the challenge, every one of scopes_supported",
    scopes: undefined,
    server: { scopesSupported: ["mcp:tools", "mcp:admin"] },
    asked: ["mcp:tools", "mcp:admin"],
  },
  { name: "with neither, none", scopes: undefined, server: {}, asked: [] },
];

/**
 * Starts the server on 127.0.0.1, on a free port.
 *
 * @param authorization The authorization server's issuer and JWKS URL.
 * @param options The scope `tools/call` needs, the 401's scope, the metadata's `scopes_supported`.
 * @returns The running server.
 */
export async function startProtectedMcpServer(
  authorization: { readonly issuer: string; readonly jwksUri: string },
  options: ProtectedMcpServerOptions = {},
): Promise<ProtectedMcpServer> {
  const jwks = createRemoteJWKSet(new URL(authorization.jwksUri));
  const revoked = new Set<string>();
  const log: CheckedRequest[] = [];
  // Each request's verified `sub`, for the tool (requests are served one at a time per call).
  let currentSubject = "";
  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: "protected-peer", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    server.registerTool("whoami", { description: "The token's subject" }, () => ({
      content: [{ type: "text" as const, text: currentSubject }],
    }));
    return server;
  }, { legacy: "stateless" });

  const http = createServer();
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const metadataPath = options.metadataPath ?? "/.well-known/oauth-protected-resource/mcp";
  const metadataUrl = `${origin}${metadataPath}`;

  const verify = async (token: string): Promise<JWTPayload | undefined> => {
    if (token === "" || revoked.has(token)) return undefined;
    try {
      return (await jwtVerify(token, jwks, { issuer: authorization.issuer, audience: url })).payload;
    } catch {
      return undefined;
    }
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", origin).pathname;
    if (req.method === "GET" && path === metadataPath) {
      const metadata = { resource: url, authorization_servers: [authorization.issuer] };
      const scopes = options.scopesSupported === undefined
        ? {}
        : { scopes_supported: options.scopesSupported };
      return send(res, Response.json({ ...metadata, ...scopes }));
    }
    if (path !== "/mcp") return send(res, new Response("Not found", { status: 404 }));
    const body = await readBody(req);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const claims = await verify(token);
    const rpc = req.method === "POST" ? rpcMethod(body) : "";
    log.push({ method: req.method ?? "", rpc, token, claims });
    if (claims === undefined && !(options.openMethods ?? []).includes(rpc)) {
      const error = token === "" ? "" : `error="invalid_token", `;
      const scope = options.challengeScope === undefined ? "" : `, scope="${options.challengeScope}"`;
      return send(
        res,
        new Response(null, {
          status: 401,
          headers: { "www-authenticate": `Bearer ${error}resource_metadata="${metadataUrl}"${scope}` },
        }),
      );
    }
    const granted = String(claims?.scope ?? "").split(" ");
    if (
      rpc === "tools/call" && options.toolCallScope !== undefined && !granted.includes(options.toolCallScope)
    ) {
      const challenge =
        `Bearer error="insufficient_scope", scope="${options.toolCallScope}", resource_metadata="${metadataUrl}"`;
      return send(res, new Response(null, { status: 403, headers: { "www-authenticate": challenge } }));
    }
    currentSubject = String(claims?.sub ?? "");
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const init: RequestInit = { method: req.method ?? "GET", headers };
    if (body.byteLength > 0) init.body = body;
    await send(res, await mcp.fetch(new Request(url, init)));
  };
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });

  return {
    url,
    requests: () => [...log],
    revoke: (token) => void revoked.add(token),
    async close() {
      const done = once(http, "close");
      http.close();
      http.closeAllConnections();
      await done;
      await mcp.close();
    },
  };
}

function rpcMethod(body: Uint8Array): string {
  try {
    const method = (JSON.parse(new TextDecoder().decode(body)) as { method?: unknown }).method;
    return typeof method === "string" ? method : "";
  } catch {
    return "";
  }
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => headers[name] = value);
  res.writeHead(response.status, headers);
  if (response.body !== null) {
    for await (const chunk of response.body) res.write(chunk);
  }
  res.end();
}
