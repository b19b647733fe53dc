/**
 * The elicitation answer check: what a handler (or a downstream caller) answers is checked before
 * it is sent to the server. An accepted form must fit the compiled schema once its defaults are
 * filled in (SEP-1034); an accepted URL carries no content; a decline or cancel is sent without it.
 *
 * @module
 */
import { pass, type Refusal, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import type { FormShape } from "./form/shape.ts";
import { valueProblem } from "./form/field-value.ts";
import { describeKind, describeValue, quote, thrownName } from "../_internal/quote.ts";
import type { ElicitResult, ElicitValue } from "../protocol/elicitation.ts";
import { isObject } from "../_internal/is-object.ts";

/** What was asked: a form (with the shape compiled by the form check) or a URL. */
export type ElicitAnswerRequest = { readonly mode: "form"; readonly shape: FormShape } | {
  readonly mode: "url";
};

/**
 * Checks an elicitation answer and returns a fresh copy to send: form content rebuilt in the
 * schema's order into a prototype-free object, defaults filled in; `content` left out counts as
 * empty; other keys (`_meta` included) are dropped. Refusals, sent to the server, never echo the
 * user's values.
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

/** The checked copy of an accepted form's content, or why it is refused. */
function checkContent(
  content: Record<string, unknown>,
  shape: FormShape,
): { [key: string]: ElicitValue } | string {
  const output: { [key: string]: ElicitValue } = Object.create(null);
  let present = 0;
  for (const field of shape.fields) {
    const name = field.name;
    const given = Object.hasOwn(content, name);
    if (given) present++;
    const value = given ? content[name] : undefined;
    if (value === undefined) {
      if (field.default !== undefined) {
        output[name] = Array.isArray(field.default) ? field.default.slice() : field.default;
      } else if (field.required) {
        return `field ${quote(name)} is required, received nothing`;
      }
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem !== undefined) return `field ${quote(name)} ${problem}`;
    output[name] = Array.isArray(value) ? [...value] : value as ElicitValue;
  }
  const keys = Object.keys(content);
  // Every key is a field's unless there are more keys than fields given.
  const extra = keys.length === present
    ? undefined
    : keys.find((key) => !shape.fields.some((field) => field.name === key));
  if (extra !== undefined) return `field ${quote(extra)} is not in the form, expected only its fields`;
  return output;
}

function refused(reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InternalError, `Elicitation answer refused: ${reason}`);
}
