/**
 * A form-mode elicitation: a form built from `requestedSchema`, checked in the page by the
 * library's own form and answer checks before it is sent, so the user sees the words the front
 * would refuse the answer with. Only titles and descriptions, which the checks do not keep, are
 * read from the schema here.
 *
 * @module
 */
import { checkElicitAnswer } from "../../checks/elicitation-answer.ts";
import { createElicitationFormCheck, type FieldShape } from "../../checks/elicitation-form.ts";
import { INEXACT, isInexactNumber, numberFromText } from "../../checks/form/field-value.ts";
import type { ElicitValue } from "../../protocol/elicitation.ts";
import { el, newId, unsetSelect } from "./elements.ts";
import { own, ownArray, ownObject, text } from "./read-json.ts";
import { declineAndCancel, type Reply } from "./reply.ts";

/** Compiles the schema with no limits: the front already refused any schema over its policy's. */
const forms = createElicitationFormCheck({
  maxFields: Number.MAX_SAFE_INTEGER,
  maxEnumValues: Number.MAX_SAFE_INTEGER,
});
/** How the answer check's messages start; the page shows what follows, under the field. */
const REFUSED = "Elicitation answer refused: ";
/**
 * The keyboards of the string formats, on text inputs: `email` and `url` inputs trim what was
 * typed and turn a domain into punycode, so the server would get other text than the person typed.
 */
const INPUT_MODES: Readonly<Record<string, string>> = { email: "email", uri: "url" };

/** One field of the form on the page. */
interface Control {
  readonly field: FieldShape;
  readonly node: HTMLElement;
  /** The value entered, or `undefined` when nothing is. */
  read(): unknown;
  /** Shows the field's problem, or clears it. */
  show(problem: string | undefined): void;
  focus(): void;
}

/** One field's input: what holds it, the elements its problem marks, and its value. */
interface Input {
  readonly node: HTMLElement;
  /** `true` when the node holds the field's own label or legend (a checkbox, a fieldset). */
  readonly labelled: boolean;
  readonly targets: readonly HTMLElement[];
  read(): unknown;
}

/**
 * Fills a card for a form-mode `elicitation/create`.
 *
 * @param card The card.
 * @param params The request's params.
 * @param reply How the card answers.
 */
export function renderFormRequest(card: HTMLElement, params: unknown, reply: Reply): void {
  card.append(el("p", { class: "message", text: text(own(params, "message")) }));
  const schema = own(params, "requestedSchema");
  const compiled = forms.check(schema);
  if (!compiled.ok) {
    card.append(
      el("p", { class: "error", text: compiled.refusal.message }),
      el("p", {}, declineAndCancel(reply)),
    );
    return;
  }
  const properties = ownObject(schema, "properties");
  const controls = compiled.value.shape.fields.map((field) =>
    fieldControl(
      field,
      own(properties, field.name),
      compiled.value.fields[field.name]?.sensitiveSuspected === true,
    )
  );
  const summary = el("p", { class: "form-error", role: "alert", hidden: true });
  const form = el("form", { novalidate: true, class: "elicitation" }, [
    controls.some((control) => control.field.required) &&
    el("p", { class: "hint" }, [
      el("span", { class: "required", "aria-hidden": "true", text: "*" }),
      " marks a required field",
    ]),
    summary,
    ...controls.map((control) => control.node),
    el("p", {}, [el("button", { type: "submit", text: "Accept" }), ...declineAndCancel(reply)]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const content: Record<string, ElicitValue> = Object.create(null);
    let firstBad: Control | undefined;
    for (const control of controls) {
      const checked = checkField(control.field, control.read());
      control.show(typeof checked === "string" ? checked : undefined);
      if (typeof checked !== "string") Object.assign(content, checked);
      else firstBad ??= control;
    }
    summary.hidden = firstBad === undefined;
    summary.textContent = firstBad === undefined
      ? ""
      : "Some answers do not fit the form: see the messages below the fields.";
    if (firstBad !== undefined) return firstBad.focus();
    reply.done({ action: "accept", content });
  });
  card.append(form);
}

/**
 * What the answer check says of one field, checked on its own so every field shows its problem:
 * its content as it would go in the answer (the default when nothing is entered), or its problem.
 */
function checkField(field: FieldShape, value: unknown): Readonly<Record<string, ElicitValue>> | string {
  if (field.kind === "number" && typeof value === "string" && isInexactNumber(value)) {
    return `field ${JSON.stringify(field.name)} received ${JSON.stringify(value.trim())}, ${INEXACT}`;
  }
  const content = value === undefined ? {} : Object.fromEntries([[field.name, value]]);
  const verdict = checkElicitAnswer({ action: "accept", content }, {
    mode: "form",
    shape: { fields: [field] },
  });
  if (verdict.ok) return verdict.value.content ?? {};
  const message = verdict.refusal.message;
  return message.startsWith(REFUSED) ? message.slice(REFUSED.length) : message;
}

function fieldControl(field: FieldShape, property: unknown, sensitive: boolean): Control {
  const id = newId();
  const title = text(own(property, "title")) || field.name;
  const description = text(own(property, "description"));
  const error = el("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const marker = field.required ? el("span", { class: "required", "aria-hidden": "true", text: "*" }) : null;
  const notes: HTMLElement[] = [];
  if (description !== "") notes.push(el("p", { class: "hint", id: `${id}-hint`, text: description }));
  if (sensitive) {
    notes.push(el("p", {
      class: "warning",
      id: `${id}-secret`,
      text: "This field looks like it asks for a secret: the answer goes to the server.",
    }));
  }
  const describedBy = [...notes.map((note) => note.id), error.id].join(" ");
  const input = fieldInput(field, { id, title, describedBy, titles: optionTitles(property) });
  let node = input.node;
  if (input.labelled) {
    // The input holds its own label or legend: the marker goes right after it.
    const head = node.querySelector("legend, label.inline");
    if (marker !== null && head !== null) head.after(marker);
    node.append(...notes, error);
  } else {
    node = el("div", { class: "field" }, [
      el("label", { for: id, text: title }),
      marker,
      ...notes,
      node,
      error,
    ]);
  }
  const show = (problem: string | undefined) => {
    error.hidden = problem === undefined;
    error.textContent = problem ?? "";
    for (const target of input.targets) {
      if (problem === undefined) target.removeAttribute("aria-invalid");
      else target.setAttribute("aria-invalid", "true");
    }
  };
  return { field, node, read: input.read, show, focus: () => input.targets[0]?.focus() };
}

/** What an input is labelled and described by. */
interface Labels {
  readonly id: string;
  readonly title: string;
  readonly describedBy: string;
  /** The titles of an enum field's values, by value (an untitled value is its own title). */
  readonly titles: ReadonlyMap<string, string>;
}

function fieldInput(field: FieldShape, labels: Labels): Input {
  const { id, title, titles } = labels;
  const common = {
    id,
    "aria-describedby": labels.describedBy,
    "aria-required": field.required ? "true" : undefined,
  };
  switch (field.kind) {
    case "boolean": {
      if (!field.required && field.default === undefined) {
        // An unticked box would answer "false": an optional field without a default may be left unset.
        const select = unsetSelect(common, ["true", "false"]);
        const read = () => select.value === "" ? undefined : select.value === "true";
        return { node: select, labelled: false, targets: [select], read };
      }
      const box = el("input", { type: "checkbox", ...common });
      box.checked = field.default === true;
      const node = el("div", { class: "field" }, [
        box,
        el("label", { class: "inline", for: id, text: title }),
      ]);
      return { node, labelled: true, targets: [box], read: () => box.checked };
    }
    case "multi": {
      const boxes = field.values.map((value, index) => {
        const box = el("input", { type: "checkbox", id: `${id}-${index}`, value });
        box.checked = field.default?.includes(value) === true;
        return box;
      });
      const node = el("fieldset", { id, "aria-describedby": labels.describedBy }, [
        el("legend", { text: title }),
        ...boxes.map((box) =>
          el("div", {}, [
            box,
            el("label", { class: "inline", for: box.id, text: titles.get(box.value) ?? box.value }),
          ])
        ),
      ]);
      // Nothing ticked leaves an optional field without a default out, which a field with
      // minItems allows; with a default it answers [], as left out the default would be filled in.
      const read = () => {
        const ticked = boxes.filter((box) => box.checked).map((box) => box.value);
        return ticked.length === 0 && !field.required && field.default === undefined ? undefined : ticked;
      };
      return { node, labelled: true, targets: boxes.length > 0 ? boxes : [node], read };
    }
    case "enum": {
      const select = el("select", common, [
        el("option", { value: "", text: "(choose)" }),
        ...field.values.map((value, index) =>
          el("option", { value: String(index), text: titles.get(value) ?? value })
        ),
      ]);
      if (field.default !== undefined) select.value = String(field.values.indexOf(field.default));
      // "(choose)" is the empty value, which Number() would read as the first option.
      const read = () => select.value === "" ? undefined : field.values[Number(select.value)];
      return { node: select, labelled: false, targets: [select], read };
    }
    case "number": {
      // A text input read as the command line reads it: a number input hides what it cannot read
      // (1e400) behind an empty value. No numeric keyboard: some have no minus sign.
      const input = el("input", { type: "text", ...common });
      if (field.default !== undefined) input.value = String(field.default);
      const read = () => input.value === "" ? undefined : numberFromText(input.value);
      return { node: input, labelled: false, targets: [input], read };
    }
    case "string": {
      const date = field.format === "date";
      const placeholder = field.format === "date-time" ? "2026-07-28T09:30:00Z" : undefined;
      const input = el("input", {
        type: date ? "date" : "text",
        inputmode: INPUT_MODES[field.format ?? ""],
        placeholder,
        ...common,
      });
      if (field.default !== undefined) input.value = field.default;
      // A date picker gives "" for a date typed in part: checked as that, not left out as nothing.
      const read = () => input.value === "" && !(date && input.validity.badInput) ? undefined : input.value;
      return { node: input, labelled: false, targets: [input], read };
    }
  }
}

/**
 * The titles the schema gives an enum field's values: titled `oneOf` (single-select) or
 * `items.anyOf` (multi-select) options, or a legacy `enumNames`.
 */
function optionTitles(property: unknown): ReadonlyMap<string, string> {
  const titles = new Map<string, string>();
  for (const option of [...ownArray(property, "oneOf"), ...ownArray(ownObject(property, "items"), "anyOf")]) {
    titles.set(text(own(option, "const")), text(own(option, "title")));
  }
  const names = ownArray(property, "enumNames");
  ownArray(property, "enum").forEach((value, index) => {
    const name = names[index];
    if (typeof name === "string") titles.set(String(value), name);
  });
  return titles;
}
