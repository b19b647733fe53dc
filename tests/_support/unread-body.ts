/**
 * A request body that errors once read, and tells whether it was: for the tests of what a gateway
 * refuses before it reads the body. Runs on every runtime.
 *
 * @module
 */

/**
 * A body nothing is pulled from until it is read (`highWaterMark: 0`).
 *
 * @returns The body, and `pulled()`, whether anything read it.
 */
export function unreadBody(): { readonly body: ReadableStream<Uint8Array>; pulled(): boolean } {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled = true;
      controller.error(new Error("the body was read"));
    },
  }, { highWaterMark: 0 });
  return { body, pulled: () => pulled };
}
