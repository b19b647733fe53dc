/**
 * One upstream server as the front sees it: a chain built from the client's handler plus, for
 * each kind the policy passes down and no handler implements, a callback that defers to the
 * caller; and, per downstream caller, the capabilities to declare upstream: the handler's kinds
 * always, passed-down kinds only when the caller declared them too.
 *
 * @module
 */
import { type Chain, createChain } from "../chain/chain.ts";
import type { ClientInternals } from "../client/client-internals.ts";
import type { Handler } from "../handler/handler.ts";
import { clientCapabilitiesFor, type DeclaredCapabilities } from "../handler/capabilities.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { TASKS_EXTENSION } from "../protocol/tasks.ts";
import { neededBy } from "./_caller-needs.ts";

/** One upstream server, for the front. */
export interface FrontServer {
  readonly policy: CompiledPolicy;
  /** The front's chain: the client's handler, and deferral for passed-down kinds. */
  readonly chain: Chain;
  /** What to declare upstream for this caller: the handler's kinds, and the passed-down kinds it declared. */
  declaredFor(caller: ClientCapabilities): DeclaredCapabilities;
  /**
   * The same in the 2026-07-28 shape, with the tasks extension when the caller declared it, or
   * when the front awaits a task itself (`awaitsTasks`: a 2025 caller, which cannot hold one).
   */
  capabilitiesFor(
    caller: ClientCapabilities,
    options?: { readonly awaitsTasks?: boolean },
  ): ClientCapabilities;
  /** Whether the caller declared what a deferred request needs (its kind, and its elicitation mode). */
  callerCan(caller: ClientCapabilities, request: InputRequest): boolean;
  /**
   * What of `required` (an upstream `-32021`'s `requiredCapabilities`) the caller declared but the
   * front does not declare upstream for it, as its policy neither handles nor passes it down: in
   * words (`elicitation (url)`, `sampling`), or `undefined` when nothing is withheld.
   */
  withheld(caller: ClientCapabilities, required: unknown): string | undefined;
}

type Kind = "sampling" | "elicitation" | "roots";

/**
 * Builds the front's view of one server.
 *
 * @param policy The server's compiled policy.
 * @param internals The client's internals (handler, store, timers).
 * @param client The client's name.
 * @returns The server.
 */
export function createFrontServer(
  policy: CompiledPolicy,
  internals: ClientInternals,
  client: string,
): FrontServer {
  const base: Handler = internals.handler ?? {};
  const passed = new Set<Kind>(policy.passDown.filter((kind) => base[kind] === undefined));
  const handler: Handler = {
    ...base,
    ...(passed.has("sampling") ? { sampling: (_params, ctx) => ctx.defer() } : {}),
    ...(passed.has("elicitation")
      ? { elicitation: (_params, ctx) => ctx.defer(), elicitationModes: ["form", "url"] as const }
      : {}),
    ...(passed.has("roots") ? { roots: (ctx) => ctx.defer() } : {}),
  };
  const chain = createChain({
    policy,
    handler,
    client,
    store: internals.store,
    timers: internals.timers,
    clock: internals.clock,
    decisions: internals.decisions,
  });
  const full = chain.declared;
  const declaredFor = (caller: ClientCapabilities): DeclaredCapabilities => {
    const sampling = full.sampling === undefined || (passed.has("sampling") && caller.sampling === undefined)
      ? undefined
      : passed.has("sampling")
      ? {
        context: full.sampling.context && caller.sampling?.context !== undefined,
        tools: full.sampling.tools && caller.sampling?.tools !== undefined,
      }
      : full.sampling;
    const modes = (full.elicitation?.modes ?? []).filter((mode) =>
      !passed.has("elicitation") || callerMode(caller, mode)
    );
    return {
      sampling,
      elicitation: modes.length > 0 ? { modes } : undefined,
      roots: full.roots && (!passed.has("roots") || caller.roots !== undefined),
      // The caller's roots change only where it says so (2026-07-28 has no such notification).
      rootsListChanged: !passed.has("roots") || caller.roots?.listChanged === true,
    };
  };
  const capabilities = (caller: ClientCapabilities, tasks: boolean): ClientCapabilities =>
    clientCapabilitiesFor(MODERN_PROTOCOL_VERSION, declaredFor(caller), { tasks });
  // With nothing passed down, what is declared upstream is the same for every caller but for the
  // tasks extension: made once, not on every call (shared, so never changed: its type is readonly).
  const fixed = passed.size === 0
    ? { withTasks: capabilities({}, true), withoutTasks: capabilities({}, false) }
    : undefined;
  return Object.freeze<FrontServer>({
    policy,
    chain,
    declaredFor,
    // The tasks extension is a 2026 caller's to declare: the front relays its tasks. For a 2025
    // caller the front declares it where a tool runs only as a task, and awaits the task.
    capabilitiesFor: (caller, options) => {
      const tasks = options?.awaitsTasks === true || caller.extensions?.[TASKS_EXTENSION] !== undefined;
      if (fixed === undefined) return capabilities(caller, tasks);
      return tasks ? fixed.withTasks : fixed.withoutTasks;
    },
    callerCan(caller, request) {
      const need = neededBy(request);
      switch (need[0]) {
        case "roots":
          return caller.roots !== undefined;
        case "sampling":
          return caller.sampling !== undefined &&
            (need[1] === undefined || caller.sampling.tools !== undefined);
        case "elicitation":
          return callerMode(caller, need[1]);
      }
    },
    withheld(caller, required) {
      if (typeof required !== "object" || required === null) return undefined;
      const { sampling, elicitation, roots } = required as Partial<Record<Kind, unknown>>;
      const declared = declaredFor(caller);
      const names: string[] = [];
      if (sampling !== undefined && caller.sampling !== undefined && declared.sampling === undefined) {
        names.push("sampling");
      }
      if (typeof elicitation === "object" && elicitation !== null) {
        // `elicitation: {}` asks for form mode, as a declaration of it would.
        const asked = (["form", "url"] as const).filter((mode) => Object.hasOwn(elicitation, mode));
        for (const mode of asked.length === 0 ? ["form" as const] : asked) {
          if (callerMode(caller, mode) && declared.elicitation?.modes.includes(mode) !== true) {
            names.push(`elicitation (${mode})`);
          }
        }
      }
      if (roots !== undefined && caller.roots !== undefined && !declared.roots) names.push("roots");
      return names.length === 0 ? undefined : names.join(", ");
    },
  });
}

/** An `elicitation: {}` declaration means form mode only. */
function callerMode(caller: ClientCapabilities, mode: "form" | "url"): boolean {
  const elicitation = caller.elicitation;
  if (elicitation === undefined) return false;
  const declared = elicitation.form !== undefined || elicitation.url !== undefined;
  return mode === "form" ? !declared || elicitation.form !== undefined : elicitation.url !== undefined;
}
