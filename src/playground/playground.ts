/**
 * The playground: a page at `GET /` of a gateway to pick a server and a tool, call it through the
 * front's own MCP endpoint (`POST /mcp/<server>`, exactly as a 2026-07-28 host calls it), and
 * answer by hand what the server asks: elicitation forms and URLs, sampling, roots, over as many
 * rounds as the server needs.
 *
 * The page is rendered on the server with `hono/jsx` and holds no data; its script
 * (`GET /playground.js`), style sheet (`GET /playground.css`) and icon are static, and
 * everything from a server reaches the page as text. Every answer carries a strict `Content-Security-Policy`
 * (scripts, styles and requests to this origin only; no inline script or style, no frames, no
 * form posts), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`. The page and
 * its script link each other by relative URLs, so the app works mounted at `/` of any host.
 *
 * The script is written as typed browser modules in `browser/` (with the style sheet,
 * `browser/playground.css`), reusing the library's form and answer checks, and bundled at build
 * time into `_bundle.generated.ts` (`npm run build:playground`), so serving it needs no build
 * step on any runtime.
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
import { jsx as h, type JSXNode } from "hono/jsx";
import { PLAYGROUND_SCRIPT, PLAYGROUND_STYLE } from "./_bundle.generated.ts";

export { PLAYGROUND_SCRIPT };

/** The page's title and heading. */
export const PLAYGROUND_TITLE = "sluice playground";

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
  const page = `<!DOCTYPE html>${String(pageMarkup())}`;
  const app = new Hono();
  app.get(
    "/",
    (c) => c.body(page, 200, { ...PLAYGROUND_HEADERS, "content-type": "text/html; charset=utf-8" }),
  );
  app.get("/playground.js", (c) =>
    c.body(PLAYGROUND_SCRIPT, 200, {
      ...PLAYGROUND_HEADERS,
      "content-type": "text/javascript; charset=utf-8",
    }));
  app.get("/playground.css", (c) =>
    c.body(PLAYGROUND_STYLE, 200, {
      ...PLAYGROUND_HEADERS,
      "content-type": "text/css; charset=utf-8",
    }));
  app.get("/playground.svg", (c) =>
    c.body(ICON, 200, {
      ...PLAYGROUND_HEADERS,
      "content-type": "image/svg+xml",
    }));
  return app;
}

function pageMarkup(): JSXNode {
  return h(
    "html",
    { lang: "en" },
    h(
      "head",
      null,
      h("meta", { charset: "utf-8" }),
      h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
      h("title", null, PLAYGROUND_TITLE),
      h("link", { rel: "icon", href: "playground.svg", type: "image/svg+xml" }),
      h("link", { rel: "stylesheet", href: "playground.css" }),
      h("script", { src: "playground.js", defer: true }),
    ),
    h(
      "body",
      null,
      h(
        "header",
        null,
        h("h1", null, PLAYGROUND_TITLE),
        h(
          "p",
          null,
          "Call a tool of an upstream server through this gateway, as an MCP host would " +
            "(POST /mcp/<server>), and answer by hand what the server asks.",
        ),
      ),
      h("main", null, pickSection(), inputsSection(), outcomeSection()),
      h("p", { id: "status", role: "status", "aria-live": "polite" }, "Loading…"),
      h("noscript", null, h("p", null, "The playground needs JavaScript.")),
    ),
  );
}

function pickSection(): JSXNode {
  return h(
    "section",
    { id: "pick", "aria-labelledby": "pick-title" },
    h("h2", { id: "pick-title" }, "Server and tool"),
    h(
      "form",
      { id: "call-form", novalidate: true },
      h(
        "div",
        { class: "field" },
        h("label", { for: "token" }, "Access token"),
        h("input", { id: "token", name: "token", type: "password", autocomplete: "off" }),
        h(
          "p",
          { class: "hint" },
          "Only when the gateway asks for one (its auth). Sent as Authorization: Bearer, kept in this page only.",
        ),
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "server" }, "Server"),
        h("select", { id: "server", name: "server" }, h("option", { value: "" }, "Loading servers…")),
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "tool" }, "Tool"),
        h(
          "select",
          { id: "tool", name: "tool", disabled: true },
          h("option", { value: "" }, "Pick a server first"),
        ),
        h("p", { id: "tool-description", class: "hint" }),
      ),
      h(
        "fieldset",
        { id: "arguments", hidden: true },
        h("legend", null, "Arguments"),
        h("div", { id: "argument-fields" }),
      ),
      h("p", null, h("button", { type: "submit", id: "call", disabled: true }, "Call the tool")),
    ),
  );
}

function inputsSection(): JSXNode {
  return h(
    "section",
    { id: "inputs", "aria-labelledby": "inputs-title", hidden: true },
    h("h2", { id: "inputs-title" }, "The server asks"),
    h("p", { id: "round", class: "hint" }),
    h("div", { id: "input-requests" }),
  );
}

function outcomeSection(): JSXNode {
  return h(
    "section",
    { id: "outcome", "aria-labelledby": "outcome-title", hidden: true },
    h("h2", { id: "outcome-title", tabindex: "-1" }, "Outcome"),
    h("div", { id: "outcome-body" }),
    h("p", null, h("button", { type: "button", id: "start-over" }, "Start over")),
  );
}
