/**
 * A URL-mode elicitation: the whole URL with its host marked, what the server sent when the
 * gateway's policy normalised it, warnings for an internationalised host and for an origin that
 * is not the server's, and consent buttons that never open anything.
 *
 * @module
 */
import { el, newId } from "./elements.ts";
import { own, ownArray, ownObject, text } from "./read-json.ts";
import { declineAndCancel, type Reply } from "./reply.ts";

/**
 * Fills a card for a URL-mode `elicitation/create`.
 *
 * @param card The card.
 * @param params The request's params.
 * @param reply How the card answers.
 * @param serverOrigin Where the gateway says the server's URLs should point, if it knows.
 */
export function renderUrlRequest(
  card: HTMLElement,
  params: unknown,
  reply: Reply,
  serverOrigin: string | undefined,
): void {
  card.append(el("p", { class: "message", text: text(own(params, "message")) }));
  const url = parseUrl(text(own(params, "url")));
  if (url === undefined) {
    card.append(el("p", { class: "error", text: "The URL cannot be read, so it cannot be accepted." }));
  } else {
    card.append(...describeUrl(url, params, serverOrigin));
  }
  card.append(
    el("p", {
      class: "hint",
      text:
        "The playground never opens or fetches this address. Accept once you have opened it yourself and finished there.",
    }),
    el("p", {}, [
      el("button", {
        type: "button",
        text: "Accept (I opened it myself)",
        disabled: url === undefined,
        onclick: () => reply.done({ action: "accept" }),
      }),
      ...declineAndCancel(reply),
    ]),
  );
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function describeUrl(url: URL, params: unknown, serverOrigin: string | undefined): HTMLElement[] {
  const href = url.href;
  const at = href.indexOf(url.host, url.protocol.length);
  const shown = at < 0
    ? [href]
    : [href.slice(0, at), el("mark", { class: "host", text: url.host }), href.slice(at + url.host.length)];
  const parts = [
    el("p", { text: "The server asks you to open this address yourself:" }),
    el("code", { class: "url-text", "aria-label": "The address" }, shown),
    el("p", {}, ["Host: ", el("strong", { class: "host-name", text: url.hostname })]),
  ];
  const note = (kind: string, words: string) =>
    parts.push(el("p", { class: kind, role: "note", text: words }));
  const change = ownArray(ownObject(params, "_meta"), "sluice/changes").find((c) =>
    own(c, "field") === "url"
  );
  if (change !== undefined) {
    note(
      "note url-normalised",
      `The server sent ${text(own(change, "from"))}; this is what a browser would open.`,
    );
  }
  if (url.hostname.split(".").some((label) => label.startsWith("xn--"))) {
    note(
      "warning idn-warning",
      'The host is an internationalised domain name (a label starts with "xn--"): it may be made to look like another site\'s name. Check it letter by letter.',
    );
  }
  if (serverOrigin !== url.origin) {
    note(
      "warning origin-warning",
      serverOrigin === undefined
        ? `The address's origin ${url.origin} cannot be compared with the server's (the gateway does not know where it lives): make sure you trust this site.`
        : `The address's origin ${url.origin} is not the server's (${serverOrigin}): make sure you trust this site.`,
    );
  }
  const id = newId();
  parts.push(el("div", { class: "field" }, [
    el("label", { for: id, text: "The address, to copy into a browser if you trust it" }),
    el("input", { type: "text", id, readonly: true, value: href }),
  ]));
  return parts;
}
