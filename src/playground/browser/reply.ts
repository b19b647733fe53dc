/**
 * How a card answers its input request: with the answer, or by abandoning the call. In
 * 2026-07-28 an input response has no error form: refusing a sampling or roots request means not
 * retrying the call.
 *
 * @module
 */
import type { ElicitResult } from "../../protocol/elicitation.ts";
import type { ListRootsResult } from "../../protocol/roots.ts";
import type { CreateMessageResult } from "../../protocol/sampling.ts";
import { el } from "./elements.ts";

/** An answer to one input request. */
export type InputAnswer = ElicitResult | CreateMessageResult | ListRootsResult;

/** What a card calls once the user has decided. */
export interface Reply {
  /** Answers the request. */
  done(answer: InputAnswer): void;
  /** Abandons the call, saying why. */
  abandon(why: string): void;
}

/** What the page says after the user refused a sampling or roots request. */
const ABANDONED =
  " The call was abandoned: a 2026-07-28 input request has no refusal answer, so the call is not retried.";

/** A button of the secondary kind (not the card's main answer). */
export function secondaryButton(text: string, onclick: () => void): HTMLButtonElement {
  return el("button", { type: "button", class: "secondary", text, onclick });
}

/** The Decline and Cancel buttons of an elicitation. */
export function declineAndCancel(reply: Reply): HTMLButtonElement[] {
  return [
    secondaryButton("Decline", () => reply.done({ action: "decline" })),
    secondaryButton("Cancel", () => reply.done({ action: "cancel" })),
  ];
}

/** The Refuse button of a sampling or roots request: it abandons the call, saying why. */
export function refuseButton(reply: Reply, what: "sampling" | "roots"): HTMLButtonElement {
  return secondaryButton("Refuse", () => reply.abandon(`You refused the ${what} request.${ABANDONED}`));
}
