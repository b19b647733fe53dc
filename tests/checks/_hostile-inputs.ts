// Turns a case of the hostile corpora (tests/fixtures/hostile-*.json) into the values it stands
// for. JSON cannot hold everything a hostile peer or a careless caller can hand a check, and
// vitest's JSON import (workerd) turns a `"__proto__"` key into a prototype, so a case may say:
//
// - `"parse": ["schema", "expected"]`: those fields hold JSON text, read with `JSON.parse` (which
//   keeps `"__proto__"` as an own key on every runtime);
// - `"special": [{ "path": ["answer", "content", "x"], "value": "NaN" }]`: put a value JSON cannot
//   hold at that path (the first element names the case's field); see `SPECIALS` for the names.
//
// Every other field is deep-copied, so a check can never change the fixture other cases read.

/** One replacement of `special`. */
export interface Special {
  /** Where: the case's field, then keys and indexes. */
  readonly path: readonly (string | number)[];
  /** Which value, a key of `SPECIALS`. */
  readonly value: string;
}

/** What every hostile case may carry besides its own fields. */
export interface HostileCase {
  /** What the case is about; the test's name. */
  readonly note: string;
  /** Fields holding JSON text. */
  readonly parse?: readonly string[];
  /** Values JSON cannot hold. */
  readonly special?: readonly Special[];
}

const MEGABYTE = 1_048_576;

function nest(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

/** Makes each special value afresh from the value at its path (`materialise` places the getter). */
const SPECIALS: Readonly<Record<string, (current: unknown) => unknown>> = {
  "NaN": () => Number.NaN,
  "Infinity": () => Number.POSITIVE_INFINITY,
  "-Infinity": () => Number.NEGATIVE_INFINITY,
  "1e309": () => Number("1e309"),
  "-0": () => -0,
  "undefined": () => undefined,
  "string-1MB": () => "x".repeat(MEGABYTE),
  "string-1MB-plus-one": () => "x".repeat(MEGABYTE + 1),
  "throwing-getter": () => undefined, // placed as a getter by materialise()
  "revoked-proxy": () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  "null-prototype": (current) => Object.assign(Object.create(null), current),
  "deep-object-1000": () => nest(1000, {}, (inner) => ({ x: inner })),
  "deep-array-1000": () => nest(1000, [], (inner) => [inner]),
  "nested-schema-1000": () =>
    nest(1000, { type: "string" }, (inner) => ({ type: "object", properties: { x: inner } })),
  "strings-100000": () => Array.from({ length: 100_000 }, (_, i) => `v${i}`),
  "boolean-fields-10000": () =>
    Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, { type: "boolean" }])),
  "tool-turns-1000": () =>
    Array.from({ length: 1000 }, (_, i) => [
      { role: "assistant", content: { type: "tool_use", id: `t${i}`, name: "search", input: {} } },
      { role: "user", content: [{ type: "tool_result", toolUseId: `t${i}`, content: [] }] },
    ]).flat(),
};

/**
 * The value a case's field stands for: parsed or deep-copied, with its specials in place.
 *
 * @param entry The case.
 * @param field The field, e.g. `schema`, `answer`, `input`, `expected`.
 * @returns A fresh value.
 */
export function materialise(entry: HostileCase, field: string): unknown {
  const raw = (entry as unknown as Record<string, unknown>)[field];
  const holder: Record<string, unknown> = {
    [field]: entry.parse?.includes(field) === true ? JSON.parse(raw as string) : structuredClone(raw),
  };
  for (const { path, value } of entry.special ?? []) {
    if (path[0] !== field) continue;
    const make = SPECIALS[value];
    if (make === undefined) throw new Error(`${entry.note}: unknown special ${value}`);
    let parent: Record<string | number, unknown> = holder;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    if (value === "throwing-getter") {
      Object.defineProperty(parent, last, {
        get(): never {
          throw new Error("boom");
        },
        enumerable: true,
        configurable: true,
      });
    } else {
      Object.defineProperty(parent, last, {
        value: make(parent[last]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return holder[field];
}

/** An expected refusal: the whole of it. */
export interface ExpectedRefusal {
  /** The JSON-RPC code. */
  readonly code: number;
  /** The whole message. */
  readonly message: string;
}

/**
 * Whether an expected verdict is a refusal.
 *
 * @param expected The case's `expected`.
 * @returns `true` for `{ code, message }`.
 */
export function isRefusal(expected: unknown): expected is ExpectedRefusal {
  return typeof expected === "object" && expected !== null && "code" in expected && "message" in expected;
}
