// Edits of well-formed values: the near-misses that get past a decoder's first checks and reach
// the rest. Only plain arrays and objects are copied and edited; anything else (a placeholder of
// _js-only-values.ts included) is kept as it is.
import fc from "fast-check";
import { hostileKey, objectOf } from "./_arbitraries.ts";

/** Whether a value is a plain array or object this module may copy and edit (never a proxy). */
function isPlain(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    return Array.isArray(value) ? prototype === Array.prototype : prototype === Object.prototype;
  } catch {
    return false;
  }
}

/** A copy of the plain arrays and objects of a value (own `__proto__` keys kept); the rest shared. */
function copyOf(value: unknown, seen: Set<object> = new Set()): unknown {
  if (!isPlain(value) || seen.has(value)) return value;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => copyOf(item, seen));
    return objectOf(Object.entries(value).map(([key, item]) => [key, copyOf(item, seen)] as const));
  } catch {
    return value;
  } finally {
    seen.delete(value);
  }
}

/** Every plain object or array inside a value, the value first. */
function containersOf(value: unknown, found: object[] = [], seen: Set<object> = new Set()): object[] {
  if (!isPlain(value) || seen.has(value)) return found;
  seen.add(value);
  found.push(value);
  try {
    for (const item of Object.values(value)) containersOf(item, found, seen);
  } catch {
    // a throwing getter: its value is not walked into
  }
  return found;
}

type Edit = "replace" | "remove" | "add" | "wrap";

function edit(value: unknown, at: number, kind: Edit, key: string, replacement: unknown): unknown {
  const copy = copyOf(value);
  const containers = containersOf(copy);
  if (containers.length === 0) return replacement;
  const target = containers[at % containers.length] as Record<string, unknown>;
  const keys = Object.keys(target);
  const existing = keys.length === 0 ? undefined : keys[at % keys.length]!;
  if (Array.isArray(target) && (kind === "add" || existing === undefined)) {
    target.push(replacement);
  } else if (kind === "add" || existing === undefined) {
    Object.defineProperty(target, key, {
      value: replacement,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else if (kind === "remove") {
    delete target[existing];
  } else {
    const value = kind === "wrap" ? [target[existing]] : replacement;
    Object.defineProperty(target, existing, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Values of `valid`, as they are or with one to three edits anywhere inside: a value replaced,
 * a key removed, a hostile key added, or a value wrapped in an array.
 *
 * @param valid Well-formed values (arrays and plain objects only).
 * @param replacement What the edits put in.
 * @returns The arbitrary (a quarter of its values unedited).
 */
export function mutated(
  valid: fc.Arbitrary<unknown>,
  replacement: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  const oneEdit = fc.tuple(
    fc.nat(),
    fc.constantFrom<Edit>("replace", "remove", "add", "wrap"),
    hostileKey,
    replacement,
  );
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, fc.array(oneEdit, { minLength: 1, maxLength: 3 })).map(([value, edits]) =>
        edits.reduce((current, [at, kind, key, put]) => edit(current, at, kind, key, put), value)
      ),
    },
  );
}
