/**
 * Handlers: plain functions that answer what a server asks (sampling, elicitation, roots) and
 * hear what it reports (notifications, logs). The policy's checks run around them.
 *
 * @module
 */
import type { RequestId } from "../protocol/jsonrpc.ts";
import type { CreateMessageRequestParams, CreateMessageResult } from "../protocol/sampling.ts";
import type { ElicitRequestParams, ElicitResult } from "../protocol/elicitation.ts";
import type { ListRootsResult } from "../protocol/roots.ts";
import type { LogLevel } from "../policy/policy.ts";
import type { Deferral } from "./deferral.ts";

/** The caller a gateway request was authenticated as (`ctx.principal`). */
export interface Principal {
  /** Who the caller is: the token's `sub`, a bearer secret's subject, or what `auth` returned. */
  readonly subject: string;
  /** The scopes the caller was granted (a JWT's `scope` or `scp`; a bearer secret's `scopes`). */
  readonly scopes: readonly string[];
  /** The verified claims (a JWT's payload), or what a custom `auth` function returned. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** A value the policy's checks changed in a request before the handler saw it. */
export interface InputChange {
  /** The field: `maxTokens`, `includeContext` or `url` (in a decision event also `roots[<index>].uri`). */
  readonly field: string;
  /** What the server asked. */
  readonly from: unknown;
  /** What the policy let through. */
  readonly to: unknown;
}

/** What every input callback is told about the request. */
export interface InputContext {
  /** The client's name. */
  readonly client: string;
  /** The operator's id of the asking server. */
  readonly serverId: string;
  /** The protocol era of the request. */
  readonly era: "modern" | "legacy";
  /** The assigns of the related call, or the client's. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The in-flight request this input belongs to (legacy); `null` when none, always `null` for modern input. */
  readonly relatedRequestId: RequestId | null;
  /**
   * What the policy changed in the request before this callback saw it (a clamped `maxTokens`, a coerced
   * `includeContext`, a normalised URL), to show the person what the server asked. Frozen: it is also the
   * decision event's list.
   */
  readonly changes: readonly InputChange[];
  /**
   * The gateway's caller, as its `auth` established it, when the call came through the front; `undefined` for
   * the library's own calls and `auth: "none"`.
   */
  readonly principal?: Principal | undefined;
  /**
   * Fires on the handler's timeout, on cancellation by the server, or when the call is abandoned. A getter
   * made on first read: `ctx.signal` and `({ signal })` work, a spread copy of `ctx` does not carry it.
   */
  readonly signal: AbortSignal;
  /**
   * Passes the request down instead of answering it: in the front, to the downstream caller (as the checks
   * left it), when that caller declared the capability. Use `return ctx.defer()`. Outside the front, a
   * deferral fails the request.
   */
  defer(): Deferral;
}

/** The context of a form elicitation. */
export interface FormElicitationContext extends InputContext {
  /** Always `"form"`. */
  readonly mode: "form";
  /** Per field: whether it looks like it asks for a secret (the spec forbids that in form mode). */
  readonly fields: Readonly<Record<string, { readonly sensitiveSuspected: boolean }>>;
}

/** The context of a URL elicitation. */
export interface UrlElicitationContext extends InputContext {
  /** Always `"url"`. */
  readonly mode: "url";
  /** The URL to show, normalised: what a browser would open. */
  readonly url: string;
  /** Its host, in A-label (punycode) form: highlight it. */
  readonly host: string;
  /** Whether a host label is an IDN (`xn--`): warn about look-alikes. */
  readonly idn: boolean;
  /** Whether the URL's origin differs from the server's (always true when the server's is unknown). */
  readonly originMismatch: boolean;
}

/** The context of an elicitation, by mode. */
export type ElicitationContext = FormElicitationContext | UrlElicitationContext;

/** What notification and log callbacks are told. */
export interface NotificationContext {
  /** The client's name. */
  readonly client: string;
  /** The operator's id of the server. */
  readonly serverId: string;
  /** The protocol era. */
  readonly era: "modern" | "legacy";
}

/**
 * A handler's refusal: sent to a legacy server as the JSON-RPC error, `data` included; fails a
 * modern call with a `ClientError` of kind `"input_handler"` carrying its `code` and `data`.
 */
export interface HandlerError {
  /** The error; `data` that is not JSON (a `BigInt`, a cycle) is left out. */
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** A callback's answer: the result, `{ error }`, or `ctx.defer()`; sync or async. */
export type Answer<T> = T | HandlerError | Deferral | Promise<T | HandlerError | Deferral>;

/** A sanitized server log entry. */
export interface LogEntry {
  /** The level (unknown levels become `"info"`). */
  readonly level: LogLevel;
  /** The logger name, when given. */
  readonly logger?: string;
  /** The sanitized data. */
  readonly data: unknown;
}

/** The callbacks a client answers servers with; each one is optional. */
export interface Handler {
  /** Answers `sampling/createMessage`; implementing it declares `sampling`. */
  readonly sampling?:
    | ((params: CreateMessageRequestParams, ctx: InputContext) => Answer<CreateMessageResult>)
    | undefined;
  /** The elicitation modes this handler can present. @default ["form"] */
  readonly elicitationModes?: readonly ("form" | "url")[] | undefined;
  /** Answers `elicitation/create`; implementing it declares `elicitation`. */
  readonly elicitation?:
    | ((params: ElicitRequestParams, ctx: ElicitationContext) => Answer<ElicitResult>)
    | undefined;
  /** Answers `roots/list`; implementing it declares `roots`. */
  readonly roots?: ((ctx: InputContext) => Answer<ListRootsResult>) | undefined;
  /** Hears every server notification the client does not consume itself. */
  readonly notification?:
    | ((
      method: string,
      params: Readonly<Record<string, unknown>>,
      ctx: NotificationContext,
    ) => unknown)
    | undefined;
  /** Hears each server log entry that passes the log budget and the sanitizer. */
  readonly log?: ((level: LogLevel, entry: LogEntry, ctx: NotificationContext) => unknown) | undefined;
  /**
   * Has the person sign in to a server whose policy has `transport.auth.oauth`: show `request.url` (checked
   * like a URL elicitation's; highlight `request.host`, warn on `request.idn`) and return
   * `{ action: "accept" }` once it is shown. sluice then waits in this process for
   * `client.completeAuthorization(serverId, callbackUrl)` (until `request.expiresAt`) and retries with the
   * new token. `"decline"` or `"cancel"` fail the request.
   */
  readonly authorize?:
    | ((
      request: AuthorizationPrompt,
      ctx: AuthorizeContext,
    ) => AuthorizeAnswer | Promise<AuthorizeAnswer>)
    | undefined;
}

/** What `authorize` shows the person. */
export interface AuthorizationPrompt {
  /** The authorization URL, normalised: what a browser would open. */
  readonly url: string;
  /** Its host, in A-label (punycode) form: highlight it. */
  readonly host: string;
  /** Whether a host label is an IDN (`xn--`): warn about look-alikes. */
  readonly idn: boolean;
  /** When the sign-in stops being accepted (ms since the epoch). */
  readonly expiresAt: number;
}

/** What `authorize` is told. */
export interface AuthorizeContext {
  /** The client's name. */
  readonly client: string;
  /** The server that needs the sign-in. */
  readonly serverId: string;
  /** Fires when the request that needs the sign-in is abandoned. */
  readonly signal: AbortSignal;
}

/** What `authorize` answers: `"accept"` once the URL is shown. */
export interface AuthorizeAnswer {
  /** `"accept"`: the person was shown the URL; `"decline"`, `"cancel"`: no sign-in. */
  readonly action: "accept" | "decline" | "cancel";
}

const CALLBACKS = ["sampling", "elicitation", "roots", "notification", "log", "authorize"] as const;
const KNOWN = new Set<string>([...CALLBACKS, "elicitationModes"]);

/**
 * Declares a handler: checks its shape once and returns it unchanged, typed.
 *
 * @param handler The callbacks.
 * @returns The same object.
 * @throws {TypeError} When a callback is not a function, a key is unknown, or `elicitationModes`
 *   is not a non-empty list of `"form"` and `"url"` without repeats.
 * @example
 * ```ts
 * import { defineHandler } from "./handler.ts";
 * const handler = defineHandler({
 *   elicitation: async (params, ctx) => ({ action: "decline" }),
 * });
 * console.log(typeof handler.elicitation); // function
 * ```
 */
export function defineHandler<const H extends Handler>(handler: H): H {
  if (typeof handler !== "object" || handler === null) {
    throw new TypeError(
      `A handler must be an object of callbacks, received ${handler === null ? "null" : typeof handler}`,
    );
  }
  for (const key of Object.keys(handler)) {
    if (!KNOWN.has(key)) {
      throw new TypeError(
        `Handler key "${key}" is unknown: expected one of ${[...KNOWN].map((k) => `"${k}"`).join(", ")}`,
      );
    }
  }
  for (const name of CALLBACKS) {
    const callback: unknown = handler[name];
    if (callback !== undefined && typeof callback !== "function") {
      throw new TypeError(`Handler "${name}" must be a function, received ${typeof callback}`);
    }
  }
  const modes: unknown = handler.elicitationModes;
  if (
    modes !== undefined &&
    (!Array.isArray(modes) || modes.length === 0 || new Set(modes).size !== modes.length ||
      !modes.every((m) => m === "form" || m === "url"))
  ) {
    throw new TypeError(
      `Handler "elicitationModes" must be a non-empty list of "form" and "url" without repeats`,
    );
  }
  return handler;
}
