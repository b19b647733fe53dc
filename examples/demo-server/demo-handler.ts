/**
 * The handler `npm start` gives the gateway: it answers roots with a fixed list. It has no
 * sampling or elicitation callback: the demo policy passes both down
 * (`passDown: ["elicitation", "sampling"]`), so sampling requests (clamped by the policy), forms
 * and URLs go to whoever calls the gateway (the playground page, an MCP host) and a person
 * answers them.
 *
 * @example
 * ```ts
 * import { demoHandler } from "./demo-handler.ts";
 * console.log(demoHandler.sampling, demoHandler.elicitation); // undefined undefined
 * ```
 *
 * @module
 */
import { defineHandler, type Handler } from "../../mod.ts";

/** The one root the demo handler shares. */
export const DEMO_ROOT: { readonly uri: string; readonly name: string } = Object.freeze({
  uri: "file:///home/demo/project",
  name: "project",
});

/**
 * The demo's handler: fixed roots; sampling and elicitation are passed down to the caller.
 *
 * @example
 * ```ts
 * import { demoHandler } from "./demo-handler.ts";
 * const ctx = {} as Parameters<NonNullable<typeof demoHandler.roots>>[0];
 * console.log(await demoHandler.roots?.(ctx)); // { roots: [{ uri: "file:///home/demo/project", name: "project" }] }
 * ```
 */
export const demoHandler: Handler = defineHandler({
  roots: () => ({ roots: [{ ...DEMO_ROOT }] }),
});
