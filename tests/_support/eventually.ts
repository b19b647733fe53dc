// Waiting on real time for something to happen, bounded: runs on every runtime, workerd included.
// The bound is a deadline only (a probe that succeeds returns at once), so it is generous: a busy
// machine may take seconds over what an idle one does in milliseconds.

/**
 * Polls `probe` every 20 ms until it returns something other than `undefined`, or `ms` pass.
 *
 * @returns What `probe` returned.
 * @throws {Error} When `ms` pass first, naming `what`.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`eventually(): ${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits for `promise`, at most `ms`.
 *
 * @returns What `promise` resolved with.
 * @throws {Error} When `ms` pass first, naming `what`.
 */
export async function within<T>(what: string, promise: Promise<T>, ms = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`within(): ${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads from `reader` until the text holds as many characters as `expected`, at most `ms`.
 *
 * @returns The text read (shorter when the stream ended first).
 * @throws {Error} When `ms` pass first.
 */
export function readUpTo(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  expected: string,
  ms = 30_000,
): Promise<string> {
  return within(
    `${JSON.stringify(expected)} on the stream`,
    (async () => {
      const decoder = new TextDecoder();
      let text = "";
      while (text.length < expected.length) {
        const next = await reader.read();
        if (next.done) break;
        text += decoder.decode(next.value, { stream: true });
      }
      return text;
    })(),
    ms,
  );
}
