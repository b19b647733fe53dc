/**
 * A roots request: an editable list of roots (URI and optional name) that the operator sends.
 *
 * @module
 */
import { el, newId } from "./elements.ts";
import type { Root } from "../../protocol/roots.ts";
import { refuseButton, type Reply, secondaryButton } from "./reply.ts";

/**
 * Fills a card for a `roots/list`.
 *
 * @param card The card.
 * @param reply How the card answers.
 */
export function renderRootsRequest(card: HTMLElement, reply: Reply): void {
  const rows = el("div", { class: "roots" });
  const addRow = () => rows.append(rootRow());
  addRow();
  const form = el("form", { novalidate: true }, [
    rows,
    el("p", {}, [
      secondaryButton("Add a root", addRow),
      el("button", { type: "submit", text: "Send the roots" }),
      refuseButton(reply, "roots"),
    ]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const roots: Root[] = [];
    for (const row of rows.querySelectorAll(".roots-row")) {
      const [uri = "", name = ""] = Array.from(row.querySelectorAll("input"), (input) => input.value.trim());
      if (uri !== "") roots.push(name === "" ? { uri } : { uri, name });
    }
    reply.done({ roots });
  });
  card.append(
    el("p", {
      text:
        "The server asks which folders it may work in. Only file:// URIs on this machine are sent; the gateway drops the rest.",
    }),
    form,
  );
}

function rootRow(): HTMLDivElement {
  const uriId = newId();
  const nameId = newId();
  const row = el("div", { class: "roots-row" }, [
    el("div", { class: "field" }, [
      el("label", { for: uriId, text: "Root URI" }),
      el("input", { type: "text", id: uriId, placeholder: "file:///home/me/project" }),
    ]),
    el("div", { class: "field" }, [
      el("label", { for: nameId, text: "Name (optional)" }),
      el("input", { type: "text", id: nameId }),
    ]),
  ]);
  row.append(secondaryButton("Remove", () => row.remove()));
  return row;
}
