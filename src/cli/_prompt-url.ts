/// <reference types="node" />
/**
 * A URL elicitation at the terminal: the server's message, the full URL with its host
 * highlighted, a warning for an internationalized host (`xn--`) and for a page off the server's
 * origin, then consent: y accepts, n declines, c cancels. Nothing is opened: the URL is printed
 * again for the user to open, and the acceptance is sent when they press Enter, back from the page.
 * Stdin closing before consent fails the request.
 *
 * @module
 */
import { domainToUnicode } from "node:url";
import type { HandlerError, UrlElicitationContext } from "../handler/handler.ts";
import type { ElicitRequestURLParams, ElicitResult } from "../protocol/elicitation.ts";
import { askingLine, type Prompter } from "./_prompt-input.ts";
import { safeLine, safeLines, type Screen } from "./_terminal.ts";

/**
 * Shows a URL and asks for consent.
 *
 * @param prompter The terminal.
 * @param request The params, the context the URL check made, the server's origin when known, and
 *   the call's round of input.
 * @returns `accept` (no content), `decline` or `cancel`; an error when stdin closed.
 */
export async function promptUrl(
  prompter: Prompter,
  request: {
    params: ElicitRequestURLParams;
    ctx: UrlElicitationContext;
    serverOrigin: string | undefined;
    round: number;
  },
): Promise<ElicitResult | HandlerError> {
  const { params, ctx, serverOrigin } = request;
  const { screen } = prompter;
  const { style } = screen;
  screen.line(style.bold(askingLine(ctx.serverId, "asks you to open a web page", request.round)));
  for (const line of safeLines(params.message)) screen.line(`  ${line}`);
  // The policy normalised what the server sent (what a browser would open): say what it was.
  const sent = ctx.changes.find((change) => change.field === "url")?.from;
  const shown = printUrl(screen, { url: ctx.url, host: ctx.host, idn: ctx.idn, sent });
  if (ctx.originMismatch) {
    screen.line(
      `  ${style.warn("warning:")} the page is not on the server's own origin ` +
        (serverOrigin === undefined ? "(the server's origin is unknown)" : `(${serverOrigin})`),
    );
  }
  screen.line(
    "sluice does not open links for you. Will you open this page in your browser? " +
      "y = yes (accept), n = no (decline), c = cancel",
  );
  const page = `the web page of server "${ctx.serverId}"`;
  for (;;) {
    const answer = await prompter.ask(ctx.signal);
    if (answer.kind === "end") return prompter.noteStdinClosed(page, ctx);
    if (answer.kind === "aborted") return { action: "cancel" };
    const action = ACTIONS[answer.text.trim().toLowerCase()];
    if (action === "accept") {
      screen.line(`Open this URL yourself: ${shown}`);
      return await whenDone(prompter, ctx.signal, page);
    }
    if (action !== undefined) {
      prompter.noteDeclined(`answered "${action}" to ${page}`);
      return { action };
    }
    screen.line("  invalid: answer y, n or c");
  }
}

/**
 * Answers `accept` once the person is back from the page. Their `y` is consent, not the end of
 * what the page asks, and what the answer sets off assumes it is done: a legacy server's
 * `-32042` call is sent again, a modern call's next round goes. Enter (or stdin closing) sends
 * it; `c` cancels.
 */
async function whenDone(prompter: Prompter, signal: AbortSignal, page: string): Promise<ElicitResult> {
  prompter.screen.line("Press Enter when you are done there (c = cancel).");
  const answer = await prompter.ask(signal);
  if (answer.kind === "aborted") return { action: "cancel" };
  if (answer.kind === "line" && ACTIONS[answer.text.trim().toLowerCase()] === "cancel") {
    prompter.noteDeclined(`answered "cancel" to ${page}`);
    return { action: "cancel" };
  }
  return { action: "accept" };
}

const ACTIONS: Readonly<Record<string, ElicitResult["action"] | undefined>> = Object.assign(
  Object.create(null),
  {
    y: "accept",
    yes: "accept",
    n: "decline",
    no: "decline",
    ":decline": "decline",
    c: "cancel",
    ":cancel": "cancel",
  },
);

/**
 * Prints a URL for a person to open: the URL with its host highlighted, the host, what the server
 * sent when the policy normalised it, and a warning for an internationalized host (`xn--`). Also
 * how `sluice login` shows its authorization URL.
 *
 * @param screen The screen.
 * @param page The URL (the check's normalised `href`), its host as the URL spells it, whether the
 *   host is internationalized, and what the server sent in its place.
 * @returns The URL with its host highlighted.
 */
export function printUrl(
  screen: Screen,
  page: { url: string; host: string; idn: boolean; sent?: unknown },
): string {
  const { style } = screen;
  const shown = highlightHost(page.url, page.host, style.host);
  screen.line(`  URL:  ${shown}`);
  screen.line(`  host: ${style.host(page.host)}`);
  if (typeof page.sent === "string") screen.line(`  sent: ${safeLine(page.sent)} (normalised above)`);
  if (page.idn) {
    screen.line(
      `  ${style.warn("warning:")} the host is an internationalized domain name (xn--), ` +
        `displayed elsewhere as "${
          safeLine(domainToUnicode(page.host))
        }": it may imitate another site's name`,
    );
  }
  return shown;
}

/** The URL with its host wrapped by `mark`. */
function highlightHost(url: string, host: string, mark: (text: string) => string): string {
  const start = url.indexOf("//") + 2;
  if (start < 2 || !url.startsWith(host, start)) return url;
  return `${url.slice(0, start)}${mark(host)}${url.slice(start + host.length)}`;
}
