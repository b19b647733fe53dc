/**
 * The playground's browser script, the tool arguments: a tool whose input schema is flat
 * (strings, numbers, integers, booleans, string enums) gets one input per property; any other
 * schema gets a JSON text area.
 *
 * @module
 */

/** `renderArguments(tool)`, which also sets `readArguments()` for the call. */
export const SCRIPT_ARGUMENTS: string = String.raw`
const COMPLEX_KEYWORDS = [
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "$ref",
  "if",
  "patternProperties",
  "dependentSchemas",
];
let readArguments = () => ({});

function argumentKind(schema) {
  if (!isObject(schema)) return undefined;
  const values = own(schema, "enum");
  if (Array.isArray(values)) {
    return values.length > 0 && values.every((v) => typeof v === "string") ? "enum" : undefined;
  }
  const type = own(schema, "type");
  return ["string", "number", "integer", "boolean"].includes(type) ? type : undefined;
}

function isFlatSchema(schema, properties) {
  if (COMPLEX_KEYWORDS.some((key) => own(schema, key) !== undefined)) return false;
  return Object.keys(properties).every((name) => argumentKind(properties[name]) !== undefined);
}

function renderArguments(tool) {
  const box = byId("argument-fields");
  box.replaceChildren();
  byId("arguments").hidden = tool === undefined;
  readArguments = () => ({});
  if (tool === undefined) return;
  const schema = isObject(own(tool, "inputSchema")) ? tool.inputSchema : {};
  const properties = isObject(own(schema, "properties")) ? schema.properties : {};
  const required = Array.isArray(own(schema, "required")) ? schema.required : [];
  const names = Object.keys(properties);
  if (!isFlatSchema(schema, properties)) {
    const id = fieldId();
    const area = el("textarea", { id: id, name: "arguments", spellcheck: "false" });
    area.value = "{}";
    box.append(el("div", { class: "field" }, [
      el("label", { for: id, text: "Arguments (JSON object)" }),
      el("p", {
        class: "hint",
        text: "This tool's input schema is not flat, so its arguments are written as JSON.",
      }),
      area,
    ]));
    readArguments = () => parseJsonArguments(area.value);
    return;
  }
  if (names.length === 0) box.append(el("p", { class: "hint", text: "This tool takes no arguments." }));
  const readers = names.map((name) => {
    const field = argumentField(name, properties[name], required.includes(name));
    box.append(field.node);
    return field.read;
  });
  readArguments = () => {
    const args = Object.create(null);
    names.forEach((name, index) => {
      const value = readers[index]();
      if (value !== undefined) args[name] = value;
    });
    return args;
  };
}

function parseJsonArguments(source) {
  let value;
  try {
    value = JSON.parse(source.trim() === "" ? "{}" : source);
  } catch (error) {
    throw new Error("The arguments are not valid JSON");
  }
  if (!isObject(value)) throw new Error("The arguments must be a JSON object");
  return value;
}

function argumentField(name, schema, required) {
  const id = fieldId();
  const kind = argumentKind(schema);
  const description = text(own(schema, "description"));
  const fallback = own(schema, "default");
  const label = el("label", { for: id, text: name });
  const marker = required ? el("span", { class: "required", "aria-hidden": "true", text: "*" }) : null;
  let input;
  if (kind === "enum" || kind === "boolean") {
    const options = kind === "enum" ? schema.enum : ["true", "false"];
    input = el("select", { id: id, "aria-required": required ? "true" : undefined }, [
      el("option", { value: "", text: "(not set)" }),
    ]);
    for (const option of options) input.append(el("option", { value: option, text: option }));
    if (fallback !== undefined) input.value = String(fallback);
  } else {
    const number = kind === "number" || kind === "integer";
    input = el("input", {
      id: id,
      type: number ? "number" : "text",
      step: kind === "integer" ? "1" : number ? "any" : undefined,
      "aria-required": required ? "true" : undefined,
    });
    if (typeof fallback === "string" || typeof fallback === "number") input.value = String(fallback);
  }
  const hint = description === "" ? null : el("p", { class: "hint", id: id + "-hint", text: description });
  if (hint !== null) input.setAttribute("aria-describedby", id + "-hint");
  const read = () => {
    const raw = input.value;
    if (raw === "") {
      if (input.validity && input.validity.badInput) {
        throw new Error("Argument " + JSON.stringify(name) + " expected a number");
      }
      return undefined;
    }
    if (kind === "boolean") return raw === "true";
    if (kind === "number" || kind === "integer") return Number(raw);
    return raw;
  };
  return { node: el("div", { class: "field" }, [label, marker, hint, input]), read: read };
}
`;
