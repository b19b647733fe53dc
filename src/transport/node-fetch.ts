/// <reference types="node" />
/**
 * A {@linkcode Fetcher} for Node.js over `undici.request` (self-hosted only): the legacy client's
 * default fetch on Node, and for the edge entry's `createClient` on Node as `fetch: createNodeFetch()`.
 *
 * On Node 20 the global `fetch` costs far more CPU per small POST than `undici.request`
 * (bench/RESULTS.md); this file only converts to and from fetch's shapes. It does what sluice's
 * transports need, not all of fetch: redirects are never followed (a 3xx comes back as with
 * `redirect: "manual"`), bodies are not decompressed (no `Accept-Encoding` is sent), and the
 * `Response` has no `url`.
 *
 * @module
 */
import { Agent, buildConnector, type Dispatcher } from "undici";
import { BufferedResponse, type ChunkSource, StreamedResponse } from "./_held-responses.ts";
import type { Fetcher } from "./fetch-with-redirects.ts";
import { integerOption } from "../_internal/integer-option.ts";
import { memoByString } from "../_internal/string-memo.ts";

/** Options of {@linkcode createNodeFetch}. */
export interface NodeFetchOptions {
  /**
   * How long an idle socket stays in the pool, in milliseconds (a server's `Keep-Alive: timeout`
   * may shorten it). Idle sockets never keep the process alive.
   * @default 4000
   */
  readonly keepAliveTimeoutMs?: number | undefined;
  /** How many sockets at most one origin gets; more requests wait for one. @default unlimited */
  readonly connectionsPerOrigin?: number | undefined;
}

/** A fetch over a keep-alive pool: call it as `fetch(url, init)`; `close()` closes the pool. */
export interface NodeFetch extends Fetcher {
  /**
   * Closes the pool: requests in flight are aborted (promises reject, bodies error) and later
   * calls reject. Calling it again does nothing more.
   */
  close(): Promise<void>;
}

/** A non-event-stream body up to this size is read before the `Response` is returned. */
const BUFFERED_LIMIT = 64 * 1024;
const NULL_BODY_STATUSES: readonly number[] = [204, 205, 304];
const NOT_LATIN1 = /[\u0100-\uffff]/;

/**
 * Creates a fetch for Node.js over `undici.request` with its own keep-alive pool. An idempotent
 * request (RFC 9110 §9.2.2) cut off before any answer by the server closing a kept-alive connection
 * is sent once more on a new connection; a POST so cut off, or any request whose new connection
 * closes before answering, fails. There is no timeout: bound each request with its signal.
 *
 * @param options Pool settings.
 * @returns The fetch, with `close()`.
 * @throws {RangeError} When an option is not a positive integer.
 * @example
 * ```ts
 * import { createNodeFetch } from "./node-fetch.ts";
 * const fetch = createNodeFetch();
 * const failed = await fetch("http://127.0.0.1:9/mcp", { method: "POST", body: "{}" }).catch((e) => e);
 * console.log(failed instanceof TypeError); // true (nothing listens on port 9)
 * await fetch.close();
 * ```
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const keepAliveTimeout = integerOption(`${CALLER}: "keepAliveTimeoutMs"`, options.keepAliveTimeoutMs, {
    fallback: 4000,
    least: 1,
  });
  const { connectionsPerOrigin } = options;
  const connections = connectionsPerOrigin === undefined
    ? null
    : integerOption(`${CALLER}: "connectionsPerOrigin"`, connectionsPerOrigin, { fallback: 0, least: 1 });
  // No headers or body timeout: sluice bounds each request with its signal, and a standalone GET
  // stream may rightly stay quiet long. A silently gone peer is found by TCP keep-alive.
  const dispatcher = new Agent({
    keepAliveTimeout,
    connections,
    connect: markingReuse(),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const targetOf = memoByString(parseTarget, MAX_TARGETS);
  let closing: Promise<void> | undefined;
  const nodeFetch = (url: string, init: RequestInit): Promise<Response> =>
    send(dispatcher, targetOf, url, init);
  return Object.freeze(Object.assign(nodeFetch, {
    close: (): Promise<void> => closing ??= dispatcher.destroy(),
  }));
}

/** Where a URL's requests go, for the pool: its origin, and its path with the query. */
interface Target {
  readonly origin: string;
  readonly path: string;
}

/** The most URLs a fetch remembers the parse of (a client fetches a few endpoints, again and again). */
const MAX_TARGETS = 64;

/** The URL's target, memoized so the URL is not parsed on every request. */
function parseTarget(url: string): Target {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

async function send(
  dispatcher: Dispatcher,
  targetOf: (url: string) => Target,
  url: string,
  init: RequestInit,
): Promise<Response> {
  // Any method string goes through (undici's type lists the common ones only).
  const method = (init.method ?? "GET") as Dispatcher.HttpMethod;
  const signal = init.signal ?? null;
  const headers = outgoingHeaders(init.headers);
  const body = outgoingBody(init.body);
  let data: Dispatcher.ResponseData;
  try {
    const { origin, path } = targetOf(url);
    const request = { origin, path, method, headers, body, signal };
    data = await dispatcher.request(request).catch((error: unknown) => {
      if (signal?.aborted || !IDEMPOTENT.has(method) || !closedWhenReused(error)) throw error;
      return dispatcher.request(request);
    });
  } catch (error) {
    throw failure(error, signal);
  }
  // A cancelled body errors; without a listener that error would be uncaught.
  data.body.on("error", () => {});
  try {
    return await toResponse(data, method);
  } catch (error) {
    data.body.destroy();
    throw failure(error, signal);
  }
}

/** The methods that may be sent again after a failure (RFC 9110 §9.2.2). */
const IDEMPOTENT: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/**
 * Whether a request failed because the server closed a kept-alive connection that had already
 * answered (its idle timeout racing the request: FIN gives "other side closed", RST `ECONNRESET` or
 * `EPIPE`). A new connection that closes is not retried: its server failed this very request.
 * Only idempotent methods are retried, as a server that acted on the request and then lost the
 * connection fails the same way: a POST sent twice runs a tool or spends a rotated refresh token twice.
 */
function closedWhenReused(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, socket } = error as { code?: unknown; socket?: { bytesRead?: unknown } | null };
  if (code === "UND_ERR_SOCKET") return typeof socket?.bytesRead === "number" && socket.bytesRead > 0;
  return (code === "ECONNRESET" || code === "EPIPE") &&
    (error as { [READ_BEFORE]?: boolean })[READ_BEFORE] === true;
}

/** Set on a socket's error: whether the socket had read anything before it (see `markingReuse`). */
const READ_BEFORE = Symbol("readBefore");

/**
 * undici's connector, marking each socket's error with {@linkcode READ_BEFORE}: a reset's error
 * carries no socket, and {@linkcode closedWhenReused} needs to know if the connection had answered.
 */
function markingReuse(): buildConnector.connector {
  const connect = buildConnector({ timeout: 10_000 });
  return (options, callback) =>
    connect(options, (...connected) => {
      const socket = connected[1];
      socket?.on("error", (error: unknown) => {
        if (typeof error === "object" && error !== null) {
          Reflect.set(error, READ_BEFORE, socket.bytesRead > 0);
        }
      });
      callback(...connected);
    });
}

/** Rejects like fetch: the signal's reason after an abort, else `TypeError("fetch failed")`. */
function failure(error: unknown, signal: AbortSignal | null): unknown {
  if (signal?.aborted) return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
  return new TypeError("fetch failed", { cause: error });
}

function outgoingHeaders(headers: RequestInit["headers"]): Record<string, string> | string[] | null {
  if (headers === undefined) return null;
  if (headers instanceof Headers) return [...headers].flat();
  if (Array.isArray(headers)) {
    return headers.flatMap((pair: unknown) => {
      if (Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string")) {
        return pair as string[];
      }
      throw new TypeError(
        `createNodeFetch(): each of "init.headers" must be a [name, value] pair of strings, received ${
          JSON.stringify(pair)?.slice(0, 64)
        }`,
      );
    });
  }
  if (typeof headers === "object" && headers !== null) return headers as Record<string, string>;
  throw new TypeError(
    `createNodeFetch(): "init.headers" must be a plain object, a Headers or an array of pairs, received ${
      typeName(headers)
    }`,
  );
}

function outgoingBody(body: RequestInit["body"]): string | Uint8Array | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  throw new TypeError(
    `createNodeFetch(): "init.body" must be a string, a Uint8Array or undefined, received ${typeName(body)}`,
  );
}

function typeName(value: unknown): string {
  if (typeof value !== "object" || value === null) return `"${value === null ? "null" : typeof value}"`;
  return `"${(value as { constructor?: { name?: unknown } }).constructor?.name ?? "object"}"`;
}

async function toResponse(data: Dispatcher.ResponseData, method: string): Promise<Response> {
  const { statusCode: status, body } = data;
  const headers = incomingHeaders(data.headers);
  if (method === "HEAD" || NULL_BODY_STATUSES.includes(status)) {
    body.resume();
    return new Response(null, { status, headers });
  }
  if (isEventStream(data.headers["content-type"])) {
    return new StreamedResponse(nodeChunks([], body), status, headers);
  }
  const start = await readStart(body);
  if (start.ended) return new BufferedResponse(concatChunks(start.chunks, start.size), status, headers);
  return new StreamedResponse(nodeChunks(start.chunks, body), status, headers);
}

/** undici's response body: a Node stream. */
type Body = Dispatcher.ResponseData["body"];

/** The first bytes of a body: all of it (`ended`), or the first chunks past `BUFFERED_LIMIT`. */
interface BodyStart {
  readonly chunks: readonly Buffer[];
  readonly size: number;
  readonly ended: boolean;
}

/**
 * Reads a body until it ends or holds more than `BUFFERED_LIMIT` bytes, then pauses it. Events,
 * not the async iterator, which sets up a stream pipeline per body.
 */
function readStart(body: Body): Promise<BodyStart> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      body.off("data", onData).off("end", onEnd).off("error", onError);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= BUFFERED_LIMIT) return;
      stop();
      body.pause();
      resolve({ chunks, size, ended: false });
    };
    const onEnd = (): void => {
      stop();
      resolve({ chunks, size, ended: true });
    };
    const onError = (error: unknown): void => {
      stop();
      reject(error);
    };
    body.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

/** The response's headers as pairs, each value of a repeated header its own pair. */
function incomingHeaders(headers: Dispatcher.ResponseData["headers"]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    for (const one of typeof value === "string" ? [value] : value) {
      // undici decodes header bytes as UTF-8; a Headers value is a byte string, as fetch gives it.
      pairs.push([name, NOT_LATIN1.test(one) ? Buffer.from(one, "utf8").toString("latin1") : one]);
    }
  }
  return pairs;
}

function isEventStream(contentType: string | string[] | undefined): boolean {
  const value = typeof contentType === "string" ? contentType : contentType?.[0];
  return value?.split(";", 1)[0]?.trim().toLowerCase() === "text/event-stream";
}

/**
 * The body's chunks in one new array, even when there is one chunk: `BufferedResponse` hands out
 * the bytes' whole `ArrayBuffer`, and undici's chunks can be views of a larger one.
 */
function concatChunks(chunks: readonly Buffer[], size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * The chunks of undici's body: `first`, then each as it arrives (`read()`, not the iterator).
 * Cancelling before the end destroys the body, which closes the connection.
 */
function nodeChunks(first: readonly Buffer[], body: Body): ChunkSource {
  const early = [...first];
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  body.on("readable", notify).on("end", notify).on("error", notify).on("close", notify);
  return {
    async next(): Promise<Uint8Array | undefined> {
      for (;;) {
        const chunk = early.shift() ?? (body.read() as Buffer | null);
        if (chunk !== null) return chunk;
        if (body.errored) throw body.errored;
        if (body.readableEnded || body.destroyed) return undefined;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    cancel(): void {
      if (!body.readableEnded) body.destroy(CANCELLED);
    },
  };
}

/** What a cancelled body is destroyed with, so undici does not build an error on every cancel. */
const CANCELLED = new DOMException("The response body was cancelled", "AbortError");

const CALLER = "createNodeFetch()";
