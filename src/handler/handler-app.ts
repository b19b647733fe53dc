/**
 * `handlerApp`: serves a handler over HTTP as a Hono app, at the contract {@linkcode remoteHandler} speaks,
 * so a handler deploys as its own Worker (or behind any server that runs a `fetch` handler).
 *
 * `POST /` (or the path the app is mounted at) takes JSON `{ kind, params, ctx }` and answers `200` with
 * JSON: the handler's answer, its `{ error: { code, message } }`, or `{ deferred: true }` for `ctx.defer()`.
 * `ctx.signal` fires when the request is aborted. Other statuses carry JSON `{ message }`: `400` a malformed
 * body (naming what was wrong), `401` missing or wrong credentials, `404` another path, `405` another method,
 * `413` a body over the limit, `415` a body that is not JSON, `500` a handler that threw (a fixed message:
 * the exception is never reflected).
 *
 * @module
 */
import { Hono } from "hono";
import { integerOption } from "../_internal/integer-option.ts";
import { describeValue, quote } from "../_internal/quote.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { defineHandler, type Handler } from "./handler.ts";
import { createBearerCheck } from "./_bearer-secret.ts";
import { decodeHandlerCall } from "./_handler-request.ts";
import { readRequestBytes } from "../transport/body-reader.ts";
import {
  contentTypeProblem,
  HANDLER_KINDS,
  isWireDeferral,
  parseJsonBody,
  WIRE_DEFERRAL,
} from "./_remote-wire.ts";
import { isDeferral } from "./deferral.ts";

/** Options of {@linkcode handlerApp}. */
export interface HandlerAppOptions {
  /**
   * Requires `Authorization: Bearer <sharedSecret>` on every request, compared in constant time
   * (`remoteHandler` sends it in `headers`). Without it anyone who reaches the app can ask the handler: leave
   * it out only where nothing else can (a Worker reached through a service binding alone).
   * @default undefined (no credentials required)
   */
  readonly sharedSecret?: string | undefined;
  /** The largest request body accepted, in bytes; a larger one is refused with `413`. @default 4194304 (4 MiB) */
  readonly maxRequestBytes?: number | undefined;
}

const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const JSON_HEADERS = Object.freeze({ "content-type": "application/json", "cache-control": "no-store" });

/**
 * Makes a Hono app that serves a handler at the `remoteHandler` contract.
 *
 * @param handler The handler: it must implement at least one of sampling, elicitation and roots.
 * @param options The shared secret and the request size limit.
 * @returns The app; mount it with `app.route(prefix, handlerApp(handler))` or serve it as is.
 * @throws {TypeError} When the handler is not valid or implements none of the kinds, the options
 *   hold a key that is not an option (a misspelt `sharedSecret` would leave the app open), or the
 *   shared secret is not a non-empty `token68` string.
 * @throws {RangeError} When `maxRequestBytes` is not a positive integer.
 * @example
 * ```ts
 * import { handlerApp } from "./handler-app.ts";
 * const app = handlerApp({ roots: () => ({ roots: [{ uri: "file:///srv/project" }] }) });
 * const response = await app.request("/", { method: "GET" });
 * console.log(response.status); // 405
 * ```
 */
export function handlerApp(handler: Handler, options: HandlerAppOptions = {}): Hono {
  defineHandler(handler);
  if (!HANDLER_KINDS.some((kind) => handler[kind] !== undefined)) {
    throw new TypeError(`handlerApp(): the handler must implement "sampling", "elicitation" or "roots"`);
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `handlerApp(): the options must be an object { sharedSecret?, maxRequestBytes? }, received ${
        describeValue(options)
      }`,
    );
  }
  checkOptionKeys(options, ["sharedSecret", "maxRequestBytes"], "handlerApp()");
  const maxBytes = integerOption('handlerApp(): "maxRequestBytes"', options.maxRequestBytes, {
    fallback: DEFAULT_MAX_REQUEST_BYTES,
    least: 1,
  });
  const authorize = options.sharedSecret === undefined ? undefined : createBearerCheck(options.sharedSecret);
  const app = new Hono();
  app.post("/", async (c) => {
    const request = c.req.raw;
    if (authorize !== undefined) {
      const verdict = await authorize(request.headers.get("authorization"));
      if (verdict !== "ok") {
        const why = verdict === "missing" ? "no Bearer credentials" : "the Bearer credentials do not match";
        return reply(401, `Authorization refused: ${why}`, { "www-authenticate": "Bearer" });
      }
    }
    const body = await readJsonRequest(request, maxBytes);
    if (body instanceof Response) return body;
    const call = decodeHandlerCall(body.value, handler);
    if (!call.ok) return reply(400, `Request body refused: ${call.message}`);
    let answer: unknown;
    try {
      answer = await call.value.run(request.signal);
    } catch {
      return reply(500, "The handler failed");
    }
    let text: string | undefined;
    try {
      // A look-alike of the deferral is an invalid answer, as it is to a local chain: `null`.
      text = isDeferral(answer) ? WIRE_DEFERRAL : isWireDeferral(answer) ? "null" : JSON.stringify(answer);
    } catch {
      return reply(500, "The handler's answer could not be encoded as JSON");
    }
    // `undefined` (and a function) has no JSON form: `null`, which the caller's checks refuse.
    return new Response(text ?? "null", { status: 200, headers: JSON_HEADERS });
  });
  app.all(
    "/",
    (c) => reply(405, `Method ${quote(c.req.method)} not allowed: expected "POST"`, { allow: "POST" }),
  );
  app.notFound((c) => reply(404, `Not found: ${quote(c.req.path)}; the handler is served at POST /`));
  app.onError(() => reply(500, "Internal error"));
  return app;
}

function reply(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ message }), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** The body as JSON, or the refusal: a body over the limit is refused as soon as it passes it. */
async function readJsonRequest(request: Request, maxBytes: number): Promise<{ value: unknown } | Response> {
  const typeProblem = contentTypeProblem(request.headers.get("content-type"));
  if (typeProblem !== undefined) return reply(415, `Request body refused: ${typeProblem}`);
  const bytes = await readRequestBytes(request, maxBytes);
  if (bytes === "over_limit") {
    return reply(413, `Request body refused: the body is larger than ${maxBytes} bytes`);
  }
  if (bytes === "incomplete") return reply(400, "Request body refused: the body was not received in full");
  const parsed = parseJsonBody(bytes);
  return parsed.ok ? parsed : reply(400, `Request body refused: the body ${parsed.problem}`);
}
