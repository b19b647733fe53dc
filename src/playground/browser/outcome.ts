/**
 * The outcome of a call: the tool's result (text blocks as text, other blocks as JSON, the
 * structured content), a JSON-RPC error with its code, or why the page abandoned the call.
 *
 * @module
 */
import { el } from "./elements.ts";
import { page, say } from "./page.ts";
import { type JsonObject, own, ownArray, pretty, text } from "./read-json.ts";
import { describeError } from "./rpc.ts";

/** How a call ended. */
export type Outcome =
  | { readonly result: JsonObject }
  | { readonly error: JsonObject }
  | { readonly notice: string };

/** Shows how the call ended, in place of the input requests, and moves the focus there. */
export function showOutcome(outcome: Outcome): void {
  page.inputs.hidden = true;
  page.inputRequests.replaceChildren();
  if ("error" in outcome) {
    const data = own(outcome.error, "data");
    page.outcomeBody.replaceChildren(el("div", { class: "error", role: "alert" }, [
      el("p", { class: "rpc-error", text: describeError(outcome.error) }),
      data !== undefined && el("pre", { text: pretty(data) }),
    ]));
    say("The call failed");
  } else if ("notice" in outcome) {
    page.outcomeBody.replaceChildren(el("p", { class: "warning", role: "alert", text: outcome.notice }));
    say("The call was abandoned");
  } else {
    page.outcomeBody.replaceChildren(resultBox(outcome.result));
    say("The call is complete");
  }
  page.outcome.hidden = false;
  page.outcomeTitle.focus();
}

function resultBox(result: JsonObject): HTMLElement {
  const failed = own(result, "isError") === true;
  const box = el("div", { class: failed ? "result is-error" : "result" });
  if (failed) {
    box.append(
      el("p", { class: "error-flag", role: "alert", text: "The tool reported an error (isError: true)" }),
    );
  }
  const content = ownArray(result, "content");
  for (const block of content) box.append(blockNode(block));
  const structured = own(result, "structuredContent");
  if (structured !== undefined) {
    box.append(
      el("h3", { text: "Structured content" }),
      el("pre", { class: "structured", text: pretty(structured) }),
    );
  }
  if (content.length === 0 && structured === undefined) {
    box.append(el("p", { class: "muted", text: "The result has no content." }));
  }
  return box;
}

function blockNode(block: unknown): HTMLElement {
  const type = own(block, "type");
  if (type === "text") return el("pre", { class: "text-block", text: text(own(block, "text")) });
  if (type === "image" || type === "audio") {
    const size = text(own(block, "data")).length;
    return el("p", {
      class: "muted",
      text: `${type} (${text(own(block, "mimeType"))}, ${size} characters of base64)`,
    });
  }
  return el("pre", { class: "json-block", text: pretty(block) });
}
