/**
 * What the client declares to a server: a kind only when the handler implements it and the
 * policy allows it; elicitation modes are the handler's (default `["form"]`) within the
 * policy's. No handler declares nothing (`{}`). The declaration is shaped per protocol version.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import { TASKS_EXTENSION } from "../protocol/tasks.ts";
import { MODERN_PROTOCOL_VERSION, type ProtocolVersion } from "../protocol/versions.ts";
import type { Handler } from "./handler.ts";

/** The kinds a client declares to one server, era-neutral. */
export interface DeclaredCapabilities {
  /** Sampling, with its sub-capabilities, or `undefined` when not declared. */
  readonly sampling: { readonly context: boolean; readonly tools: boolean } | undefined;
  /** Elicitation with its modes, or `undefined` when not declared (no mode left). */
  readonly elicitation: { readonly modes: readonly ("form" | "url")[] } | undefined;
  /** Whether roots are declared. */
  readonly roots: boolean;
  /**
   * Whether the client tells a 2025 server when its roots change (`notifications/roots/list_changed`):
   * `false` where a gateway's caller answers the roots without declaring `listChanged`, as the gateway can
   * then never tell it. @default true
   */
  readonly rootsListChanged?: boolean;
}

/**
 * Derives what a client declares to one server.
 *
 * @param handler The client's handler, if any.
 * @param policy The server's compiled policy.
 * @returns The declared kinds.
 * @example
 * ```ts
 * import { declareCapabilities } from "./capabilities.ts";
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * const policy = compilePolicy({ server: "a", transport: { url: "https://a.example/mcp" } });
 * console.log(declareCapabilities(undefined, policy)); // { sampling: undefined, elicitation: undefined, roots: false }
 * ```
 */
export function declareCapabilities(
  handler: Handler | undefined,
  policy: CompiledPolicy,
): DeclaredCapabilities {
  const sampling = handler?.sampling !== undefined && policy.sampling.enabled
    ? Object.freeze({ context: policy.sampling.context, tools: policy.sampling.tools })
    : undefined;
  const handlerModes = handler?.elicitationModes ?? ["form"];
  const modes = policy.elicitation.enabled && handler?.elicitation !== undefined
    ? (["form", "url"] as const).filter((m) =>
      handlerModes.includes(m) && policy.elicitation.modes.includes(m)
    )
    : [];
  return Object.freeze({
    sampling,
    elicitation: modes.length > 0 ? Object.freeze({ modes: Object.freeze(modes) }) : undefined,
    roots: handler?.roots !== undefined && policy.roots.enabled,
  });
}

/**
 * Shapes the declared kinds as the `ClientCapabilities` of one protocol version.
 *
 * - `2026-07-28`: `roots: {}`, `sampling: { context?, tools? }`, `elicitation: { form?, url? }`,
 *   and `extensions` with tasks when enabled.
 * - `2025-11-25`: as above, but `roots: { listChanged: true }` (the client sends
 *   `notifications/roots/list_changed`), or `roots: {}` when `rootsListChanged` is `false`.
 * - `2025-06-18`: `sampling: {}`, `elicitation: {}` (form only: this version has no URL mode),
 *   and `roots` as in 2025-11-25.
 *
 * @param version The protocol version of the request or session.
 * @param declared The declared kinds.
 * @param options `tasks`: declare the tasks extension (modern only).
 * @returns A fresh capabilities object.
 */
export function clientCapabilitiesFor(
  version: ProtocolVersion,
  declared: DeclaredCapabilities,
  options: { readonly tasks?: boolean } = {},
): ClientCapabilities {
  const modern = version === MODERN_PROTOCOL_VERSION;
  const old = version === "2025-06-18";
  const out: { -readonly [K in keyof ClientCapabilities]: ClientCapabilities[K] } = {};
  if (declared.roots) out.roots = modern || declared.rootsListChanged === false ? {} : { listChanged: true };
  if (declared.sampling !== undefined) {
    out.sampling = old ? {} : {
      ...(declared.sampling.context ? { context: {} } : {}),
      ...(declared.sampling.tools ? { tools: {} } : {}),
    };
  }
  const modes = declared.elicitation?.modes ?? [];
  if (old && modes.includes("form")) out.elicitation = {};
  if (!old && modes.length > 0) {
    out.elicitation = {
      ...(modes.includes("form") ? { form: {} } : {}),
      ...(modes.includes("url") ? { url: {} } : {}),
    };
  }
  if (modern && options.tasks === true) out.extensions = { [TASKS_EXTENSION]: {} };
  return out;
}
