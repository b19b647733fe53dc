/**
 * Making elements. Every value from a server reaches the page through `textContent`, text nodes
 * or attribute values, never as markup; and text is shown without the characters that would make
 * it read otherwise than it is (`shown`).
 *
 * @module
 */
import { shown } from "./shown.ts";

/** A listener, for an attribute named `on…`. */
type Listener = (event: Event) => void;

/**
 * An element's attributes: `text` sets its `textContent`, `on…` adds a listener, any other is an
 * attribute (`true` sets it empty; `false`, `null` and `undefined` leave it out).
 */
export type Attributes = Readonly<Record<string, string | number | boolean | null | undefined | Listener>>;

/** A child: a node or a string (a text node); `null`, `undefined` and `false` are left out. */
export type Child = Node | string | null | undefined | false;

let lastId = 0;

/**
 * Makes an element.
 *
 * @param tag The tag name.
 * @param attributes Its attributes (see {@linkcode Attributes}).
 * @param children Its children, in order.
 * @returns The element.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = shown(String(value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== undefined && child !== null && child !== false) {
      node.append(typeof child === "string" ? shown(child) : child);
    }
  }
  return node;
}

/** A new element id (`pg-field-1`, `pg-field-2`, …), for a label's `for` and `aria-describedby`. */
export function newId(): string {
  lastId += 1;
  return `pg-field-${lastId}`;
}

/**
 * Makes a select that may be left unset: its first option, "(not set)", has the empty value, then
 * one option per value. For optional inputs that leaving unset leaves out.
 *
 * @param attributes The select's attributes (see {@linkcode Attributes}).
 * @param values The values to choose from, in order.
 * @returns The select, set to "(not set)".
 */
export function unsetSelect(attributes: Attributes, values: readonly string[]): HTMLSelectElement {
  return el("select", attributes, [
    el("option", { value: "", text: "(not set)" }),
    ...values.map((value) => el("option", { value, text: value })),
  ]);
}
