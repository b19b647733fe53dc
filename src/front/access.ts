/**
 * A policy's `access`: which callers may use a server, and which of its tools. Checked by the
 * front for every request to `/mcp/<server>` (the server) and every `tools/call` (the tool), in
 * both eras; `tools/list` shows a caller only the tools it may call.
 *
 * @module
 */
import type { CompiledAccessRule, CompiledPolicy } from "../policy/compile-policy.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { Principal } from "./principal.ts";

/** What a caller may do on one server. */
export type Access =
  | { readonly allowed: true; readonly tools: ReadonlySet<string> | "*" }
  | {
    readonly allowed: false;
    /** The scopes that would admit the caller, when some rule admits by scopes alone. */
    readonly scopes: readonly string[] | undefined;
  };

const EVERYTHING: Access = Object.freeze({ allowed: true, tools: "*" });

/**
 * What `principal` may do on the server of `policy`.
 *
 * @param policy The server's compiled policy.
 * @param principal The caller (`undefined` with `auth: "none"`: only rules naming neither
 *   subjects nor scopes match it).
 * @returns Whether it may use the server, and which tools; else the scopes that would admit it.
 * @example
 * ```ts
 * import { accessOf } from "./access.ts";
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * const policy = compilePolicy({
 *   server: "files",
 *   transport: { url: "https://mcp.example.com/mcp" },
 *   access: [{ scopes: ["files:read"], tools: ["read_file"] }],
 * });
 * console.log(accessOf(policy, { subject: "bob", scopes: [], claims: {} }));
 * // { allowed: false, scopes: ["files:read"] }
 * ```
 */
export function accessOf(policy: CompiledPolicy, principal: Principal | undefined): Access {
  if (policy.access === undefined) return EVERYTHING;
  const matching = policy.access.filter((rule) => admits(rule, principal));
  if (matching.length === 0) {
    const byScope = narrowest(
      policy.access.filter((rule) => rule.subjects === undefined && rule.scopes.length > 0),
    );
    return { allowed: false, scopes: byScope?.scopes };
  }
  if (matching.some((rule) => rule.tools === "*")) return EVERYTHING;
  const tools = new Set<string>();
  for (const rule of matching) for (const tool of rule.tools as ReadonlySet<string>) tools.add(tool);
  return { allowed: true, tools };
}

/**
 * The scopes that would let a caller call `tool`: those of the narrowest rule that opens it and
 * admits the caller's subject (see {@linkcode narrowest}), when there is one: a host asks its
 * person to consent to exactly these.
 *
 * @param policy The server's compiled policy.
 * @param principal The caller.
 * @param tool The tool's name.
 * @returns The scopes, or `undefined` when no scopes would.
 */
export function scopesForTool(
  policy: CompiledPolicy,
  principal: Principal | undefined,
  tool: string,
): readonly string[] | undefined {
  const rules = policy.access?.filter((rule) =>
    (rule.tools === "*" || rule.tools.has(tool)) && rule.scopes.length > 0 &&
    (rule.subjects === undefined || (principal !== undefined && rule.subjects.has(principal.subject)))
  );
  return narrowest(rules ?? [])?.scopes;
}

/**
 * Of rules that would admit a caller, the one asking least: the fewest scopes, then one that
 * opens named tools over one that opens every tool, then the first written.
 */
function narrowest(rules: readonly CompiledAccessRule[]): CompiledAccessRule | undefined {
  let best: CompiledAccessRule | undefined;
  for (const rule of rules) {
    if (
      best === undefined || rule.scopes.length < best.scopes.length ||
      (rule.scopes.length === best.scopes.length && best.tools === "*" && rule.tools !== "*")
    ) best = rule;
  }
  return best;
}

/**
 * Whether `access` lets its caller call `tool`.
 *
 * @param access What {@linkcode accessOf} returned.
 * @param tool The tool's name.
 * @returns Whether it may.
 */
export function mayCall(access: Access, tool: string): boolean {
  return access.allowed && (access.tools === "*" || access.tools.has(tool));
}

/**
 * A `tools/list` result as a caller may see it: only the tools its `access` lets it call, and
 * `cacheScope: "private"` where the result had one, also when the caller sees every tool: under
 * `access` the list depends on the caller, so no shared cache may serve it to another.
 *
 * @param result The upstream's result.
 * @param method The request's method (other methods' results pass unchanged).
 * @param policy The server's compiled policy.
 * @param principal The caller.
 * @returns The result to send.
 */
export function toolsVisibleTo(
  result: JsonObject,
  method: string,
  policy: CompiledPolicy,
  principal: Principal | undefined,
): JsonObject {
  if (method !== "tools/list" || policy.access === undefined || !Array.isArray(result.tools)) return result;
  const access = accessOf(policy, principal);
  const tools = access.allowed && access.tools === "*"
    ? result.tools
    : result.tools.filter((tool) =>
      typeof tool === "object" && tool !== null && mayCall(access, String((tool as { name?: unknown }).name))
    );
  return { ...result, tools, ...(result.cacheScope === undefined ? {} : { cacheScope: "private" }) };
}

function admits(rule: CompiledAccessRule, principal: Principal | undefined): boolean {
  if (rule.subjects !== undefined && (principal === undefined || !rule.subjects.has(principal.subject))) {
    return false;
  }
  return rule.scopes.every((scope) => principal?.scopes.includes(scope) === true);
}
