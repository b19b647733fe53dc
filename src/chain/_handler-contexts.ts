/**
 * The contexts handed to input callbacks, as small classes whose `signal` is a prototype getter made on first
 * read: on Node 20 an object literal with a getter, or a spread followed by new keys, takes V8's slow paths,
 * while a class's instances share one shape and define the getter once (figures: bench/RESULTS.md).
 *
 * @module
 */
import type { FormElicitationContext, InputContext, UrlElicitationContext } from "../handler/handler.ts";
import { defer, type Deferral } from "../handler/deferral.ts";
import type { LazySignal } from "./invoke-handler.ts";

/** What every callback's context holds before the signal is added. */
export type BaseContext = Omit<InputContext, "signal" | "defer">;

/** The context of sampling and roots callbacks. */
export class InputContextImpl implements InputContext {
  readonly client: string;
  readonly serverId: string;
  readonly era: "modern" | "legacy";
  readonly assigns: Readonly<Record<string, unknown>>;
  readonly relatedRequestId: InputContext["relatedRequestId"];
  readonly principal: InputContext["principal"];
  readonly changes: InputContext["changes"];
  readonly #lazy: LazySignal;

  constructor(base: BaseContext, lazy: LazySignal) {
    this.client = base.client;
    this.serverId = base.serverId;
    this.era = base.era;
    this.assigns = base.assigns;
    this.relatedRequestId = base.relatedRequestId;
    this.principal = base.principal;
    this.changes = base.changes;
    this.#lazy = lazy;
  }

  get signal(): AbortSignal {
    return this.#lazy.signal;
  }

  defer(): Deferral {
    return defer();
  }
}

/** The context of a form elicitation. */
export class FormContextImpl extends InputContextImpl implements FormElicitationContext {
  readonly mode = "form" as const;
  readonly fields: FormElicitationContext["fields"];

  constructor(base: BaseContext, lazy: LazySignal, fields: FormElicitationContext["fields"]) {
    super(base, lazy);
    this.fields = fields;
  }
}

/** The context of a URL elicitation. */
export class UrlContextImpl extends InputContextImpl implements UrlElicitationContext {
  readonly mode = "url" as const;
  readonly url: string;
  readonly host: string;
  readonly idn: boolean;
  readonly originMismatch: boolean;

  constructor(
    base: BaseContext,
    lazy: LazySignal,
    extra: Pick<UrlElicitationContext, "url" | "host" | "idn" | "originMismatch">,
  ) {
    super(base, lazy);
    this.url = extra.url;
    this.host = extra.host;
    this.idn = extra.idn;
    this.originMismatch = extra.originMismatch;
  }
}
