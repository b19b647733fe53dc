/**
 * The playground's browser script, form-mode elicitation: a form built from `requestedSchema`
 * (the spec's flat primitive subset, already vetted by the front's form check), checked in the
 * page with the rules and words of the front's answer check (`src/checks/elicitation-answer.ts`
 * and `_field-value.ts`), so the user sees `field "name" expected at least 2 characters` before
 * the front would refuse the answer with the same reason.
 *
 * @module
 */

/** `renderFormRequest(card, params, reply)`, its fields and its checks. */
export const SCRIPT_FORM: string = String.raw`
const SECRET_WORDS =
  /pass(word|phrase|code)|secret|token|api.?key|credit.?card|card.?number|cvv|ssn|social.?security|\bpin\b/i;

function compileField(name, schema, required) {
  const type = own(schema, "type");
  const field = {
    name: name,
    required: required,
    title: text(own(schema, "title")) || name,
    description: text(own(schema, "description")),
    default: own(schema, "default"),
  };
  if (type === "array") {
    const items = own(schema, "items");
    const titled = Array.isArray(own(items, "anyOf"));
    const list = titled ? items.anyOf : (own(items, "enum") || []);
    field.kind = "multi";
    field.values = list.map((o) => titled ? text(own(o, "const")) : String(o));
    field.titles = list.map((o) => titled ? text(own(o, "title")) : String(o));
    field.minItems = own(schema, "minItems");
    field.maxItems = own(schema, "maxItems");
  } else if (Array.isArray(own(schema, "oneOf"))) {
    field.kind = "enum";
    field.values = schema.oneOf.map((o) => text(own(o, "const")));
    field.titles = schema.oneOf.map((o) => text(own(o, "title")));
  } else if (Array.isArray(own(schema, "enum"))) {
    const names = own(schema, "enumNames");
    field.kind = "enum";
    field.values = schema.enum.map(String);
    field.titles = schema.enum.map((v, i) =>
      Array.isArray(names) && typeof names[i] === "string" ? names[i] : String(v)
    );
  } else if (type === "number" || type === "integer") {
    field.kind = "number";
    field.integer = type === "integer";
    field.minimum = own(schema, "minimum");
    field.maximum = own(schema, "maximum");
  } else if (type === "boolean") {
    field.kind = "boolean";
  } else {
    field.kind = "string";
    field.minLength = own(schema, "minLength");
    field.maxLength = own(schema, "maxLength");
    field.format = own(schema, "format");
  }
  return field;
}

function renderFormRequest(card, params, reply) {
  const schema = own(params, "requestedSchema");
  const properties = isObject(own(schema, "properties")) ? schema.properties : {};
  const required = Array.isArray(own(schema, "required")) ? schema.required : [];
  const fields = Object.keys(properties).map((name) =>
    compileField(name, properties[name], required.includes(name))
  );
  const form = el("form", { novalidate: true, class: "elicitation" });
  card.append(el("p", { class: "message", text: text(own(params, "message")) }));
  if (fields.some((f) => f.required)) {
    form.append(
      el("p", { class: "hint" }, [
        el("span", { class: "required", "aria-hidden": "true", text: "*" }),
        " marks a required field",
      ]),
    );
  }
  const summary = el("p", { class: "form-error", role: "alert", hidden: true });
  form.append(summary);
  const controls = fields.map((field) => {
    const control = fieldControl(field);
    form.append(control.node);
    return control;
  });
  const accept = (event) => {
    event.preventDefault();
    const content = Object.create(null);
    let firstBad;
    controls.forEach((control, index) => {
      const problem = checkField(fields[index], control.read(), content);
      control.show(
        problem === undefined ? undefined : "field " + JSON.stringify(fields[index].name) + " " + problem,
      );
      if (problem !== undefined && firstBad === undefined) firstBad = control;
    });
    summary.hidden = firstBad === undefined;
    summary.textContent = firstBad === undefined
      ? ""
      : "Some answers do not fit the form: see the messages below the fields.";
    if (firstBad !== undefined) return firstBad.focus();
    reply.done({ action: "accept", content: content });
  };
  form.addEventListener("submit", accept);
  form.append(el("p", null, [
    el("button", { type: "submit", text: "Accept" }),
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
  card.append(form);
}

/** What the answer check says of one field: a problem, or undefined (the value goes in content). */
function checkField(field, read, content) {
  if (read.problem !== undefined) return read.problem;
  if (read.value === undefined) {
    return field.required && field.default === undefined ? "is required, received nothing" : undefined;
  }
  const problem = valueProblem(field, read.value);
  if (problem === undefined) content[field.name] = read.value;
  return problem;
}

function fieldControl(field) {
  const id = fieldId();
  const errorId = id + "-error";
  const error = el("p", { class: "field-error", id: errorId, hidden: true });
  const described = [];
  const marker = field.required ? el("span", { class: "required", "aria-hidden": "true", text: "*" }) : null;
  const parts = [];
  if (field.description !== "") {
    parts.push(el("p", { class: "hint", id: id + "-hint", text: field.description }));
    described.push(id + "-hint");
  }
  if (SECRET_WORDS.test(field.name + " " + field.title + " " + field.description)) {
    parts.push(
      el("p", {
        class: "warning",
        id: id + "-secret",
        text: "This field looks like it asks for a secret: the answer goes to the server.",
      }),
    );
    described.push(id + "-secret");
  }
  described.push(errorId);
  const input = fieldInput(field, id, described.join(" "));
  const node = field.kind === "multi" || field.kind === "boolean"
    ? input.node
    : el("div", { class: "field" }, [
      el("label", { for: id, text: field.title }),
      marker,
      ...parts,
      input.node,
      error,
    ]);
  if (field.kind === "multi" || field.kind === "boolean") {
    // The marker goes after the label (a label's text is the field's name), or in the legend.
    const head = node.querySelector("legend, label.inline");
    if (marker !== null && head !== null) head.after(marker);
    node.append(...parts, error);
  }
  const show = (message) => {
    error.hidden = message === undefined;
    error.textContent = message === undefined ? "" : message;
    for (const target of input.targets) {
      if (message === undefined) target.removeAttribute("aria-invalid");
      else target.setAttribute("aria-invalid", "true");
    }
  };
  return { node: node, read: input.read, show: show, focus: () => input.targets[0].focus() };
}
`;
