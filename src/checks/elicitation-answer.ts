/**
 * The elicitation answer check: what a handler (or a downstream caller) answers is checked
 * before it is sent to the server. `action` must be `accept`, `decline` or `cancel`; an accepted
 * form must fit the compiled schema exactly once the schema's defaults are filled in (SEP-1034);
 * an accepted URL carries no content; a declined or cancelled answer is sent without content.
 *
 * @module
 */
import { pass, type Refusal, RefusalCode, refuse, type Verdict } from "../chain/verdict.ts";
import { isObject } from "./_enum-options.ts";
import type { FormShape } from "./_form-shape.ts";
import { valueProblem } from "./_field-value.ts";
import { emptyRecord } from "./_form-record.ts";
import { describeKind, describeValue, quote, thrownName } from "../_internal/quote.ts";

import type { ElicitResult, ElicitValue } from "../protocol/elicitation.ts";

/** What was asked: a form (with the shape compiled by the form check) or a URL. */
export type ElicitAnswerRequest = { readonly mode: "form"; readonly shape: FormShape } | {
  readonly mode: "url";
};

/**
 * Checks an elicitation answer and returns a fresh copy to send. Form content is rebuilt in the
 * schema's order into an object that inherits nothing (a record of `_form-record.ts`: its
 * prototype is frozen, empty and prototype-free), with every missing field that has a `default`
 * filled in (SEP-1034); `content` left out of an accepted form counts as empty. Other keys of
 * the answer (`_meta` included) are dropped. Refusal messages name fields and rules but never
 * echo the user's values: they are sent to the server.
 *
 * @param answer The handler's answer, untrusted; never modified.
 * @param request What was asked.
 * @returns The answer to send, or a `-32603` refusal.
 * @example
 * ```ts
 * import { createElicitationFormCheck } from "./elicitation-form.ts";
 * import { checkElicitAnswer } from "./elicitation-answer.ts";
 * const form = createElicitationFormCheck().check({
 *   type: "object",
 *   properties: { name: { type: "string" }, size: { type: "integer", default: 3 } },
 * });
 * if (form.ok) {
 *   const answer = checkElicitAnswer({ action: "accept", content: { name: "Ada" } }, { mode: "form", shape: form.value.shape });
 *   if (answer.ok) console.log(answer.value.content); // { name: "Ada", size: 3 }
 * }
 * ```
 */
export function checkElicitAnswer(answer: unknown, request: ElicitAnswerRequest): Verdict<ElicitResult> {
  try {
    return checkAnswer(answer, request);
  } catch (error) {
    return refused(`expected plain JSON, reading it threw ${thrownName(error)}`);
  }
}

function checkAnswer(answer: unknown, request: ElicitAnswerRequest): Verdict<ElicitResult> {
  if (!isObject(answer)) return refused(`expected an object, received ${describeKind(answer)}`);
  const action = answer["action"];
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    return refused(`"action" expected "accept", "decline" or "cancel", received ${describeValue(action)}`);
  }
  if (action !== "accept") return pass({ action });
  const content = answer["content"];
  if (request.mode === "url") {
    if (content !== undefined) return refused('a URL-mode "accept" expected no content, received some');
    return pass({ action });
  }
  if (content !== undefined && !isObject(content)) {
    return refused(`"content" expected an object, received ${describeKind(content)}`);
  }
  const checked = checkContent(content ?? {}, request.shape);
  return typeof checked === "string" ? refused(checked) : pass({ action, content: checked });
}

/**
 * The checked copy of an accepted form's content, or why it is refused. Messages are built only
 * once a problem is found.
 */
function checkContent(
  content: Record<string, unknown>,
  shape: FormShape,
): { [key: string]: ElicitValue } | string {
  const output = emptyRecord<ElicitValue>();
  let seen = 0;
  for (const field of shape.fields) {
    const name = field.name;
    const present = Object.hasOwn(content, name);
    const value = present ? content[name] : undefined;
    if (present) seen++;
    if (value === undefined) {
      const fallback = field.default;
      if (fallback !== undefined) {
        // the shape's own plain array: slice() copies it in half the time of a spread
        output[name] = Array.isArray(fallback) ? fallback.slice() : fallback as ElicitValue;
      } else if (field.required) {
        return `field ${quote(name)} is required, received nothing`;
      }
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem !== undefined) return `field ${quote(name)} ${problem}`;
    output[name] = Array.isArray(value) ? [...value] : value as ElicitValue;
  }
  if (seen !== Object.keys(content).length) {
    for (const key of Object.keys(content)) {
      if (!shape.fields.some((field) => field.name === key)) {
        return `field ${quote(key)} is not in the form, expected only its fields`;
      }
    }
  }
  return output;
}

function refused(reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InternalError, `Elicitation answer refused: ${reason}`);
}
