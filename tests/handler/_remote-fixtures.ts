// A remoteHandler wired in-process to a handlerApp (no sockets), with what the app received.
import { defer } from "../../src/handler/deferral.ts";
import type { Handler } from "../../src/handler/handler.ts";
import { handlerApp, type HandlerAppOptions } from "../../src/handler/handler-app.ts";
import { remoteHandler, type RemoteHandlerOptions } from "../../src/handler/remote-handler.ts";

/** A valid sampling answer. */
export const reply = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" } as const;

/** Valid sampling params. */
export const samplingParams = {
  messages: [{ role: "user", content: { type: "text", text: "q" } }],
  maxTokens: 100,
} as const;

/** The plain context every direct call sends (before kind-specific fields). */
export const wireContext = {
  client: "agent",
  serverId: "github",
  era: "modern",
  assigns: { team: "core" },
  relatedRequestId: null,
} as const;

/** A shared secret for the authorization tests. */
export const SECRET = "c2x1aWNlLXRlc3Qtc2VjcmV0";

/** What one wired pair saw. */
export interface Wired {
  /** The remote handler. */
  readonly remote: Handler;
  /** Each request the app received, as sent. */
  readonly requests: Request[];
  /** Each request body, parsed. */
  readonly bodies: unknown[];
}

/**
 * Wires `remoteHandler({ fetch })` to `handlerApp(handler)` in-process.
 *
 * @param handler The handler the app serves.
 * @param options The app's and the remote's options.
 * @returns The remote handler and what the app received.
 */
export function wired(
  handler: Handler,
  options: { readonly app?: HandlerAppOptions; readonly remote?: RemoteHandlerOptions } = {},
): Wired {
  const app = handlerApp(handler, options.app);
  const requests: Request[] = [];
  const bodies: unknown[] = [];
  const remote = remoteHandler({
    fetch: async (input, init) => {
      const request = new Request(input, init);
      requests.push(request);
      bodies.push(await request.clone().json());
      return await app.fetch(request);
    },
  }, options.remote);
  return { remote, requests, bodies };
}

/**
 * Builds a callback context as the chain would hand it.
 *
 * @param extra Kind-specific fields and overrides.
 * @param signal The callback's signal.
 * @returns The context.
 */
export function contextOf<T extends object>(
  extra: T,
  signal: AbortSignal = new AbortController().signal,
): typeof wireContext & T & { changes: readonly never[]; signal: AbortSignal; defer: typeof defer } {
  return { ...wireContext, changes: [], ...extra, signal, defer };
}

/**
 * Copies what a handler was given without `signal` and `defer`, for exact comparison.
 *
 * @param ctx The handler's context.
 * @returns The data fields.
 */
export function dataOf(ctx: object): Record<string, unknown> {
  const { signal: _signal, defer: _defer, ...rest } = ctx as Record<string, unknown>;
  return rest;
}

/**
 * A promise with its resolve function, for handlers that wait.
 *
 * @returns The promise and its resolve.
 */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
