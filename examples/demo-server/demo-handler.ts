/**
 * The handler `npm start` gives the gateway: it answers sampling with a canned reply (there is no
 * model behind the demo) and roots with a fixed list. It has no elicitation callback: the demo
 * policy passes elicitation down (`passDown: ["elicitation"]`), so forms and URLs go to whoever
 * calls the gateway (the playground page, `sluice call`, an MCP host) and a person answers them.
 *
 * @example
 * ```ts
 * import { demoHandler } from "./demo-handler.ts";
 * console.log(typeof demoHandler.sampling, demoHandler.elicitation); // function undefined
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

/** The `model` name of the demo handler's canned sampling replies. */
export const DEMO_MODEL = "sluice-demo-handler";

/**
 * The demo's handler: canned sampling, fixed roots, no elicitation (passed down to the caller).
 *
 * @example
 * ```ts
 * import { demoHandler } from "./demo-handler.ts";
 * const ctx = {} as Parameters<NonNullable<typeof demoHandler.roots>>[0];
 * console.log(await demoHandler.roots?.(ctx)); // { roots: [{ uri: "file:///home/demo/project", name: "project" }] }
 * ```
 */
export const demoHandler: Handler = defineHandler({
  // The policy's checks ran first: `params.maxTokens` is what the policy let through.
  sampling: (params) => {
    const last = params.messages.at(-1);
    const blocks = last === undefined ? [] : Array.isArray(last.content) ? last.content : [last.content];
    const prompt = blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ");
    const clipped = prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt;
    return {
      role: "assistant",
      content: {
        type: "text",
        text: `This is sluice's demo handler, not a model: you asked "${clipped}"; ` +
          `the policy let through maxTokens ${params.maxTokens}.`,
      },
      model: DEMO_MODEL,
      stopReason: "endTurn",
    };
  },
  roots: () => ({ roots: [{ ...DEMO_ROOT }] }),
});
