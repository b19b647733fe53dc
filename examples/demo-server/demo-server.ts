/**
 * The demo upstream that `npm start` runs: a modern-era (2026-07-28) MCP server built with the
 * official `@modelcontextprotocol/server` 2.4.0, whose tools ask the client for every kind of
 * input. It listens on loopback and needs no network, account or key.
 *
 * | tool              | asks the client for                                                   |
 * | ----------------- | --------------------------------------------------------------------- |
 * | `add`             | nothing (a baseline)                                                  |
 * | `book_trip`       | a form: text, email, date, integer, number, boolean, single and multi choice |
 * | `connect_account` | a URL to open (`link`: `"allowed"`, or `"plain_http"`/`"other_host"`, which the demo policy refuses) |
 * | `summarize`       | a model reply (sampling) with maxTokens 100000; the demo policy clamps it to 1024 |
 * | `list_workspace`  | its roots                                                             |
 * | `plan_party`      | two forms in two rounds, the second depending on the first answer     |
 * | `long_report`     | one form, during about 2 s of work; a task when the client declares the tasks extension |
 *
 * @example
 * ```ts
 * import { startDemoServer } from "./demo-server.ts";
 * const demo = await startDemoServer({ port: 0 });
 * console.log(demo.url); // http://127.0.0.1:<port>/mcp
 * await demo.close();
 * ```
 *
 * @module
 */
import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { createMcpHandler, createRequestStateCodec } from "@modelcontextprotocol/server";
import { createDemoTools, type DemoState } from "./_demo-tools.ts";
import { createReportTasks } from "./_report-task.ts";

/** The port `policies/demo.policy.ts` points at. */
export const DEMO_PORT = 3971;

/** Where the demo server listens. */
export interface DemoServerOptions {
  /** The TCP port; `0` picks a free one. @default 3971 */
  readonly port?: number;
  /** The interface to listen on. @default "127.0.0.1" */
  readonly hostname?: string;
}

/** A running demo server. */
export interface DemoServer {
  /** Its MCP endpoint, with the port actually bound: `http://127.0.0.1:3971/mcp`. */
  readonly url: string;
  /** Stops it: drops open connections and resolves once it has closed. */
  close(): Promise<void>;
}

/**
 * Starts the demo MCP server; resolves once it listens.
 *
 * @param options The port and hostname.
 * @returns Its URL, and `close()`.
 * @throws {Error} When the port cannot be bound, naming it (`cause` holds the system error, e.g.
 *   `code: "EADDRINUSE"`).
 * @example
 * ```ts
 * import { startDemoServer } from "./demo-server.ts";
 * const demo = await startDemoServer({ port: 0 });
 * const answer = await fetch(demo.url.replace("/mcp", "/nothing-here"));
 * console.log(answer.status); // 404
 * await demo.close();
 * ```
 */
export function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const port = options.port ?? DEMO_PORT;
  const hostname = options.hostname ?? "127.0.0.1";
  // One random key per process: a paused call can only be resumed by the process that paused it.
  const codec = createRequestStateCodec<DemoState>({
    key: crypto.getRandomValues(new Uint8Array(32)),
    ttlSeconds: 600,
    bind: (ctx) => ctx.mcpReq.method,
  });
  const mcp = createMcpHandler(() => createDemoTools(codec), {
    legacy: "reject",
    onerror: (error) => console.error(`demo server: ${error.message}`),
  });
  const tasks = createReportTasks();

  async function fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp") {
      return new Response("Not found: the demo's MCP endpoint is POST /mcp\n", { status: 404 });
    }
    if (request.method !== "POST") return await mcp.fetch(request);
    const body = await readJson(request.clone());
    const reply = body === undefined ? undefined : tasks.handle(body.value, request.headers);
    if (reply !== undefined) return Response.json(reply.body, { status: reply.status });
    return await mcp.fetch(request, body === undefined ? {} : { parsedBody: body.value });
  }

  // overrideGlobalObjects: false keeps the process's own Request and Response in place.
  const server = createAdaptorServer({ fetch, overrideGlobalObjects: false }) as Server;
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const reason = error.code ?? error.message;
      reject(
        new Error(`demo server: cannot listen on "${hostname}" port "${port}": ${reason}`, { cause: error }),
      );
    });
    server.listen(port, hostname, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : port;
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${host}:${bound}/mcp`,
        close: () =>
          closing ??= mcp.close().then(() =>
            new Promise<void>((done, fail) => {
              server.close((error) => error === undefined ? done() : fail(error));
              server.closeAllConnections();
            })
          ),
      });
    });
  });
}

/** Reads a request body as JSON; `undefined` when it is not JSON (the MCP handler answers that). */
async function readJson(request: Request): Promise<{ value: unknown } | undefined> {
  try {
    return { value: JSON.parse(await request.text()) };
  } catch {
    return undefined;
  }
}
