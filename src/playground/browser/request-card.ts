/**
 * The card of one input request: what the server asks, the controls to answer it (by kind), and
 * once answered, the controls disabled and what was answered.
 *
 * @module
 */
import { el } from "./elements.ts";
import { renderFormRequest } from "./form-request.ts";
import { own, ownObject, pretty } from "./read-json.ts";
import type { InputAnswer, Reply } from "./reply.ts";
import { renderRootsRequest } from "./roots-request.ts";
import { renderSamplingRequest } from "./sampling-request.ts";
import { renderUrlRequest } from "./url-request.ts";

/** What the card of each method asks of the user (a URL elicitation: "Open a URL"). */
const TITLES = new Map<unknown, string>([
  ["elicitation/create", "Fill in a form"],
  ["sampling/createMessage", "Write a model reply"],
  ["roots/list", "List roots"],
]);

/**
 * Makes the card of one input request.
 *
 * @param key The request's key in `inputRequests`.
 * @param entry The request (`{ method, params }`), untrusted.
 * @param reply How the card answers.
 * @param serverOrigin Where the gateway says the server's URLs should point, if it knows.
 * @returns The card.
 */
export function requestCard(
  key: string,
  entry: unknown,
  reply: Reply,
  serverOrigin: string | undefined,
): HTMLElement {
  const method = own(entry, "method");
  const params = ownObject(entry, "params");
  const url = method === "elicitation/create" && own(params, "mode") === "url";
  const card = el("article", { class: "request", "data-key": key });
  const what = url ? "Open a URL" : TITLES.get(method) ?? "Unknown request";
  card.append(el("h3", {}, [`${what} `, el("span", { class: "muted", text: `(${key})` })]));
  const answered: Reply = {
    done: (answer) => {
      for (const control of card.querySelectorAll<HTMLButtonElement>("button, input, select, textarea")) {
        control.disabled = true;
      }
      card.append(el("p", { class: "answered", role: "status", text: `Answered: ${answerName(answer)}` }));
      reply.done(answer);
    },
    abandon: reply.abandon,
  };
  if (url) renderUrlRequest(card, params, answered, serverOrigin);
  else if (method === "elicitation/create") renderFormRequest(card, params, answered);
  else if (method === "sampling/createMessage") renderSamplingRequest(card, params, answered);
  else if (method === "roots/list") renderRootsRequest(card, answered);
  else {
    card.append(
      el("pre", { text: pretty(entry) }),
      el("button", {
        type: "button",
        text: "Abandon the call",
        onclick: () => reply.abandon("The playground cannot answer this request: the call was abandoned"),
      }),
    );
  }
  return card;
}

function answerName(answer: InputAnswer): string {
  if ("action" in answer) return answer.action;
  return "roots" in answer ? "roots sent" : "reply sent";
}
