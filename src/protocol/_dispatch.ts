/**
 * A two-way choice between schemas, made on the input before decoding: unlike `v.union`, the
 * chosen schema's failure comes out as is, so a nested failure keeps its full path (a union's
 * sub-issues carry paths relative to the union, which `deepestIssue` cannot place).
 * Internal to the wire model.
 *
 * @module
 */
import type * as v from "valibot";
import type { WireSchema } from "./decode.ts";

/**
 * Decodes with `whenTrue` if `choose(input)` holds, else with `whenFalse`.
 *
 * @param choose A cheap test on the raw input (must not throw).
 * @param whenTrue The schema for inputs that pass the test.
 * @param whenFalse The schema for the others (it also reports non-objects).
 * @returns The combined schema.
 */
export function dispatch<A, B>(
  choose: (input: unknown) => boolean,
  whenTrue: WireSchema<A>,
  whenFalse: WireSchema<B>,
): WireSchema<A | B> {
  const schema: WireSchema<A | B> = {
    ...(whenFalse as WireSchema<A | B>),
    "~run"(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      return (choose(dataset.value) ? whenTrue : whenFalse)["~run"](dataset, config) as v.OutputDataset<
        A | B,
        v.BaseIssue<unknown>
      >;
    },
  };
  return schema;
}

/**
 * Tells whether a value is an object that has `key` as an own property.
 *
 * @param key The property name.
 * @returns The test.
 */
export function hasOwnKey(key: string): (input: unknown) => boolean {
  return (input) => typeof input === "object" && input !== null && Object.hasOwn(input, key);
}
