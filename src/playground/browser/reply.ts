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
export const ABANDONED =
  " The call was abandoned: a 2026-07-28 input request has no refusal answer, so the call is not retried.";

/** The Decline and Cancel buttons of an elicitation. */
export function declineAndCancel(reply: Reply): HTMLButtonElement[] {
  return [
    el("button", {
      type: "button",
      class: "secondary",
      text: "Decline",
      onclick: () => reply.done({ action: "decline" }),
    }),
    el("button", {
      type: "button",
      class: "secondary",
      text: "Cancel",
      onclick: () => reply.done({ action: "cancel" }),
    }),
  ];
}
