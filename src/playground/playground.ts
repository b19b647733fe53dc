/**
 * The playground: a page at `GET /` of a gateway to pick a server and a tool, call it through the
 * front's own MCP endpoint (`POST /mcp/<server>`, as a 2026-07-28 host does), and answer by hand
 * what the server asks (elicitation, sampling, roots) over as many rounds as it needs.
 *
 * The page and its files are static and hold no data; everything from a server reaches the page
 * as text. Every answer carries a strict `Content-Security-Policy` (this origin only, no inline
 * script or style, no frames, no form posts), `nosniff` and `no-referrer`. Relative links let the
 * app work mounted at `/` of any host.
 *
 * The page is plain HTML rather than `hono/jsx`, which turns on an `AsyncLocalStorage` that every
 * later promise, timer and request of the gateway would pay for.
 *
 * The script is typed browser modules in `browser/`, reusing the library's form and answer checks,
 * bundled into `_bundle.generated.ts` (`npm run build:playground`) so serving needs no build step.
 *
 * @example
 * ```ts
 * import { playgroundApp } from "./playground.ts";
 * const page = await playgroundApp().request("/");
 * console.log(page.status, page.headers.get("referrer-policy")); // 200 "no-referrer"
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { PLAYGROUND_PAGE, PLAYGROUND_SCRIPT, PLAYGROUND_STYLE } from "./_bundle.generated.ts";

export { PLAYGROUND_SCRIPT };

/** The `Content-Security-Policy` of the page and its files. */
export const PLAYGROUND_CSP: string = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** The headers every answer of the playground carries (besides its content type). */
export const PLAYGROUND_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": PLAYGROUND_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
});

/** The page's icon (so browsers do not ask for `/favicon.ico`): water under a gate. */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
  '<rect width="16" height="16" rx="3" fill="#1f5fbf"/><rect x="3" y="2" width="10" height="6" fill="#fff"/>' +
  '<path d="M1 12q2-2 4 0t4 0 4 0 2 0v4H1z" fill="#8ec5ff"/></svg>';

/** What each path serves, and its content type. */
const FILES: Readonly<Record<string, readonly [body: string, type: string]>> = {
  "/": [PLAYGROUND_PAGE, "text/html; charset=utf-8"],
  "/playground.js": [PLAYGROUND_SCRIPT, "text/javascript; charset=utf-8"],
  "/playground.css": [PLAYGROUND_STYLE, "text/css; charset=utf-8"],
  "/playground.svg": [ICON, "image/svg+xml"],
};

/**
 * Makes the playground's Hono app, to mount at `/` next to the front.
 *
 * @returns The app: `GET /` (the page), `GET /playground.js`, `GET /playground.css` and
 *   `GET /playground.svg` (its icon).
 * @example
 * ```ts
 * import { playgroundApp } from "./playground.ts";
 * const script = await playgroundApp().request("/playground.js");
 * console.log(script.headers.get("content-type")); // "text/javascript; charset=utf-8"
 * ```
 */
export function playgroundApp(): Hono {
  const app = new Hono();
  for (const [path, [body, type]] of Object.entries(FILES)) {
    app.get(path, (c) => c.body(body, 200, { ...PLAYGROUND_HEADERS, "content-type": type }));
  }
  return app;
}
