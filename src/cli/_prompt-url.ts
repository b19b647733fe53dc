/// <reference types="node" />
/**
 * A URL elicitation at the terminal: the server's message, the URL (see {@linkcode printUrl}), a
 * warning for a page off the server's origin, then consent: y accepts, n declines, c cancels.
 * Nothing is opened; the acceptance is sent when the person presses Enter, back from the page.
 * Stdin closing before consent fails the request.
 *
 * @module
 */
import { domainToUnicode } from "node:url";
import type { HandlerError, UrlElicitationContext } from "../handler/handler.ts";
import type { ElicitRequestURLParams, ElicitResult } from "../protocol/elicitation.ts";
import { askingLine, type Prompter } from "./_prompt-input.ts";
import { safeLine, safeLines, type Screen } from "./_terminal.ts";
import { formatDuration } from "../policy/duration.ts";

/**
 * Shows a URL and asks for consent.
 *
 * @param prompter The terminal.
 * @param request The params, the context the URL check made, the server's origin when known, the
 *   call's round of input, and the policy's elicitation `handlerTimeout`.
 * @returns `accept` (no content), `decline` or `cancel`; an error when stdin closed.
 */
export async function promptUrl(
  prompter: Prompter,
  request: {
    params: ElicitRequestURLParams;
    ctx: UrlElicitationContext;
    serverOrigin: string | undefined;
    round: number;
    /** The policy's `handlerTimeout` for elicitation: the person's time, page included. */
    timeoutMs: number;
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
      return await whenDone(prompter, ctx.signal, page, request.timeoutMs);
    }
    if (action !== undefined) {
      prompter.noteDeclined(`answered "${action}" to ${page}`);
      return { action };
    }
    screen.line("  invalid: answer y, n or c");
  }
}

/**
 * Answers `accept` once the person is back from the page: `y` is only consent, and the answer
 * makes the call go on (a legacy `-32042` call is resent, a modern call's next round goes). Enter
 * (or stdin closing) sends it; `n` or `c` still decline or cancel; `handlerTimeout` bounds the wait.
 */
async function whenDone(
  prompter: Prompter,
  signal: AbortSignal,
  page: string,
  timeoutMs: number,
): Promise<ElicitResult> {
  prompter.screen.line(
    `Press Enter when you are done there, within ${formatDuration(timeoutMs)} ` +
      "(n = decline, c = cancel after all).",
  );
  for (;;) {
    const answer = await prompter.ask(signal);
    if (answer.kind === "aborted") return { action: "cancel" };
    const text = answer.kind === "line" ? answer.text.trim().toLowerCase() : "";
    if (text === "") return { action: "accept" };
    const action = ACTIONS[text];
    if (action === "decline" || action === "cancel") {
      prompter.noteDeclined(`answered "${action}" to ${page}`);
      return { action };
    }
    prompter.screen.line("  invalid: press Enter, or answer n or c");
  }
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
 * Prints a URL for a person to open (also `sluice login`'s): the URL with its host highlighted, the
 * host, what the server sent when the policy normalised it, and a warning for an `xn--` host.
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
