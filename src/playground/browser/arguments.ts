/**
 * The tool's arguments: a tool whose input schema is flat (strings, numbers, integers, booleans,
 * string enums) gets one input per property; any other schema gets a JSON text area.
 *
 * @module
 */
import { el, newId, unsetSelect } from "./elements.ts";
import { page } from "./page.ts";
import { isObject, type JsonObject, own, ownArray, ownObject, text } from "./read-json.ts";
import type { Tool } from "./rpc.ts";
import { INEXACT, inexactNumberIn, numberFromText } from "../../checks/form/field-value.ts";

/** The call's arguments as typed in, or why they cannot be sent. */
export type ArgumentsRead = { readonly args: JsonObject } | { readonly problem: string };

type ArgumentKind = "enum" | "string" | "number" | "integer" | "boolean";
type ValueRead = { readonly value: unknown } | { readonly problem: string };

/** Keywords that make a schema more than one input per property. */
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
const PRIMITIVES: readonly ArgumentKind[] = ["string", "number", "integer", "boolean"];

let reader = (): ArgumentsRead => ({ args: {} });

/** Shows the inputs of the picked tool's arguments (none when no tool is picked). */
export function renderArguments(tool: Tool | undefined): void {
  const box = page.argumentFields;
  box.replaceChildren();
  page.arguments.hidden = tool === undefined;
  reader = () => ({ args: {} });
  if (tool === undefined) return;
  const schema = ownObject(tool, "inputSchema");
  const properties = ownObject(schema, "properties");
  const required = ownArray(schema, "required");
  const names = Object.keys(properties);
  if (!isFlatSchema(schema, properties)) {
    const id = newId();
    const area = el("textarea", { id, name: "arguments", spellcheck: "false" });
    area.value = "{}";
    box.append(el("div", { class: "field" }, [
      el("label", { for: id, text: "Arguments (JSON object)" }),
      el("p", {
        class: "hint",
        text: "This tool's input schema is not flat, so its arguments are written as JSON.",
      }),
      area,
    ]));
    reader = () => parseJsonArguments(area.value);
    return;
  }
  if (names.length === 0) box.append(el("p", { class: "hint", text: "This tool takes no arguments." }));
  const fields = names.map((name) => {
    const field = argumentField(name, properties[name], required.includes(name));
    box.append(field.node);
    return { name, read: field.read };
  });
  reader = () => {
    const args: Record<string, unknown> = Object.create(null);
    for (const { name, read } of fields) {
      const got = read();
      if ("problem" in got) return got;
      if (got.value !== undefined) args[name] = got.value;
    }
    return { args };
  };
}

/** The arguments typed in for the picked tool, or why they cannot be sent. */
export function readArguments(): ArgumentsRead {
  return reader();
}

function argumentKind(schema: unknown): ArgumentKind | undefined {
  if (!isObject(schema)) return undefined;
  const values = own(schema, "enum");
  if (Array.isArray(values)) {
    return values.length > 0 && values.every((v) => typeof v === "string") ? "enum" : undefined;
  }
  const type = own(schema, "type");
  return PRIMITIVES.find((kind) => kind === type);
}

function isFlatSchema(schema: JsonObject, properties: JsonObject): boolean {
  if (COMPLEX_KEYWORDS.some((key) => own(schema, key) !== undefined)) return false;
  return Object.keys(properties).every((name) => argumentKind(properties[name]) !== undefined);
}

function parseJsonArguments(source: string): ArgumentsRead {
  let value: unknown;
  try {
    value = JSON.parse(source.trim() === "" ? "{}" : source);
  } catch {
    return { problem: "The arguments are not valid JSON" };
  }
  if (!isObject(value)) return { problem: "The arguments must be a JSON object" };
  const inexact = inexactNumberIn(source);
  return inexact === undefined
    ? { args: value }
    : { problem: `The arguments hold the number ${inexact}, ${INEXACT}` };
}

function argumentField(name: string, schema: unknown, required: boolean) {
  const id = newId();
  const kind = argumentKind(schema);
  const description = text(own(schema, "description"));
  const fallback = own(schema, "default");
  const marker = required ? el("span", { class: "required", "aria-hidden": "true", text: "*" }) : null;
  const ariaRequired = required ? "true" : undefined;
  let input: HTMLInputElement | HTMLSelectElement;
  if (kind === "enum" || kind === "boolean") {
    const options = kind === "enum" ? ownArray(schema, "enum").map(String) : ["true", "false"];
    input = unsetSelect({ id, "aria-required": ariaRequired }, options);
    if (fallback !== undefined) input.value = String(fallback);
  } else {
    const number = kind === "number" || kind === "integer";
    input = el("input", {
      id,
      type: number ? "number" : "text",
      step: kind === "integer" ? "1" : number ? "any" : undefined,
      "aria-required": ariaRequired,
    });
    if (typeof fallback === "string" || typeof fallback === "number") input.value = String(fallback);
  }
  const hint = description === "" ? null : el("p", { class: "hint", id: `${id}-hint`, text: description });
  if (hint !== null) input.setAttribute("aria-describedby", `${id}-hint`);
  const read = (): ValueRead => {
    const raw = input.value;
    if (raw === "") {
      if (input instanceof HTMLInputElement && input.validity.badInput) {
        return { problem: `Argument ${JSON.stringify(name)} expected a number` };
      }
      return { value: undefined };
    }
    if (kind === "boolean") return { value: raw === "true" };
    if (kind === "number" || kind === "integer") {
      const number = numberFromText(raw);
      return typeof number === "number"
        ? { value: number }
        : { problem: `Argument ${JSON.stringify(name)} received ${JSON.stringify(raw.trim())}, ${INEXACT}` };
    }
    return { value: raw };
  };
  const label = el("label", { for: id, text: name });
  return { node: el("div", { class: "field" }, [label, marker, hint, input]), read };
}
