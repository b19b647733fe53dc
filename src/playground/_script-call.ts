/**
 * The playground's browser script, the call: `tools/call`, then for each `input_required` round
 * one card per input request, and once every card is answered the retry with this round's
 * `inputResponses` and the exact `requestState`, until the final result or an error. Ends with
 * wiring the page's controls.
 *
 * @module
 */

/** The call flow, the outcome, and the page's start-up. */
export const SCRIPT_CALL: string = String.raw`
const MAX_ROUNDS = 20;
let call;

function setBusy(busy) {
  byId("call").disabled = busy || selectedTool() === undefined;
  byId("call-form").setAttribute("aria-busy", busy ? "true" : "false");
}

async function startCall(event) {
  event.preventDefault();
  const server = byId("server").value;
  const tool = selectedTool();
  if (server === "" || tool === undefined) return;
  let args;
  try {
    args = readArguments();
  } catch (error) {
    say(error.message);
    return;
  }
  call = { server: server, name: tool.name, args: args, headers: paramHeaders(tool, args), round: 0 };
  byId("outcome").hidden = true;
  byId("inputs").hidden = true;
  setBusy(true);
  await send(call, undefined, undefined);
}

/** Sends the call, fresh params each round: the original ones, this round's answers, the state. */
async function send(current, inputResponses, requestState) {
  const params = { name: current.name, arguments: current.args };
  if (inputResponses !== undefined) params.inputResponses = inputResponses;
  if (requestState !== undefined) params.requestState = requestState;
  say(
    current.round === 0
      ? "Calling " + current.name + "…"
      : "Sending the answers of round " + current.round + "…",
  );
  const answer = await rpc(current.server, "tools/call", params, current.headers);
  if (call !== current) return;
  if (answer.error !== undefined) return finish({ error: answer.error });
  if (own(answer.result, "resultType") === "input_required") return ask(current, answer.result);
  finish({ result: answer.result });
}

function ask(current, result) {
  current.round += 1;
  if (current.round > MAX_ROUNDS) {
    return finish({
      notice: "The server still asked for input after " + MAX_ROUNDS + " rounds: the playground stopped",
    });
  }
  const requests = isObject(own(result, "inputRequests")) ? result.inputRequests : {};
  const state = typeof own(result, "requestState") === "string" ? result.requestState : undefined;
  const keys = Object.keys(requests);
  if (keys.length === 0) return send(current, undefined, state);
  const answers = Object.create(null);
  const list = byId("input-requests");
  list.replaceChildren();
  const count = keys.length === 1 ? "1 request" : keys.length + " requests";
  byId("round").textContent = "Round " + current.round + ": the server asks " + count +
    ". The call goes on once every request is answered.";
  for (const key of keys) {
    const reply = {
      done: (answer) => {
        answers[key] = answer;
        if (call === current && keys.every((k) => answers[k] !== undefined)) {
          byId("inputs").hidden = true;
          setBusy(true);
          send(current, answers, state);
        }
      },
      abandon: (why) => {
        if (call === current) finish({ notice: why });
      },
    };
    list.append(renderRequest(key, requests[key], reply));
  }
  byId("inputs").hidden = false;
  setBusy(false);
  say("Round " + current.round + ": the server asks for input");
  const first = list.querySelector("input, select, textarea, button");
  if (first !== null) first.focus();
}

function renderRequest(key, entry, reply) {
  const method = own(entry, "method");
  const params = isObject(own(entry, "params")) ? entry.params : {};
  const card = el("article", { class: "request", "data-key": key });
  const what = method === "elicitation/create"
    ? (own(params, "mode") === "url" ? "Open a URL" : "Fill in a form")
    : method === "sampling/createMessage"
    ? "Write a model reply"
    : method === "roots/list"
    ? "List roots"
    : "Unknown request";
  card.append(el("h3", null, [what + " ", el("span", { class: "muted", text: "(" + key + ")" })]));
  const answered = (answer) => {
    for (const control of card.querySelectorAll("button, input, select, textarea")) control.disabled = true;
    card.append(
      el("p", {
        class: "answered",
        role: "status",
        text: "Answered: " + (own(answer, "action") || (own(answer, "roots") ? "roots sent" : "reply sent")),
      }),
    );
    reply.done(answer);
  };
  const handlers = { done: answered, abandon: reply.abandon };
  if (method === "elicitation/create" && own(params, "mode") === "url") {
    renderUrlRequest(card, params, handlers);
  } else if (method === "elicitation/create") renderFormRequest(card, params, handlers);
  else if (method === "sampling/createMessage") renderSamplingRequest(card, params, handlers);
  else if (method === "roots/list") renderRootsRequest(card, handlers);
  else {
    card.append(el("pre", { text: pretty(entry) }));
    card.append(
      el("button", {
        type: "button",
        text: "Abandon the call",
        onclick: () => reply.abandon("The playground cannot answer this request: the call was abandoned"),
      }),
    );
  }
  return card;
}

function finish(outcome) {
  byId("inputs").hidden = true;
  byId("input-requests").replaceChildren();
  const body = byId("outcome-body");
  body.replaceChildren();
  if (outcome.error !== undefined) {
    const data = own(outcome.error, "data");
    body.append(el("div", { class: "error", role: "alert" }, [
      el("p", { class: "rpc-error", text: describeError(outcome.error) }),
      data === undefined ? null : el("pre", { text: pretty(data) }),
    ]));
    say("The call failed");
  } else if (outcome.notice !== undefined) {
    body.append(el("p", { class: "warning", role: "alert", text: outcome.notice }));
    say("The call was abandoned");
  } else {
    body.append(renderResult(outcome.result));
    say("The call is complete");
  }
  byId("outcome").hidden = false;
  setBusy(false);
  byId("outcome-title").focus();
}

function renderResult(result) {
  const failed = own(result, "isError") === true;
  const box = el("div", { class: failed ? "result is-error" : "result" });
  if (failed) {
    box.append(
      el("p", { class: "error-flag", role: "alert", text: "The tool reported an error (isError: true)" }),
    );
  }
  const content = Array.isArray(own(result, "content")) ? result.content : [];
  for (const block of content) {
    const type = own(block, "type");
    if (type === "text") box.append(el("pre", { class: "text-block", text: text(own(block, "text")) }));
    else if (type === "image" || type === "audio") {
      const size = text(own(block, "data")).length;
      box.append(
        el("p", {
          class: "muted",
          text: type + " (" + text(own(block, "mimeType")) + ", " + size + " characters of base64)",
        }),
      );
    } else box.append(el("pre", { class: "json-block", text: pretty(block) }));
  }
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

function startOver() {
  call = undefined;
  byId("outcome").hidden = true;
  byId("inputs").hidden = true;
  byId("input-requests").replaceChildren();
  setBusy(false);
  say("Pick a server and a tool");
  byId(byId("tool").disabled ? "server" : "tool").focus();
}

byId("server").addEventListener("change", loadTools);
byId("token").addEventListener("change", loadServers);
byId("tool").addEventListener("change", pickTool);
byId("call-form").addEventListener("submit", startCall);
byId("start-over").addEventListener("click", startOver);
loadServers();
`;
