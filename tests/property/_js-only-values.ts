// In-memory values JSON cannot hold, for the properties that no input makes the code under test
// throw: throwing getters, revoked proxies, proxies whose traps throw, cycles, bigints, symbols.
// fast-check probes every generated value (`cloneMethod in value`), which a revoked proxy does
// not survive, so arbitraries generate placeholders and a property calls `realise()`.
import fc from "fast-check";
import { objectOf, wireValue } from "./_arbitraries.ts";

/** Makers of in-memory values JSON cannot hold; each run gets a fresh one. */
const JS_ONLY: readonly (readonly [string, () => unknown])[] = [
  ["undefined", () => undefined],
  ["a bigint", () => 10n],
  ["a symbol", () => Symbol("s")],
  ["a function", () => () => 1],
  ["a Date", () => new Date(0)],
  ["a Map", () => new Map([["a", 1]])],
  ["a prototype-free object", () => Object.assign(Object.create(null), { a: 1, type: "string" })],
  ["an array with a hole", () => {
    const holed = [1, 2, 3];
    delete holed[1];
    return holed;
  }],
  ["a cycle", () => {
    const cycle: Record<string, unknown> = { type: "object" };
    cycle["self"] = cycle;
    return cycle;
  }],
  ["a getter that throws", () =>
    Object.defineProperty({}, "type", {
      enumerable: true,
      get(): never {
        throw new Error("getter");
      },
    })],
  ["an index getter that throws", () =>
    Object.defineProperty([], "0", {
      enumerable: true,
      get(): never {
        throw new RangeError("index getter");
      },
    })],
  ["a revoked proxy", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  }],
  ["a revoked array proxy", () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  }],
  ["a proxy whose traps throw", () =>
    new Proxy({}, {
      ownKeys(): never {
        throw new TypeError("ownKeys");
      },
      get(): never {
        throw new TypeError("get");
      },
      has(): never {
        throw new TypeError("has");
      },
    })],
  ["an object with toString", () => ({ toString: () => "x", valueOf: () => 1 })],
  ["an object whose toString throws", () => ({
    toString(): never {
      throw new Error("toString");
    },
  })],
];

/** Stands for a value of {@linkcode JS_ONLY} until {@linkcode realise} makes it (fast-check itself
 * cannot hold a revoked proxy: it probes generated values). */
class Hostile {
  constructor(readonly index: number) {}
  [fc.toStringMethod](): string {
    return `<${JS_ONLY[this.index]![0]}>`;
  }
}

/**
 * In-memory values JSON cannot hold (getters and proxies that throw, cycles, bigints, symbols),
 * as placeholders: pass a value through {@linkcode realise} inside the property.
 */
export const jsOnlyValue: fc.Arbitrary<unknown> = fc.integer({ min: 0, max: JS_ONLY.length - 1 }).map(
  (index) => new Hostile(index),
);

/**
 * The value a generated one stands for: a copy of its plain arrays and objects, every
 * placeholder of {@linkcode jsOnlyValue} replaced by a fresh value of its kind.
 *
 * @param value A generated value.
 * @returns The value to hand to the code under test.
 */
export function realise(value: unknown): unknown {
  if (value instanceof Hostile) return JS_ONLY[value.index]![1]();
  if (Array.isArray(value)) return value.map(realise);
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) {
    return value;
  }
  return objectOf(Object.entries(value).map(([key, item]) => [key, realise(item)] as const));
}

/** Anything: what arrives on the wire, and what a careless or hostile caller holds in memory. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(wireValue, jsOnlyValue);
