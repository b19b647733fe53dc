/**
 * Canonical JSON for the front's sealed state and request digests: object keys sorted by UTF-16
 * code units (as RFC 8785 does), no whitespace, numbers and strings as `JSON.stringify` writes
 * them. Equal JSON values give equal text however their objects were built.
 *
 * Why not `JSON.stringify`: it writes keys in insertion order (integer-like keys first), so the
 * same arguments sent in another order would digest differently; and it quietly turns values
 * that are not JSON into something else (`NaN` and `Infinity` into `null`, a `Date` through its
 * `toJSON`, `undefined` in an array into `null`), so different values could share a digest. Here
 * such values are refused instead. The walk uses its own stack, so depth is bounded by memory,
 * not by the call stack, and a cycle is refused.
 *
 * @module
 */

/** Work left for the walk: text to write, a value to write, or an object to leave. */
type Step = string | { readonly value: unknown; readonly path: string } | { readonly leave: object };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Writes a JSON value as canonical JSON.
 *
 * Object members whose value is `undefined` are left out, as JSON leaves them out; every other
 * value that JSON cannot carry is refused.
 *
 * @param root The value: `null`, booleans, finite numbers, strings, arrays, and objects whose
 *   prototype is `Object.prototype` or `null`.
 * @returns The canonical text.
 * @throws {TypeError} When the value holds something JSON cannot carry, or a cycle.
 */
export function canonicalJson(root: unknown): string {
  let out = "";
  const active = new Set<object>();
  const steps: Step[] = [{ value: root, path: "$" }];
  for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
    if (typeof step === "string") out += step;
    else if ("leave" in step) active.delete(step.leave);
    else out += writeValue(step.value, step.path, steps, active);
  }
  return out;
}

/** Writes a scalar and returns its text, or schedules a container's parts and returns `""`. */
function writeValue(value: unknown, path: string, steps: Step[], active: Set<object>): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw notJson(path, String(value));
      return JSON.stringify(value);
    case "object":
      if (value === null) return "null";
      if (active.has(value)) throw notJson(path, "a cycle");
      active.add(value);
      steps.push({ leave: value });
      if (Array.isArray(value)) scheduleArray(value, path, steps);
      else scheduleObject(value, path, steps);
      return "";
    default:
      throw notJson(path, typeof value);
  }
}

function scheduleArray(array: readonly unknown[], path: string, steps: Step[]): void {
  steps.push("]");
  for (let i = array.length - 1; i >= 0; i--) {
    const item = array[i];
    if (item === undefined) throw notJson(`${path}[${i}]`, "undefined");
    steps.push({ value: item, path: `${path}[${i}]` });
    if (i > 0) steps.push(",");
  }
  steps.push("[");
}

function scheduleObject(object: object, path: string, steps: Step[]): void {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) throw notJson(path, "a non-plain object");
  const record = object as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  steps.push("}");
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    const keyPath = IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
    steps.push({ value: record[key], path: keyPath });
    steps.push(JSON.stringify(key) + ":");
    if (i > 0) steps.push(",");
  }
  steps.push("{");
}

function notJson(path: string, received: string): TypeError {
  return new TypeError(`Canonical JSON: "${path}" must be a JSON value, received "${received}"`);
}

/**
 * Replaces every object of a freshly parsed JSON value by a prototype-free copy, in place, so no
 * key (`__proto__`, `constructor`, `toString`) reaches or shadows `Object.prototype`. Uses its own
 * stack, like {@linkcode canonicalJson}.
 *
 * @param root A value straight from `JSON.parse`, owned by the caller.
 * @returns The same value, its objects replaced by prototype-free copies.
 */
export function withoutPrototypes(root: unknown): unknown {
  const box: Record<string, unknown> = Object.create(null);
  box["root"] = root;
  const holders: Array<[Record<string | number, unknown>, string | number]> = [[box, "root"]];
  for (let next = holders.pop(); next !== undefined; next = holders.pop()) {
    const [holder, key] = next;
    const value = holder[key];
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) holders.push([value as unknown as Record<number, unknown>, i]);
      continue;
    }
    const copy: Record<string, unknown> = Object.create(null);
    for (const name of Object.keys(value)) copy[name] = (value as Record<string, unknown>)[name];
    holder[key] = copy;
    for (const name of Object.keys(copy)) holders.push([copy, name]);
  }
  return box["root"];
}
