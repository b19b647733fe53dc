/**
 * Reading answers at the terminal: a line reader over any byte or text stream (the same on Node,
 * Deno and Bun), a prompt that gives up when its request's signal fires without losing the line
 * still being typed, and a lock so that input requests answered in parallel ask one at a time.
 *
 * @module
 */
import type { Screen } from "./_terminal.ts";

/** What a prompt got: a line, the end of input, or its request's signal firing first. */
export type PromptAnswer =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "end" }
  | { readonly kind: "aborted" };

type Chunk = Uint8Array | string;

/** Reads lines from a stream, one per call; a read abandoned on abort leaves its line for the next. */
export class LineReader {
  readonly #source: AsyncIterable<Chunk>;
  readonly #decoder = new TextDecoder();
  #iterator: AsyncIterator<Chunk> | undefined;
  #pending: Promise<IteratorResult<Chunk>> | undefined;
  #buffer = "";
  #ended = false;

  /**
   * Wraps a stream; nothing is read before the first {@linkcode read}.
   *
   * @param source The stream (`process.stdin`, or a test's lines).
   */
  constructor(source: AsyncIterable<Chunk>) {
    this.#source = source;
  }

  /**
   * Reads the next line, without its line break.
   *
   * @param signal Gives up waiting when it fires.
   * @returns The line, the end of input, or `aborted`.
   */
  async read(signal?: AbortSignal): Promise<PromptAnswer> {
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const text = this.#buffer.slice(0, newline).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(newline + 1);
        return { kind: "line", text };
      }
      if (this.#ended) {
        if (this.#buffer === "") return { kind: "end" };
        const text = this.#buffer;
        this.#buffer = "";
        return { kind: "line", text };
      }
      if (signal?.aborted === true) return { kind: "aborted" };
      this.#iterator ??= this.#source[Symbol.asyncIterator]();
      this.#pending ??= this.#iterator.next();
      const next = await raceAbort(this.#pending, signal);
      if (next === undefined) return { kind: "aborted" };
      this.#pending = undefined;
      if (next.done === true) {
        this.#ended = true;
        this.#buffer += this.#decoder.decode();
      } else {
        const chunk = next.value;
        this.#buffer += typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
      }
    }
  }

  /** Stops reading the stream. */
  close(): void {
    const iterator = this.#iterator;
    this.#iterator = undefined;
    void iterator?.return?.()?.catch(() => {});
  }
}

/** Asks questions on the screen and reads the answers. */
export class Prompter {
  /** Where questions are written. */
  readonly screen: Screen;
  readonly #reader: LineReader;
  readonly #echo: boolean;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * Creates the prompter.
   *
   * @param screen The screen.
   * @param reader The line reader of stdin.
   */
  constructor(screen: Screen, reader: LineReader) {
    this.screen = screen;
    this.#reader = reader;
    this.#echo = !(screen.io.stdinIsTTY ?? screen.io.isTTY);
  }

  /**
   * Writes `> ` (or another mark) and reads one answer; when stdin is not a terminal the answer is
   * echoed so the output reads as a transcript. A fired signal prints a note and gives up.
   *
   * @param signal The request's signal.
   * @param mark What to write before the answer.
   * @returns The answer.
   */
  async ask(signal: AbortSignal, mark = "> "): Promise<PromptAnswer> {
    this.screen.write(mark);
    const answer = await this.#reader.read(signal);
    if (answer.kind === "line" && this.#echo) this.screen.write(`${answer.text}\n`);
    if (answer.kind === "end") this.screen.write("\n");
    if (answer.kind === "aborted") {
      this.screen.line();
      this.screen.line("(no longer needed: the request timed out or was cancelled)");
    }
    return answer;
  }

  /**
   * Runs one input request's questions after the previous ones are done; skipped when its signal
   * has fired by then.
   *
   * @param signal The request's signal.
   * @param questions Asks and answers.
   * @param skipped The answer when skipped.
   * @returns What `questions` returned.
   */
  exclusive<T>(signal: AbortSignal, questions: () => Promise<T>, skipped: T): Promise<T> {
    const turn = this.#queue.then(() => signal.aborted ? skipped : questions());
    this.#queue = turn.catch(() => {});
    return turn;
  }
}

async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return await promise;
  let onAbort = (): void => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
