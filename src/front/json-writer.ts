/**
 * How a runtime entry lets the front write its JSON answers to the connection itself: the entry
 * puts a {@linkcode JsonWriter} in each request's bindings (`c.env`) under
 * {@linkcode JSON_WRITER}. The Node entry does: there a `Response` body is made into a web
 * stream, which the server then reads back to write it, and for the small JSON answer of most
 * calls that costs more than the rest of writing the answer.
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
