// What server-everything's trigger-elicitation-request form fills in, shared by the tests that
// check its answers and the hosts tests. Runtime-neutral (no processes), so it runs in workerd too.

/** The defaults of trigger-elicitation-request's form, as SEP-1034 fills them into an accepted answer. */
export const EVERYTHING_FORM_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze({
  firstLine: "It was a dark and stormy night.",
  integer: 42,
  number: 3.14,
  untitledSingleSelectEnum: "Monica",
  untitledMultipleSelectEnum: ["Guitar"],
  titledSingleSelectEnum: "hero-1",
  titledMultipleSelectEnum: ["fish-1"],
  legacyTitledEnum: "pet-1",
});
