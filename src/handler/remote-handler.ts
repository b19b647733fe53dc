/**
 * `remoteHandler`: a handler whose kinds are answered by an HTTP endpoint (a Workers service binding, any
 * object with a `fetch` method, or a URL), such as a {@linkcode handlerApp}.
 *
 * Each callback POSTs JSON `{ kind, params, ctx }` (`ctx` as plain data, without `signal`; no `params` for
 * roots), and `ctx.signal` aborts the request, so the chain's timeout and cancellation reach the endpoint.
 * The endpoint answers `200` with JSON: the answer or `{ error: { code, message } }`, which the chain's
 * post-checks judge as any handler's answer, or `{ deferred: true }`, which becomes `ctx.defer()`. Any other
 * response makes the callback throw, which the chain answers with a fixed `-32603`, never reflecting the
 * error to the server.
 *
 * @module
 */
import { integerOption } from "../_internal/integer-option.ts";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { describeValue, quote } from "../_internal/quote.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { defineHandler, type ElicitationContext, type Handler, type InputContext } from "./handler.ts";
import { openResponseBody, readBodyBytes } from "../transport/body-reader.ts";
import {
  contentTypeProblem,
  HANDLER_KINDS,
  type HandlerKind,
  isWireDeferral,
  parseJsonBody,
  plainContext,
} from "./_remote-wire.ts";

export type { HandlerKind } from "./_remote-wire.ts";

/**
 * Anything with a `fetch` method, such as a Workers service binding. It is always called with
 * one `Request`, so both `fetch(request)` and `fetch(input, init)` shapes fit.
 */
export interface HandlerEndpoint {
  /** Sends the request and resolves with the endpoint's response. */
  fetch(input: Request, init?: RequestInit): Promise<Response>;
}

/** Where a remote handler's endpoint is: an absolute `http:`/`https:` URL, or a fetcher. */
export type RemoteTarget = string | URL | HandlerEndpoint;

/** Options of {@linkcode remoteHandler}. */
export interface RemoteHandlerOptions {
  /**
   * The kinds the endpoint answers: only these are implemented, so only these are declared.
   * @default ["sampling", "elicitation", "roots"]
   */
  readonly kinds?: readonly HandlerKind[] | undefined;
  /** The elicitation modes the endpoint can present (the handler's `elicitationModes`). @default ["form"] */
  readonly elicitationModes?: readonly ("form" | "url")[] | undefined;
  /** Headers sent with every request, e.g. `authorization` for the endpoint. @default {} */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The largest response body accepted, in bytes. @default 1048576 (1 MiB) */
  readonly maxResponseBytes?: number | undefined;
  /**
   * For a fetcher target only: the URL its requests carry. A service binding may route on
   * anything, but its path selects the handler when the app is mounted under a prefix.
   * @default "https://handler.invalid/"
   */
  readonly url?: string | undefined;
  /**
   * Allows a plain `http:` URL target on a host that is not loopback (`localhost`, `127.0.0.0/8`, `[::1]`):
   * the requests, with their `headers` (such as a bearer secret), and the answers are then readable and
   * alterable on the network. A fetcher target ignores it.
   * @default false
   */
  readonly allowHttp?: boolean | undefined;
}

const PREFIX = "remoteHandler():";
const OPTION_KEYS: readonly (keyof RemoteHandlerOptions)[] = [
  "kinds",
  "elicitationModes",
  "headers",
  "maxResponseBytes",
  "url",
  "allowHttp",
];
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** The largest error body read or quoted, in bytes. */
const ERROR_BODY_BYTES = 1024;
/** The URL of requests sent to a fetcher (a service binding routes on anything). */
const FETCHER_URL = "https://handler.invalid/";

type Send = (init: RequestInit) => Promise<Response>;

/**
 * Makes a handler whose kinds are answered by an HTTP endpoint. A URL target must be `https:`, or `http:` on
 * a loopback host, as a policy's HTTP transport (see `allowHttp`); a fetcher target is not checked.
 *
 * @param target The endpoint: a URL (string or `URL`), or an object with a `fetch` method.
 * @param options Kinds, elicitation modes, headers, the response size limit, a fetcher's URL and whether
 *   plain `http:` may reach a host that is not loopback.
 * @returns A frozen handler implementing exactly `options.kinds`.
 * @throws {TypeError} When the options hold an unknown key (a misspelt `kinds` would declare every kind),
 *   `target` (or `url`) is not an absolute `http:`/`https:` URL without credentials nor an object with
 *   `fetch`, `target` is `http:` off loopback without `allowHttp: true`, `url` is given with a URL target,
 *   `kinds` is not a non-empty list of known kinds without repeats, a header is not valid, or
 *   `elicitationModes` is not valid.
 * @throws {RangeError} When `maxResponseBytes` is not a positive integer.
 * @example
 * ```ts
 * import { remoteHandler } from "./remote-handler.ts";
 * const handler = remoteHandler("https://handlers.example/github", {
 *   kinds: ["sampling"],
 *   headers: { authorization: "Bearer s3cret" },
 * });
 * console.log(Object.keys(handler)); // ["sampling"]
 * ```
 */
export function remoteHandler(target: RemoteTarget, options: RemoteHandlerOptions = {}): Handler {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `${PREFIX} the options must be an object { kinds?, headers?, … }, received ${describeValue(options)}`,
    );
  }
  checkOptionKeys(options, OPTION_KEYS, "remoteHandler()");
  const { send, where } = senderFor(target, options);
  const kinds = checkKinds(options.kinds);
  const maxBytes = integerOption(`${PREFIX} "maxResponseBytes"`, options.maxResponseBytes, {
    fallback: DEFAULT_MAX_RESPONSE_BYTES,
    least: 1,
  });
  const headers = checkHeaders(options.headers);
  const post = async (
    kind: HandlerKind,
    params: unknown,
    ctx: InputContext | ElicitationContext,
  ): Promise<never> => {
    const signal = ctx.signal;
    if (signal.aborted) throw signal.reason;
    let body: string;
    try {
      body = JSON.stringify({ kind, ...(params === undefined ? {} : { params }), ctx: plainContext(ctx) });
    } catch (error) {
      throw new Error(`${PREFIX} the request could not be encoded as JSON: ${describe(error)}`);
    }
    let response: Response;
    try {
      response = await send({ method: "POST", headers, body, signal, redirect: "manual" });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new Error(`${PREFIX} the request to ${where} failed: ${describe(error)}`);
    }
    const answer = await readRemoteAnswer(response, signal, maxBytes);
    return (isWireDeferral(answer) ? ctx.defer() : answer) as never;
  };
  const handler: { -readonly [K in keyof Handler]: Handler[K] } = {};
  if (kinds.includes("sampling")) handler.sampling = (params, ctx) => post("sampling", params, ctx);
  if (kinds.includes("elicitation")) handler.elicitation = (params, ctx) => post("elicitation", params, ctx);
  if (kinds.includes("roots")) handler.roots = (ctx) => post("roots", undefined, ctx);
  if (options.elicitationModes !== undefined) {
    handler.elicitationModes = Array.isArray(options.elicitationModes)
      ? Object.freeze([...options.elicitationModes])
      : options.elicitationModes;
  }
  return Object.freeze(defineHandler(handler));
}

function senderFor(target: RemoteTarget, options: RemoteHandlerOptions): { send: Send; where: string } {
  const fetcherUrl = options.url;
  if (typeof target === "string" || target instanceof URL) {
    if (fetcherUrl !== undefined) {
      throw new TypeError(`${PREFIX} "url" is for a fetcher target; this target is a URL already`);
    }
    const url = endpointUrl(target);
    // Messages name the origin and path only: a query may carry a token.
    const where = quote(url.origin + url.pathname);
    if (url.protocol === "http:" && !hasLoopbackHost(url) && options.allowHttp !== true) {
      throw new TypeError(
        `${PREFIX} the target must use https unless its host is loopback, received ${where} (set "allowHttp: true" to accept the risk)`,
      );
    }
    return { send: (init) => fetch(url.href, init), where };
  }
  if (typeof target === "object" && target !== null && typeof target.fetch === "function") {
    const url = fetcherUrl === undefined ? FETCHER_URL : endpointUrl(fetcherUrl).href;
    return { send: (init) => target.fetch(new Request(url, init)), where: "the endpoint" };
  }
  throw new TypeError(
    `${PREFIX} the target must be a URL or an object with a "fetch" method, received ${
      target === null ? "null" : typeof target
    }`,
  );
}

function endpointUrl(target: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(target));
  } catch {
    throw new TypeError(`${PREFIX} the target must be an absolute URL, received ${quote(String(target))}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(
      `${PREFIX} the target must be an "http:" or "https:" URL, received ${quote(url.protocol)}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError(`${PREFIX} the target URL must not hold credentials: send them with "headers"`);
  }
  return url;
}

function checkKinds(kinds: readonly HandlerKind[] | undefined): readonly HandlerKind[] {
  if (kinds === undefined) return HANDLER_KINDS;
  const known: readonly unknown[] = HANDLER_KINDS;
  if (
    !Array.isArray(kinds) || kinds.length === 0 || new Set(kinds).size !== kinds.length ||
    !kinds.every((kind) => known.includes(kind))
  ) {
    throw new TypeError(
      `${PREFIX} "kinds" must be a non-empty list of "sampling", "elicitation" and "roots" without repeats`,
    );
  }
  return kinds;
}

function checkHeaders(headers: Readonly<Record<string, string>> | undefined): [string, string][] {
  let out: Headers;
  try {
    out = new Headers(headers);
  } catch {
    // Named by the header alone: the runtime's own message quotes the value, often a secret.
    const bad = Object.keys(headers ?? {}).find((name) => !isValidHeader(name, headers?.[name]));
    const which = bad === undefined ? "" : `, received an invalid name or value for ${quote(bad)}`;
    throw new TypeError(`${PREFIX} "headers" must hold valid header names and values${which}`);
  }
  out.set("content-type", "application/json");
  out.set("accept", "application/json");
  return Object.freeze([...out]) as [string, string][];
}

function isValidHeader(name: string, value: unknown): boolean {
  try {
    new Headers([[name, String(value)]]);
    return true;
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  try {
    return quote(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200);
  } catch {
    return "an error that could not be described";
  }
}

/**
 * Reads the endpoint's response: `200`, JSON, within `maxBytes`. The parsed value goes back to the chain
 * unjudged; anything else throws an `Error` naming what was wrong, or the abort reason once `signal` fired.
 */
async function readRemoteAnswer(
  response: Response,
  signal: AbortSignal,
  maxBytes: number,
): Promise<unknown> {
  const body = openResponseBody(response, signal);
  try {
    if (signal.aborted) throw signal.reason;
    if (response.status !== 200) {
      const read = await readBodyBytes(body, ERROR_BODY_BYTES);
      if (read.end === "aborted") throw signal.reason;
      throw new Error(
        `${PREFIX} the endpoint answered HTTP ${response.status}, expected 200${detail(read.bytes)}`,
      );
    }
    const typeProblem = contentTypeProblem(response.headers.get("content-type"));
    if (typeProblem !== undefined) throw new Error(`${PREFIX} ${typeProblem}`);
    const tooLarge = `${PREFIX} the response body is larger than ${maxBytes} bytes (maxResponseBytes)`;
    if (Number(response.headers.get("content-length") ?? 0) > maxBytes) throw new Error(tooLarge);
    const read = await readBodyBytes(body, maxBytes);
    switch (read.end) {
      case "aborted":
        throw signal.reason;
      case "over_limit":
        throw new Error(tooLarge);
      case "failed":
        throw new Error(`${PREFIX} the response body failed before it was complete: ${read.reason}`);
    }
    const parsed = parseJsonBody(read.bytes);
    if (!parsed.ok) throw new Error(`${PREFIX} the response body ${parsed.problem}`);
    return parsed.value;
  } finally {
    body.close();
  }
}

/** The endpoint's own words for an error status: its JSON `message`, else the text, quoted. */
function detail(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, ERROR_BODY_BYTES), { stream: true });
  if (text.trim() === "") return "";
  let message: unknown = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "message" in parsed) message = parsed.message;
  } catch {
    // not JSON: quote the text
  }
  return `: ${quote(typeof message === "string" ? message : text, 200)}`;
}
