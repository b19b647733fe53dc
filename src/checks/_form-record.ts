/**
 * Records keyed by untrusted names (an answer's form content) that inherit nothing and stay fast.
 *
 * Why not `Object.create(null)`: V8 makes such objects in dictionary mode, so writing the 13
 * keys of a typical form costs about 470 ns on Node 20 (385 ns on Deno 2.9), against about
 * 175 ns (140 ns) for an object made by a constructor. Making one with a constructor and then
 * `Object.setPrototypeOf(record, null)` keeps V8's fast mode on Node 20 (245 ns) but not on
 * newer V8 (475 ns on Deno). So a record is made by a constructor whose prototype is a frozen,
 * empty object that itself has no prototype: no key reads anything inherited (`toString`,
 * `constructor` and `__proto__` are ordinary own keys once written, and absent otherwise), no
 * key can reach `Object.prototype`, and nobody can add to the shared prototype.
 *
 * The trade-off: a fast-mode object gets V8 maps for its sequence of keys, made once and then
 * reused. A server sending ever-new field names makes new maps for every answer (about 1.5 µs
 * more per 13-field answer), as `JSON.parse` already does for its own messages with those names;
 * the form memo's records are made once per form and stay `Object.create(null)`.
 *
 * @module
 */

class Blank {}
Object.setPrototypeOf(Blank.prototype, null);
delete (Blank.prototype as { constructor?: unknown }).constructor;
Object.freeze(Blank.prototype);

/** The prototype of every record: frozen, with no own key and no prototype of its own. */
export const RECORD_PROTOTYPE: object = Blank.prototype;

/**
 * Makes an empty record for untrusted keys.
 *
 * @returns A new record that inherits nothing (see the module documentation).
 */
export function emptyRecord<T>(): Record<string, T> {
  return new Blank() as Record<string, T>;
}
