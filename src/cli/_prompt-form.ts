/**
 * A form elicitation asked field by field: the default in brackets (Enter accepts it), enums as
 * numbered choices (multi-select: comma-separated), booleans as y/n. Each value is judged by the
 * chain's answer check (`checkElicitAnswer`) and the field asked again on its message. `:decline`
 * or `:cancel` at any prompt answers so; stdin closing fails the request.
 *
 * @module
 */
import { quote } from "../_internal/quote.ts";
import { checkElicitAnswer } from "../checks/elicitation-answer.ts";
import { INEXACT, isInexactNumber, numberFromText } from "../checks/form/field-value.ts";
import type { FieldShape, FormShape } from "../checks/elicitation-form.ts";
import type { FormElicitationContext, HandlerError } from "../handler/handler.ts";
import type { ElicitRequestFormParams, ElicitResult, ElicitValue } from "../protocol/elicitation.ts";
import { askingLine, type Prompter } from "./_prompt-input.ts";
import { safeLine, safeLines } from "./_terminal.ts";

type Property = Readonly<Record<string, unknown>>;
type Outcome = { readonly kind: "value"; readonly value: ElicitValue | undefined } | {
  readonly kind: "stop";
  /** The person's answer, or `undefined` when stdin closed. */
  readonly result: ElicitResult | undefined;
};

/**
 * Asks a form's fields one by one.
 *
 * @param prompter The terminal.
 * @param request The request's params, the form compiled by the form check, the context, and the
 *   call's round of input.
 * @returns The answer: `accept` with the content, `decline` or `cancel`; an error when stdin closed.
 */
export async function promptForm(
  prompter: Prompter,
  request: { params: ElicitRequestFormParams; shape: FormShape; ctx: FormElicitationContext; round: number },
): Promise<ElicitResult | HandlerError> {
  const { params, shape, ctx } = request;
  const { screen } = prompter;
  screen.line(screen.style.bold(askingLine(ctx.serverId, "asks you to fill in a form", request.round)));
  for (const line of safeLines(params.message)) screen.line(`  ${line}`);
  screen.line(
    "Answer field by field; Enter accepts the [default] or skips an optional field. " +
      "Type :decline or :cancel at any prompt.",
  );
  const content: Record<string, ElicitValue> = Object.create(null);
  for (const field of shape.fields) {
    const property = (params.requestedSchema.properties[field.name] ?? {}) as Property;
    describeField(prompter, field, property, ctx.fields[field.name]?.sensitiveSuspected === true);
    const outcome = await askField(prompter, field, property, ctx.signal);
    if (outcome.kind === "stop") {
      const form = `the form of server "${ctx.serverId}"`;
      if (outcome.result === undefined) {
        return prompter.noteStdinClosed(`${form}, field ${quote(labelOf(field, property))}`, ctx);
      }
      if (outcome.result.action !== "cancel" || !ctx.signal.aborted) {
        prompter.noteDeclined(`answered "${outcome.result.action}" to ${form}`);
      }
      return outcome.result;
    }
    if (outcome.value !== undefined) content[field.name] = outcome.value;
  }
  return { action: "accept", content };
}

/** The field's title, else its key: what the person sees it called. */
function labelOf(field: FieldShape, property: Property): string {
  return safeLine(
    typeof property["title"] === "string" && property["title"] !== "" ? property["title"] : field.name,
  );
}

function describeField(prompter: Prompter, field: FieldShape, property: Property, sensitive: boolean): void {
  const { screen } = prompter;
  const label = labelOf(field, property);
  screen.line(`${screen.style.bold(safeLine(label))} (${field.required ? "required" : "optional"})`);
  if (typeof property["description"] === "string") {
    for (const line of safeLines(property["description"])) screen.line(`  ${line}`);
  }
  if (sensitive) {
    screen.line(
      `  ${
        screen.style.warn("warning:")
      } this looks like a secret; servers must not ask for secrets in a form`,
    );
  }
  const titles = field.kind === "enum" || field.kind === "multi" ? optionTitles(field, property) : new Map();
  if (field.kind === "enum" || field.kind === "multi") {
    field.values.forEach((value, i) => screen.line(`  ${i + 1}. ${safeLine(titles.get(value) ?? value)}`));
  }
  screen.line(`  ${hint(field)}${defaultText(field, titles)}`);
}

async function askField(
  prompter: Prompter,
  field: FieldShape,
  property: Property,
  signal: AbortSignal,
): Promise<Outcome> {
  const titles = field.kind === "enum" || field.kind === "multi" ? optionTitles(field, property) : undefined;
  for (;;) {
    const answer = await prompter.ask(signal);
    if (answer.kind === "end") return { kind: "stop", result: undefined };
    if (answer.kind === "aborted") return { kind: "stop", result: { action: "cancel" } };
    const text = answer.text;
    if (text.trim() === ":decline") return { kind: "stop", result: { action: "decline" } };
    if (text.trim() === ":cancel") return { kind: "stop", result: { action: "cancel" } };
    const value = text === "" ? copyDefault(field) : parseValue(field, text, titles);
    const content = value === undefined ? {} : { [field.name]: value };
    const verdict = checkElicitAnswer({ action: "accept", content }, {
      mode: "form",
      shape: { fields: [field] },
    });
    if (verdict.ok) return { kind: "value", value: value as ElicitValue | undefined };
    // Text that is not what the prompt asked for is told so in the prompt's words, not the check's.
    const problem = unreadable(field, value)
      ? `${quote(labelOf(field, property))}: ${hint(field)}; received ${JSON.stringify(text.trim())}${
        field.kind === "number" && isInexactNumber(text) ? `, ${INEXACT}` : ""
      }`
      : problemOf(verdict.refusal.message, field, property);
    prompter.screen.line(`  invalid: ${problem}`);
  }
}

/** Whether `parseValue` could not read the text as the field asks (y or n, a number, a choice's number). */
function unreadable(field: FieldShape, value: unknown): boolean {
  switch (field.kind) {
    case "string":
      return false;
    case "number":
    case "boolean":
      return typeof value === "string";
    case "enum":
      return typeof value === "string" && !field.values.includes(value);
    case "multi":
      return Array.isArray(value) && value.some((part) => !field.values.includes(part));
  }
}

/**
 * The answer check's message about one field, naming it by its title rather than its key
 * (`field "traveller" expected…` becomes `"Traveller's name" expected…`), in the singular for 1.
 */
function problemOf(message: string, field: FieldShape, property: Property): string {
  const text = message.replace(/^Elicitation answer refused: /, "");
  const prefix = `field ${quote(field.name)} `;
  const named = text.startsWith(prefix)
    ? `${quote(labelOf(field, property))} ${text.slice(prefix.length)}`
    : text;
  return named.replace(/\b(at (?:least|most) 1) characters\b/g, "$1 character");
}

function hint(field: FieldShape): string {
  switch (field.kind) {
    case "string": {
      const parts = [field.format === undefined ? "text" : `text (${field.format})`];
      if (field.minLength !== undefined) parts.push(`at least ${characters(field.minLength)}`);
      if (field.maxLength !== undefined) parts.push(`at most ${characters(field.maxLength)}`);
      return parts.join(", ");
    }
    case "number": {
      const kind = field.integer ? "an integer" : "a number";
      const { minimum: min, maximum: max } = field;
      if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
      if (min !== undefined) return `${kind}, at least ${min}`;
      return max === undefined ? kind : `${kind}, at most ${max}`;
    }
    case "boolean":
      return "y or n";
    case "enum":
      return "choose one: type its number";
    case "multi": {
      const bounds = [
        field.minItems === undefined ? "" : `at least ${field.minItems}`,
        field.maxItems === undefined ? "" : `at most ${field.maxItems}`,
      ].filter((b) => b !== "").join(", ");
      return `choose any: type their numbers, separated by commas${bounds === "" ? "" : ` (${bounds})`}`;
    }
  }
}

function characters(count: number): string {
  return count === 1 ? "1 character" : `${count} characters`;
}

function defaultText(field: FieldShape, titles: ReadonlyMap<string, string>): string {
  const value = field.default;
  if (value === undefined) return "";
  if (typeof value === "boolean") return ` [${value ? "y" : "n"}]`;
  const shown = (Array.isArray(value) ? value : [value]).map((v) => safeLine(titles.get(String(v)) ?? v));
  return ` [${shown.join(", ")}]`;
}

function copyDefault(field: FieldShape): ElicitValue | undefined {
  const value = field.default;
  return Array.isArray(value) ? [...value] : value as ElicitValue | undefined;
}

/** The typed text as the field's type; text that does not parse is kept, for the check to name. */
function parseValue(field: FieldShape, text: string, titles: Map<string, string> | undefined): unknown {
  const trimmed = text.trim();
  switch (field.kind) {
    case "string":
      return text;
    case "number":
      return numberFromText(text);
    case "boolean":
      if (/^(y|yes|true)$/i.test(trimmed)) return true;
      return /^(n|no|false)$/i.test(trimmed) ? false : text;
    case "enum":
      return choose(field.values, trimmed, titles);
    case "multi":
      return trimmed.split(",").map((part) => part.trim()).filter((part) => part !== "")
        .map((part) => choose(field.values, part, titles));
  }
}

function choose(values: readonly string[], text: string, titles: Map<string, string> | undefined): string {
  if (/^\d+$/.test(text)) {
    const value = values[Number(text) - 1];
    if (value !== undefined) return value;
  }
  for (const [value, title] of titles ?? []) if (title === text) return value;
  return text;
}

/** Option titles from `oneOf`/`anyOf` (`{ const, title }`) or the legacy `enumNames`. */
function optionTitles(
  field: { readonly values: readonly string[] },
  property: Property,
): Map<string, string> {
  const titles = new Map<string, string>();
  const items = property["items"] as Property | undefined;
  const list = property["oneOf"] ?? property["anyOf"] ?? items?.["anyOf"] ?? items?.["oneOf"];
  if (Array.isArray(list)) {
    for (const option of list as Property[]) {
      if (typeof option?.["const"] === "string" && typeof option["title"] === "string") {
        titles.set(option["const"], option["title"]);
      }
    }
  }
  const names = property["enumNames"];
  if (Array.isArray(names)) {
    field.values.forEach((value, i) => typeof names[i] === "string" && titles.set(value, names[i]));
  }
  return titles;
}
