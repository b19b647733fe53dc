/**
 * What a runtime entry may put in each request's bindings (`c.env`) so that the front does less work
 * per call where the web-standard way costs much. Without them the front writes `Response` objects
 * and follows the request's `signal`. The Node entry gives both:
 *
 * - a {@linkcode JsonWriter} under {@linkcode JSON_WRITER}: there a `Response` body is made into a web
 *   stream that the server then reads back to write, which for most calls' small JSON answer costs
 *   more than the rest of writing it;
 * - a {@linkcode CallerGone} under {@linkcode CALLER_GONE}: there the request's `signal` is an
 *   `AbortController` made for the request when it is first read, and on Node 20 an `AbortSignal` is
 *   costly to make and to link the call's signal to, where the front needs only to hear that the
 *   caller left.
 *
 * The Bun entry gives a {@linkcode BodyRead} under {@linkcode BODY_READ}: Bun cuts a connection idle
 * for 10 s, which must bound a body that stalls but not a call that waits on its upstream.
 *
 * @module
 */

/** The key of the {@linkcode JsonWriter} in a request's bindings. */
export const JSON_WRITER: unique symbol = Symbol("sluice.jsonWriter");

/**
 * Writes a JSON answer straight to the caller's connection, and returns the `Response` to give
 * the server in its place (one that says the answer was sent). That `Response` may be one shared
 * by every answer, so nothing may change it: the front writes this way only where no middleware
 * adds headers after the handler (see `respond` in `_front-response.ts`).
 */
export type JsonWriter = (status: number, json: string) => Response;

/** The key of the {@linkcode CallerGone} in a request's bindings. */
export const CALLER_GONE: unique symbol = Symbol("sluice.callerGone");

/**
 * Calls `listener` once, with the reason, when the caller's connection closes before its answer
 * was written in full: what aborting the request's `signal` would tell. Never called otherwise.
 */
export type CallerGone = (listener: (reason: unknown) => void) => void;

/** The key of the {@linkcode BodyRead} in a request's bindings. */
export const BODY_READ: unique symbol = Symbol("sluice.bodyRead");

/**
 * Called once the front is done reading the request's body (read in full, refused as too large,
 * or cut short), before it waits on anything else: the entry may then lift the bound it keeps on
 * how long the body takes to arrive.
 */
export type BodyRead = () => void;
