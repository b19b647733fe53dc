/**
 * The call: `tools/call`, then for each `input_required` round one card per input request, and
 * once every card is answered the retry with this round's `inputResponses` and the exact
 * `requestState`, until the final result or an error.
 *
 * @module
 */
import { readArguments } from "./arguments.ts";
import { page, say } from "./page.ts";
import { selectedTool, serverOrigin } from "./pickers.ts";
import { type JsonObject, own, ownObject } from "./read-json.ts";
import type { InputAnswer } from "./reply.ts";
import { requestCard } from "./request-card.ts";
import { type Outcome, showOutcome } from "./outcome.ts";
import { type ParamHeaders, paramHeaders, rpc } from "./rpc.ts";

/** The most rounds the page answers, so a server cannot keep asking for ever. */
const MAX_ROUNDS = 20;

/** One call of a tool, across its rounds. */
interface Call {
  readonly server: string;
  readonly name: string;
  readonly args: JsonObject;
  readonly headers: ParamHeaders;
  round: number;
}

/** The call going on; a call that is no longer it (started over) changes nothing on the page. */
let call: Call | undefined;

/** Calls the picked tool with the arguments typed in (the call form's submit). */
export async function startCall(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const server = page.server.value;
  const tool = selectedTool();
  if (server === "" || tool === undefined) return;
  const read = readArguments();
  if ("problem" in read) return say(read.problem);
  const headers = paramHeaders(tool, read.args);
  if ("problem" in headers) return say(headers.problem);
  call = { server, name: tool.name, args: read.args, headers, round: 0 };
  page.outcome.hidden = true;
  page.inputs.hidden = true;
  setBusy(true);
  await send(call, undefined, undefined);
}

/** Leaves the call (its answers arriving later change nothing) and returns to the pickers. */
export function startOver(): void {
  call = undefined;
  page.outcome.hidden = true;
  page.inputs.hidden = true;
  page.inputRequests.replaceChildren();
  setBusy(false);
  say("Pick a server and a tool");
  (page.tool.disabled ? page.server : page.tool).focus();
}

function setBusy(busy: boolean): void {
  page.call.disabled = busy || selectedTool() === undefined;
  page.callForm.setAttribute("aria-busy", busy ? "true" : "false");
}

function finish(outcome: Outcome): void {
  showOutcome(outcome);
  setBusy(false);
}

/** Sends the call, with fresh params each round: the original ones, this round's answers, the state. */
async function send(
  current: Call,
  inputResponses: Record<string, InputAnswer> | undefined,
  requestState: string | undefined,
): Promise<void> {
  say(current.round === 0 ? `Calling ${current.name}…` : `Sending the answers of round ${current.round}…`);
  const params = {
    name: current.name,
    arguments: current.args,
    ...(inputResponses === undefined ? {} : { inputResponses }),
    ...(requestState === undefined ? {} : { requestState }),
  };
  const answer = await rpc(current.server, "tools/call", params, current.headers);
  if (call !== current) return;
  if ("error" in answer) return finish(answer);
  if (own(answer.result, "resultType") === "input_required") return await ask(current, answer.result);
  finish(answer);
}

/** Shows this round's input requests, and sends the answers once every one is answered. */
async function ask(current: Call, result: JsonObject): Promise<void> {
  current.round += 1;
  if (current.round > MAX_ROUNDS) {
    return finish({
      notice: `The server still asked for input after ${MAX_ROUNDS} rounds: the playground stopped`,
    });
  }
  const requests = ownObject(result, "inputRequests");
  const found = own(result, "requestState");
  const state = typeof found === "string" ? found : undefined;
  const keys = Object.keys(requests);
  if (keys.length === 0) return await send(current, undefined, state);
  const answers: Record<string, InputAnswer> = Object.create(null);
  const done = (key: string, answer: InputAnswer) => {
    answers[key] = answer;
    if (call === current && keys.every((k) => answers[k] !== undefined)) {
      page.inputs.hidden = true;
      setBusy(true);
      void send(current, answers, state);
    }
  };
  const abandon = (why: string) => {
    if (call === current) finish({ notice: why });
  };
  const origin = serverOrigin(current.server);
  page.inputRequests.replaceChildren(
    ...keys.map((key) =>
      requestCard(key, requests[key], { done: (answer) => done(key, answer), abandon }, origin)
    ),
  );
  const count = keys.length === 1 ? "1 request" : `${keys.length} requests`;
  page.round.textContent =
    `Round ${current.round}: the server asks ${count}. The call goes on once every request is answered.`;
  page.inputs.hidden = false;
  setBusy(false);
  say(`Round ${current.round}: the server asks for input`);
  page.inputRequests.querySelector<HTMLElement>("input, select, textarea, button")?.focus();
}
