/// <reference types="node" />
/**
 * The loopback redirect URI of `sluice login` (RFC 8252 §7.3): `http://127.0.0.1:<port>/callback`,
 * through `node:http`. It hands over the one `GET /callback` whose `state` is the sign-in's; one
 * with another `state` (a stale tab, a prefetch) is answered 400 and the wait goes on; anything
 * else is 404.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The browser's arrival at `/callback`. */
export interface ArrivedCallback {
  /** The full callback URL: the redirect URI with the query the authorization server added. */
  readonly url: string;
  /**
   * Answers the browser with a page.
   *
   * @param status The HTTP status.
   * @param html The page.
   */
  answer(status: number, html: string): Promise<void>;
}

/** A listening callback listener. */
export interface CallbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUri: string;
  /**
   * Waits for the sign-in that sent `state`: settles with the first `GET /callback` carrying it.
   * Until this is called every callback is answered 400, as no sign-in has started.
   *
   * @param state The `state` of the authorization URL the person was sent to.
   * @returns The browser's arrival.
   */
  arrival(state: string): Promise<ArrivedCallback>;
  /** Stops listening; resolves once the server has closed. */
  close(): Promise<void>;
}

/** Headers of every answer: nothing cached, nothing loaded, no referrer (the URL holds a code). */
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  connection: "close",
} as const;

/** The answer to a callback of another sign-in, which must not end this one. */
const WRONG_STATE = "This is not the sign-in sluice is waiting for: its state differs from the one sluice " +
  "sent. Sign in from the URL sluice printed last.\n";

/**
 * Listens on 127.0.0.1 for one OAuth callback, on `port` when it can (when it is taken, or cannot
 * be had, on a free one).
 *
 * @param port The port to ask for first. @default 0 (a free port)
 * @returns The listener, once it listens.
 * @throws {Error} When it cannot listen (the runtime's error).
 */
export async function listenForCallback(port = 0): Promise<CallbackListener> {
  let arrive: (callback: ArrivedCallback) => void = () => {};
  const arrived = new Promise<ArrivedCallback>((resolve) => (arrive = resolve));
  let taken = false;
  let expected: string | undefined; // no sign-in before arrival(): every callback is another's
  let origin = "";
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "";
    // The Host check keeps out a web page that rebinds its own name to 127.0.0.1.
    const ours = req.method === "GET" && path.startsWith("/") && req.headers.host === new URL(origin).host;
    const url = ours ? new URL(`${origin}${path}`) : undefined;
    const found = url !== undefined && url.pathname === "/callback" && !taken;
    if (!found || url.searchParams.get("state") !== expected) {
      res.writeHead(found ? 400 : 404, { ...PAGE_HEADERS, "content-type": "text/plain; charset=utf-8" });
      res.end(found ? WRONG_STATE : "Not found\n");
      return;
    }
    taken = true;
    arrive({
      url: url.href,
      answer: (status, html) =>
        new Promise<void>((done) => {
          res.writeHead(status, { ...PAGE_HEADERS, "content-type": "text/html; charset=utf-8" });
          res.end(html, () => done());
        }),
    });
  });
  const listen = (on: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(on, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(port).catch(() => listen(0));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    redirectUri: `${origin}/callback`,
    arrival: (state) => {
      expected = state;
      return arrived;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A browser may hold a connection open it never sends on (a preconnect); not waited for.
        server.closeAllConnections?.();
      }),
  };
}
