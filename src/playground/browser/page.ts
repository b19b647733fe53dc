/**
 * The page's fixed elements, as `playground.ts` renders them, found once by id and checked to be
 * of the expected kind (the script is deferred: it runs once the page is parsed), and the status
 * line.
 *
 * @module
 */
import { shown } from "./shown.ts";

function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`The page has no ${type.name} with id "${id}"`);
  return node;
}

/** The page's fixed elements. */
export const page = {
  token: byId("token", HTMLInputElement),
  server: byId("server", HTMLSelectElement),
  tool: byId("tool", HTMLSelectElement),
  toolDescription: byId("tool-description", HTMLParagraphElement),
  arguments: byId("arguments", HTMLFieldSetElement),
  argumentFields: byId("argument-fields", HTMLDivElement),
  callForm: byId("call-form", HTMLFormElement),
  call: byId("call", HTMLButtonElement),
  inputs: byId("inputs", HTMLElement),
  round: byId("round", HTMLParagraphElement),
  inputRequests: byId("input-requests", HTMLDivElement),
  outcome: byId("outcome", HTMLElement),
  outcomeTitle: byId("outcome-title", HTMLHeadingElement),
  outcomeBody: byId("outcome-body", HTMLDivElement),
  startOver: byId("start-over", HTMLButtonElement),
  status: byId("status", HTMLParagraphElement),
} as const;

/** Says what is going on, in the status line (a polite live region). */
export function say(message: string): void {
  page.status.textContent = shown(message);
}
