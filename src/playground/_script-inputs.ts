/**
 * The playground's browser script, the other input requests: URL-mode elicitation (the whole URL
 * with its host marked, warnings for IDN hosts and for an origin that is not the server's, and
 * consent buttons that never open anything), sampling (the request as the policy left it, and
 * the operator's reply), and roots (an editable list).
 *
 * In 2026-07-28 an input response has no error form: refusing a sampling or roots request means
 * not retrying the call, so "Refuse" abandons it.
 *
 * @module
 */

/** `renderUrlRequest`, `renderSamplingRequest` and `renderRootsRequest`. */
export const SCRIPT_INPUTS: string = String.raw`
const REFUSED =
  " The call was abandoned: a 2026-07-28 input request has no refusal answer, so the call is not retried.";

function renderUrlRequest(card, params, reply) {
  card.append(el("p", { class: "message", text: text(own(params, "message")) }));
  let url;
  try {
    url = new URL(text(own(params, "url")));
  } catch (error) {
    url = undefined;
  }
  if (url === undefined) {
    card.append(el("p", { class: "error", text: "The URL cannot be read, so it cannot be accepted." }));
  } else {
    const href = url.href;
    const at = href.indexOf(url.host, url.protocol.length);
    const shown = at < 0
      ? [href]
      : [href.slice(0, at), el("mark", { class: "host", text: url.host }), href.slice(at + url.host.length)];
    card.append(
      el("p", { text: "The server asks you to open this address yourself:" }),
      el("code", { class: "url-text", "aria-label": "The address" }, shown),
      el("p", null, ["Host: ", el("strong", { class: "host-name", text: url.hostname })]),
    );
    // The gateway's policy normalised what the server sent (what a browser would open): say so.
    const changes = own(own(params, "_meta"), "sluice/changes");
    const normalised = Array.isArray(changes) ? changes.find((c) => own(c, "field") === "url") : undefined;
    if (normalised !== undefined) {
      card.append(el("p", {
        class: "note url-normalised",
        role: "note",
        text: "The server sent " + text(own(normalised, "from")) + "; this is what a browser would open.",
      }));
    }
    if (url.hostname.split(".").some((label) => label.startsWith("xn--"))) {
      card.append(
        el("p", {
          class: "warning idn-warning",
          role: "note",
          text:
            'The host is an internationalised domain name (a label starts with "xn--"): it may be made to look like another site\'s name. Check it letter by letter.',
        }),
      );
    }
    const serverOrigin = serverOrigins.get(byId("server").value);
    if (serverOrigin !== url.origin) {
      card.append(
        el("p", {
          class: "warning origin-warning",
          role: "note",
          text: serverOrigin === undefined
            ? "The address's origin " + url.origin +
              " cannot be compared with the server's (the gateway does not know where it lives): make sure you trust this site."
            : "The address's origin " + url.origin + " is not the server's (" + serverOrigin +
              "): make sure you trust this site.",
        }),
      );
    }
    const id = fieldId();
    const copy = el("input", { type: "text", id: id, readonly: true, value: href });
    card.append(
      el("div", { class: "field" }, [
        el("label", { for: id, text: "The address, to copy into a browser if you trust it" }),
        copy,
      ]),
    );
  }
  card.append(
    el("p", {
      class: "hint",
      text:
        "The playground never opens or fetches this address. Accept once you have opened it yourself and finished there.",
    }),
  );
  card.append(el("p", null, [
    el("button", {
      type: "button",
      text: "Accept (I opened it myself)",
      disabled: url === undefined,
      onclick: () => reply.done({ action: "accept" }),
    }),
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
  ]));
}

function describeBlock(block) {
  if (Array.isArray(block)) return block.map(describeBlock).join("\n");
  return own(block, "type") === "text" ? text(own(block, "text")) : pretty(block);
}

function renderSamplingRequest(card, params, reply) {
  const facts = el("dl", { class: "facts" });
  const fact = (name, value) => {
    if (value !== undefined) {
      facts.append(
        el("dt", { text: name }),
        el("dd", { text: typeof value === "string" ? value : pretty(value) }),
      );
    }
  };
  // What the policy changed, as the gateway says under _meta: shown beside the value passed.
  const changes = own(own(params, "_meta"), "sluice/changes");
  const asked = (field) => {
    const change = Array.isArray(changes) ? changes.find((c) => own(c, "field") === field) : undefined;
    return change === undefined ? "" : " (the server asked " + text(String(own(change, "from"))) + ")";
  };
  fact("Max tokens", String(own(params, "maxTokens")) + asked("maxTokens"));
  fact("System prompt", own(params, "systemPrompt"));
  const context = own(params, "includeContext");
  fact("Include context", context === undefined ? undefined : text(context) + asked("includeContext"));
  fact("Temperature", own(params, "temperature"));
  fact("Stop sequences", own(params, "stopSequences"));
  fact("Model preferences", own(params, "modelPreferences"));
  const tools = own(params, "tools");
  if (Array.isArray(tools)) fact("Tools", tools.map((t) => text(own(t, "name"))).join(", "));
  card.append(
    el("p", {
      text:
        "The server asks for a model reply. This is the request as the gateway's policy left it; a value the policy changed says what the server asked.",
    }),
    facts,
  );
  const messages = own(params, "messages");
  const list = el("ol", { class: "messages" });
  for (const message of Array.isArray(messages) ? messages : []) {
    list.append(
      el("li", null, [
        el("strong", { text: text(own(message, "role")) + ": " }),
        el("span", { class: "sampling-text", text: describeBlock(own(message, "content")) }),
      ]),
    );
  }
  card.append(el("h4", { text: "Messages" }), list);
  card.append(
    el("details", null, [
      el("summary", { text: "The whole request (JSON)" }),
      el("pre", { text: pretty(params) }),
    ]),
  );
  const id = fieldId();
  const area = el("textarea", { id: id, "aria-describedby": id + "-error" });
  const error = el("p", { class: "field-error", id: id + "-error", hidden: true });
  const form = el("form", { novalidate: true }, [
    el("div", { class: "field" }, [
      el("label", { for: id, text: "Your reply, sent as the assistant" }),
      area,
      error,
    ]),
    el("p", null, [
      el("button", { type: "submit", text: "Send the reply" }),
      el("button", {
        type: "button",
        class: "secondary",
        text: "Refuse",
        onclick: () => reply.abandon("You refused the sampling request." + REFUSED),
      }),
    ]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const reply_ = area.value;
    error.hidden = reply_.trim() !== "";
    error.textContent = reply_.trim() === "" ? "Write a reply, or refuse" : "";
    if (reply_.trim() === "") return area.focus();
    reply.done({
      role: "assistant",
      content: { type: "text", text: reply_ },
      model: "sluice-playground",
      stopReason: "endTurn",
    });
  });
  card.append(form);
}

function renderRootsRequest(card, reply) {
  card.append(
    el("p", {
      text:
        "The server asks which folders it may work in. Only file:// URIs on this machine are sent; the gateway drops the rest.",
    }),
  );
  const rows = el("div", { class: "roots" });
  const addRow = (uri, name) => {
    const uriId = fieldId();
    const nameId = fieldId();
    const uriInput = el("input", {
      type: "text",
      id: uriId,
      placeholder: "file:///home/me/project",
      value: uri,
    });
    const nameInput = el("input", { type: "text", id: nameId, value: name });
    const row = el("div", { class: "roots-row" }, [
      el("div", { class: "field" }, [el("label", { for: uriId, text: "Root URI" }), uriInput]),
      el("div", { class: "field" }, [el("label", { for: nameId, text: "Name (optional)" }), nameInput]),
    ]);
    row.append(
      el("button", { type: "button", class: "secondary", text: "Remove", onclick: () => row.remove() }),
    );
    rows.append(row);
  };
  addRow("", "");
  const form = el("form", { novalidate: true }, [
    rows,
    el("p", null, [
      el("button", { type: "button", class: "secondary", text: "Add a root", onclick: () => addRow("", "") }),
      el("button", { type: "submit", text: "Send the roots" }),
      el("button", {
        type: "button",
        class: "secondary",
        text: "Refuse",
        onclick: () => reply.abandon("You refused the roots request." + REFUSED),
      }),
    ]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const roots = [];
    for (const row of rows.querySelectorAll(".roots-row")) {
      const [uri, name] = Array.from(row.querySelectorAll("input"), (input) => input.value.trim());
      if (uri !== "") roots.push(name === "" ? { uri: uri } : { uri: uri, name: name });
    }
    reply.done({ roots: roots });
  });
  card.append(form);
}
`;
