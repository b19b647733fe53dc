// A latch a test holds work at, and opens when it is ready: runs on every runtime.

/**
 * A gate: `opened` resolves once `open()` is called, and stays resolved.
 *
 * @returns The promise to wait on and the function that resolves it.
 */
export function gate(): { readonly opened: Promise<void>; readonly open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
