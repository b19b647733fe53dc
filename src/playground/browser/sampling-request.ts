/**
 * A sampling request: the request as the gateway's policy left it (with what the server asked
 * where the policy changed a value), and the operator's reply, sent as the assistant's.
 *
 * @module
 */
import { el, newId } from "./elements.ts";
import { own, ownArray, ownObject, pretty, text } from "./read-json.ts";
import { refuseButton, type Reply } from "./reply.ts";

/**
 * Fills a card for a `sampling/createMessage`.
 *
 * @param card The card.
 * @param params The request's params.
 * @param reply How the card answers.
 */
export function renderSamplingRequest(card: HTMLElement, params: unknown, reply: Reply): void {
  card.append(
    el("p", {
      text:
        "The server asks for a model reply. This is the request as the gateway's policy left it; a value the policy changed says what the server asked.",
    }),
    facts(params),
    el("h4", { text: "Messages" }),
    el(
      "ol",
      { class: "messages" },
      ownArray(params, "messages").map((message) =>
        el("li", {}, [
          el("strong", { text: `${text(own(message, "role"))}: ` }),
          el("span", { class: "sampling-text", text: describeContent(own(message, "content")) }),
        ])
      ),
    ),
    el("details", {}, [
      el("summary", { text: "The whole request (JSON)" }),
      el("pre", { text: pretty(params) }),
    ]),
    replyForm(reply),
  );
}

/** The request's settings; a value the policy changed (under `_meta`) says what the server asked. */
function facts(params: unknown): HTMLDListElement {
  const list = el("dl", { class: "facts" });
  const fact = (name: string, value: unknown) => {
    if (value === undefined) return;
    list.append(
      el("dt", { text: name }),
      el("dd", { text: typeof value === "string" ? value : pretty(value) }),
    );
  };
  const changes = ownArray(ownObject(params, "_meta"), "sluice/changes");
  const asked = (field: string) => {
    const change = changes.find((c) => own(c, "field") === field);
    return change === undefined ? "" : ` (the server asked ${String(own(change, "from"))})`;
  };
  fact("Max tokens", String(own(params, "maxTokens")) + asked("maxTokens"));
  fact("System prompt", own(params, "systemPrompt"));
  const context = own(params, "includeContext");
  fact("Include context", context === undefined ? undefined : text(context) + asked("includeContext"));
  fact("Temperature", own(params, "temperature"));
  fact("Stop sequences", own(params, "stopSequences"));
  fact("Model preferences", own(params, "modelPreferences"));
  const tools = own(params, "tools");
  if (Array.isArray(tools)) fact("Tools", tools.map((tool) => text(own(tool, "name"))).join(", "));
  return list;
}

function describeContent(content: unknown): string {
  if (Array.isArray(content)) return content.map(describeContent).join("\n");
  return own(content, "type") === "text" ? text(own(content, "text")) : pretty(content);
}

function replyForm(reply: Reply): HTMLFormElement {
  const id = newId();
  const area = el("textarea", { id, "aria-describedby": `${id}-error` });
  const error = el("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const form = el("form", { novalidate: true }, [
    el("div", { class: "field" }, [
      el("label", { for: id, text: "Your reply, sent as the assistant" }),
      area,
      error,
    ]),
    el("p", {}, [
      el("button", { type: "submit", text: "Send the reply" }),
      refuseButton(reply, "sampling"),
    ]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const written = area.value;
    const empty = written.trim() === "";
    error.hidden = !empty;
    error.textContent = empty ? "Write a reply, or refuse" : "";
    if (empty) return area.focus();
    reply.done({
      role: "assistant",
      content: { type: "text", text: written },
      model: "sluice-playground",
      stopReason: "endTurn",
    });
  });
  return form;
}
